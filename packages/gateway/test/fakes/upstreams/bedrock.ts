/**
 * A loopback Amazon Bedrock runtime: `POST /model/{modelId}/converse` and `/converse-stream`.
 *
 * Every request is authenticated as Bedrock does it. A SigV4-signed request has its signature
 * recomputed with AWS's signer (`@smithy/signature-v4`) from the secret this server knows for the access
 * key id, over exactly the headers the request says it signed, the path as received and the date it
 * carries; the scope must name the key's region and the service `bedrock`, the body must hash to its
 * `x-amz-content-sha256`, and temporary credentials must send (and sign) their session token. A request
 * that fails any of it is refused with 403 `InvalidSignatureException` (an unknown key id:
 * `UnrecognizedClientException`). A Bedrock API key comes as `Authorization: Bearer`.
 *
 * The body is checked as Converse checks it (roles alternate from a user turn, no blank text, a toolConfig
 * whenever toolUse or toolResult blocks appear, a thinking budget below maxTokens); the answer is text,
 * a tool call when tools are offered on a user turn, a quote of a tool result, and a reasoning block
 * first when `additionalModelRequestFields.thinking` is enabled; usage always reports cache reads and
 * writes. ConverseStream answers are AWS event-stream messages encoded with `EventStreamCodec`, each
 * written in two pieces. Models whose id names a failure answer it: `throttle` 429
 * `ThrottlingException`, `invalid` 400 `ValidationException`, `broken` 500 `InternalServerException`,
 * `stream-fault` a stream that ends with a `modelStreamErrorException`.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { SignatureV4 } from '@smithy/signature-v4';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { json, sleep, startFake, type FakeUpstream, type Recorded } from './common.ts';

/** What every answer reports: 20 uncached input tokens, 300 read from the cache, 100 written to it, 12 out. */
export const BEDROCK_USAGE = { inputTokens: 20, outputTokens: 12, totalTokens: 432, cacheReadInputTokens: 300, cacheWriteInputTokens: 100 };

export interface AwsCredential {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  sessionToken?: string;
}

/** A model call the server accepted. */
export interface BedrockCall {
  model: string;
  stream: boolean;
  auth: 'sigv4' | 'api_key';
  /** The access key id (SigV4) or the API key. */
  principal: string;
  region?: string;
  signedHeaders?: string[];
  body: any;
}

export interface FakeBedrock {
  up: FakeUpstream;
  /** Accepted model calls, in order. */
  calls: BedrockCall[];
  /** Requests refused for their credentials, with the error type. */
  refused: Array<{ path: string; type: string }>;
  /** Adds credentials the server accepts. */
  allow(c: AwsCredential): void;
  allowApiKey(key: string, region: string): void;
  close(): Promise<void>;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function awsError(res: ServerResponse, status: number, type: string, message: string): void {
  json(
    res,
    status,
    { message },
    { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, 'x-amzn-requestid': 'req-fake' },
  );
}

/** `20260102T030405Z` → the Date. */
function amzDate(s: string): Date | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])) : null;
}

const header = (r: Recorded, name: string): string => {
  const v = r.headers[name];
  return Array.isArray(v) ? v.join(',') : (v ?? '');
};

/**
 * Recomputes the SigV4 signature of a request; returns the refusal (type and message) or null when the
 * signature is the one the known secret gives.
 */
export async function verifySigV4(
  r: Recorded,
  creds: Map<string, AwsCredential>,
): Promise<{ type: string; message: string; cred?: AwsCredential } | { cred: AwsCredential; signed: string[] }> {
  const auth = header(r, 'authorization');
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m)
    return {
      type: 'IncompleteSignatureException',
      message: `Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters. Authorization=${auth}`,
    };
  const [, keyId, day, region, service, signedList] = m;
  const cred = creds.get(keyId);
  if (!cred) return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  const fail = (why: string) => ({
    type: 'InvalidSignatureException',
    cred,
    message: `The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. (${why}; Authorization=${auth})`,
  });
  if (service !== 'bedrock') return fail(`credential should be scoped to correct service: 'bedrock', not '${service}'`);
  if (region !== cred.region) return fail(`credential should be scoped to a valid region: '${cred.region}', not '${region}'`);
  const date = amzDate(header(r, 'x-amz-date'));
  if (!date || header(r, 'x-amz-date').slice(0, 8) !== day) return fail('x-amz-date is missing or does not match the credential scope');
  if (Math.abs(Date.now() - date.getTime()) > 5 * 60_000) return { type: 'InvalidSignatureException', cred, message: 'Signature expired' };
  const signed = signedList.split(';');
  if (!signed.includes('host') || !signed.includes('x-amz-date')) return fail('host and x-amz-date must be signed');
  if (cred.sessionToken && (header(r, 'x-amz-security-token') !== cred.sessionToken || !signed.includes('x-amz-security-token'))) {
    return { type: 'UnrecognizedClientException', cred, message: 'The security token included in the request is invalid.' };
  }
  const bodyHash = createHash('sha256').update(r.bytes).digest('hex');
  if (r.headers['x-amz-content-sha256'] !== undefined && header(r, 'x-amz-content-sha256') !== bodyHash)
    return fail('x-amz-content-sha256 does not match the body');
  const headers: Record<string, string> = {};
  for (const h of signed) {
    if (r.headers[h] === undefined) return fail(`signed header ${h} is missing`);
    headers[h] = header(r, h);
  }
  const q = r.path.indexOf('?');
  const path = q < 0 ? r.path : r.path.slice(0, q);
  const query = Object.fromEntries(new URLSearchParams(q < 0 ? '' : r.path.slice(q + 1)));
  const [hostname, port] = headers.host.split(':');
  const signer = new SignatureV4({
    service: 'bedrock',
    region: cred.region,
    sha256: Sha256,
    applyChecksum: false,
    credentials: {
      accessKeyId: cred.accessKeyId,
      secretAccessKey: cred.secretAccessKey,
      ...(cred.sessionToken ? { sessionToken: cred.sessionToken } : {}),
    },
  });
  const expected = await signer.sign(
    { method: r.method, protocol: 'http:', hostname, ...(port ? { port: Number(port) } : {}), path, query, headers, body: r.bytes },
    { signingDate: date },
  );
  if (expected.headers.authorization !== auth) return fail('signature mismatch');
  return { cred, signed };
}

/** The checks Converse makes of a body; the first problem, or null. */
function invalidBody(b: any): string | null {
  if (!b || !Array.isArray(b.messages) || b.messages.length === 0) return 'messages: at least one message is required';
  let toolBlocks = false;
  for (let i = 0; i < b.messages.length; i++) {
    const m = b.messages[i];
    if (m.role !== (i % 2 === 0 ? 'user' : 'assistant'))
      return `messages.${i}.role: a conversation must alternate between user and assistant roles, starting with user`;
    if (!Array.isArray(m.content) || m.content.length === 0) return `messages.${i}.content: at least one content block is required`;
    for (const c of m.content) {
      const kinds = Object.keys(c);
      if (kinds.length !== 1) return `messages.${i}.content: a content block has exactly one member, not ${kinds.join(',')}`;
      if ('text' in c && (typeof c.text !== 'string' || !c.text.trim()))
        return `messages.${i}: the text field in the ContentBlock object is blank`;
      if ('toolUse' in c || 'toolResult' in c) toolBlocks = true;
    }
  }
  if (toolBlocks && !Array.isArray(b.toolConfig?.tools))
    return 'The toolConfig field must be defined when using toolUse and toolResult content blocks.';
  for (const s of b.system ?? []) if (!('text' in s) && !('cachePoint' in s)) return 'system: only text and cachePoint blocks';
  const th = b.additionalModelRequestFields?.thinking;
  if (th?.type === 'enabled' && !(typeof b.inferenceConfig?.maxTokens === 'number' && th.budget_tokens < b.inferenceConfig.maxTokens)) {
    return 'thinking.budget_tokens must be below max_tokens';
  }
  if ('model' in b || 'stream' in b) return `extraneous key [${'model' in b ? 'model' : 'stream'}] is not permitted`;
  return null;
}

interface Answer {
  content: any[];
  stopReason: string;
}

function answer(b: any): Answer {
  const last = b.messages[b.messages.length - 1];
  const toolResult = last.content.find((c: any) => c.toolResult)?.toolResult;
  const tools = (b.toolConfig?.tools ?? []).filter((t: any) => t.toolSpec);
  const wantsTool = tools.length > 0 && !toolResult;
  const content: any[] = [];
  if (b.additionalModelRequestFields?.thinking?.type === 'enabled')
    content.push({ reasoningContent: { reasoningText: { text: 'Let me think.', signature: 'sig-bedrock' } } });
  if (wantsTool) content.push({ toolUse: { toolUseId: 'tooluse_1', name: tools[0].toolSpec.name, input: { city: 'Paris' } } });
  else
    content.push({
      text: toolResult
        ? `tool said: ${toolResult.content?.[0]?.text ?? JSON.stringify(toolResult.content?.[0]?.json)}`
        : 'Hello from Bedrock',
    });
  return { content, stopReason: wantsTool ? 'tool_use' : 'end_turn' };
}

/** One AWS event-stream message: an event (or an exception) of the given name with a JSON payload. */
export function frame(event: string, payload: unknown, type: 'event' | 'exception' = 'event'): Uint8Array {
  const name = type === 'event' ? ':event-type' : ':exception-type';
  return codec.encode({
    headers: {
      ':message-type': { type: 'string', value: type },
      [name]: { type: 'string', value: event },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

/** The ConverseStream events of an answer. */
function streamFrames(a: Answer, fault: boolean): Uint8Array[] {
  const out = [frame('messageStart', { p: 'abcdefgh', role: 'assistant' })];
  a.content.forEach((c, i) => {
    const at = { contentBlockIndex: i };
    if (c.reasoningContent) {
      out.push(frame('contentBlockDelta', { ...at, delta: { reasoningContent: { text: 'Let me ' } } }));
      out.push(frame('contentBlockDelta', { ...at, delta: { reasoningContent: { text: 'think.' } } }));
      out.push(
        frame('contentBlockDelta', { ...at, delta: { reasoningContent: { signature: c.reasoningContent.reasoningText.signature } } }),
      );
    } else if (c.toolUse) {
      out.push(frame('contentBlockStart', { ...at, start: { toolUse: { toolUseId: c.toolUse.toolUseId, name: c.toolUse.name } } }));
      out.push(frame('contentBlockDelta', { ...at, delta: { toolUse: { input: '{"city":' } } }));
      out.push(frame('contentBlockDelta', { ...at, delta: { toolUse: { input: '"Paris"}' } } }));
    } else {
      for (const piece of (c.text as string).split(/(?<= )/)) out.push(frame('contentBlockDelta', { ...at, delta: { text: piece } }));
    }
    out.push(frame('contentBlockStop', at));
  });
  if (fault) {
    out.push(frame('modelStreamErrorException', { message: 'The model stream failed', originalStatusCode: 500 }, 'exception'));
    return out;
  }
  out.push(frame('messageStop', { stopReason: a.stopReason }));
  out.push(frame('metadata', { usage: BEDROCK_USAGE, metrics: { latencyMs: 42 } }));
  return out;
}

export async function startFakeBedrock(): Promise<FakeBedrock> {
  const creds = new Map<string, AwsCredential>();
  const apiKeys = new Map<string, string>();
  const calls: BedrockCall[] = [];
  const refused: FakeBedrock['refused'] = [];

  async function handle(r: Recorded, res: ServerResponse, up: FakeUpstream): Promise<void> {
    const m = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(r.path);
    if (r.method !== 'POST' || !m) return awsError(res, 404, 'UnknownOperationException', `no operation at ${r.path}`);
    const model = decodeURIComponent(m[1]);
    const stream = m[2] === 'converse-stream';
    const auth = header(r, 'authorization');
    let call: BedrockCall;
    if (auth.startsWith('Bearer ')) {
      const region = apiKeys.get(auth.slice(7));
      if (!region) {
        refused.push({ path: r.path, type: 'UnrecognizedClientException' });
        return awsError(res, 403, 'UnrecognizedClientException', 'Invalid API Key format: Must start with pre-defined prefix');
      }
      call = { model, stream, auth: 'api_key', principal: auth.slice(7), region, body: r.body };
    } else {
      const v = await verifySigV4(r, creds);
      if ('type' in v) {
        refused.push({ path: r.path, type: v.type });
        return awsError(res, 403, v.type, v.message);
      }
      call = { model, stream, auth: 'sigv4', principal: v.cred.accessKeyId, region: v.cred.region, signedHeaders: v.signed, body: r.body };
    }
    if (header(r, 'content-type') !== 'application/json')
      return awsError(res, 415, 'UnsupportedMediaTypeException', 'content type must be application/json');
    const invalid = invalidBody(r.body);
    if (invalid) return awsError(res, 400, 'ValidationException', invalid);
    calls.push(call);
    if (model.includes('throttle')) return awsError(res, 429, 'ThrottlingException', 'Too many requests, please wait before trying again.');
    if (model.includes('invalid')) return awsError(res, 400, 'ValidationException', 'The provided model identifier is invalid.');
    if (model.includes('broken')) return awsError(res, 500, 'InternalServerException', 'The server encountered an internal error.');
    const a = answer(r.body);
    if (!stream) {
      return json(res, 200, {
        output: { message: { role: 'assistant', content: a.content } },
        stopReason: a.stopReason,
        usage: BEDROCK_USAGE,
        metrics: { latencyMs: 42 },
      });
    }
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'req-fake' });
    for (const f of streamFrames(a, model.includes('stream-fault'))) {
      if (res.destroyed) return;
      // Each message in two pieces: the reader must hold a partial message until the rest comes.
      const cut = Math.max(1, Math.floor(f.length / 3));
      res.write(f.subarray(0, cut));
      await sleep(up.delayMs);
      res.write(f.subarray(cut));
    }
    res.end();
  }

  const up = await startFake(handle);
  return {
    up,
    calls,
    refused,
    allow: (c) => {
      creds.set(c.accessKeyId, c);
    },
    allowApiKey: (key, region) => {
      apiKeys.set(key, region);
    },
    close: () => up.close(),
  };
}
