/**
 * Channel test calls (the recovery probe, relay/recovery.ts, sends them too).
 * A test sends a one-token chat request (or a tiny embedding for embedding models) with one key.
 */
import { GatewayError, fail } from '../platform/errors.ts';
import type { RuntimeChannel } from './channels.ts';
import { encodeRequest, decodeRequest, UnusableKeyError, upstreamErrorMessage, upstreamErrorType } from './providers/index.ts';
import { applyParamOverride, channelFormat, prepareUpstream, upstreamModel, type RelayKind } from './providers/endpoint.ts';
import { redactSecrets, sentSecrets } from '../platform/redact.ts';
import { readText, type UpstreamPools } from './upstream.ts';
import type { GoogleTokens } from '../platform/google-token.ts';

export interface TestResult {
  ok: boolean;
  status: number;
  timeMs: number;
  model: string;
  message: string;
}

/** `google` exchanges a Vertex channel's service-account key for the token the upstream wants. */
export async function testKey(
  pools: UpstreamPools,
  ch: RuntimeChannel,
  keyIndex: number,
  model?: string,
  google?: GoogleTokens,
): Promise<TestResult> {
  const m = model || ch.testModel || ch.models[0];
  if (!m) throw fail('invalid_request', 'the channel lists no model to test');
  const up = upstreamModel(ch, m);
  const fmt = channelFormat(ch.type, up);
  const kind: RelayKind = /embed/i.test(m) && fmt === 'openai' ? 'embeddings' : 'chat';
  let body: Record<string, unknown>;
  if (kind === 'embeddings') body = { model: up, input: 'hi' };
  else if (fmt === 'openai') body = { model: up, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 };
  else body = encodeRequest(fmt, decodeRequest('openai', { model: up, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }), up);
  applyParamOverride(body, ch.paramOverride);
  const t0 = performance.now();
  try {
    const key = ch.keys[keyIndex];
    // The endpoint's URL, headers and body with this key (Bedrock signs the request, Vertex sends an access token).
    const {
      url,
      headers,
      body: text,
      secrets,
    } = await prepareUpstream({
      channel: ch,
      key,
      kind,
      model: up,
      stream: false,
      body: JSON.stringify(body),
      ...(google ? { google } : {}),
    });
    const res = await pools.send({ url, method: 'POST', headers, body: text });
    const answer = await readText(res.body, 256 * 1024);
    const timeMs = Math.round(performance.now() - t0);
    if (res.statusCode >= 400) {
      const type = upstreamErrorType(fmt, res.headers);
      const message = upstreamErrorMessage(fmt, res.statusCode, redactSecrets(answer, sentSecrets(secrets, headers, url)), type);
      return { ok: false, status: res.statusCode, timeMs, model: m, message };
    }
    return { ok: true, status: res.statusCode, timeMs, model: m, message: 'ok' };
  } catch (thrown) {
    // A key that cannot be used says why, as the error of reading it.
    const e = thrown instanceof UnusableKeyError ? thrown.reason : thrown;
    const err = e as { code?: string; message?: string };
    const timeMs = Math.round(performance.now() - t0);
    // A service account whose token exchange failed, or a Bedrock key that cannot be read, says why (no secret is in that message).
    if (e instanceof GatewayError) return { ok: false, status: e.status, timeMs, model: m, message: e.message };
    return { ok: false, status: 0, timeMs, model: m, message: `upstream connection failed${err.code ? ` (${err.code})` : ''}` };
  }
}

/** The first key not disabled, else key 0. */
export function firstUsableKey(ch: RuntimeChannel): number {
  for (let i = 0; i < ch.keys.length; i++) if (!ch.keyState[String(i)]) return i;
  return 0;
}
