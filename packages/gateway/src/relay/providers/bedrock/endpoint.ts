/**
 * Amazon Bedrock channels (type `bedrock`): every model through the Converse API
 * (`POST /model/{modelId}/converse`, `/converse-stream`; the wire format of bedrock/codec.ts) at
 * `https://bedrock-runtime.{region}.amazonaws.com`, or at `base_url` when it is set.
 *
 * A key is either `ACCESS_KEY_ID|SECRET_ACCESS_KEY|REGION` (New API's form), with an optional fourth part,
 * a session token (temporary credentials): each request is signed with SigV4 (service `bedrock`) by
 * AWS's own signer (`@smithy/signature-v4`); or a Bedrock API key, sent as `Authorization: Bearer`, whose
 * region is `settings.region`. A key is read once and its signer kept (`bedrockCredential`).
 *
 * ConverseStream answers in AWS's event-stream framing (`application/vnd.amazon.eventstream`): binary
 * messages with a length prelude and CRCs. `EventStreamFramer` decodes them with AWS's codec
 * (`@smithy/eventstream-codec`) as the bytes arrive and hands on the same events the SSE framer
 * gives (event name `:event-type`, data the JSON payload), so the relay's stream path is the one of every
 * other upstream; only a partial message is ever held.
 *
 * AWS's packages are loaded when first needed (the first access key read, the first event stream), not at
 * start: a node with no Bedrock channel never loads them.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { SignatureV4 } from '@smithy/signature-v4';
import type { EventStreamCodec } from '@smithy/eventstream-codec';
import { fail } from '../../../platform/errors.ts';
import type { UpstreamChannel } from '../provider.ts';
import type { SseEvent } from '../../sse.ts';

export { isBedrockAnthropic } from './codec.ts';

export const BEDROCK_SERVICE = 'bedrock';
export const EVENT_STREAM_TYPE = 'application/vnd.amazon.eventstream';
/** An AWS region name: `us-east-1`, `eu-central-2`, `us-gov-west-1` … */
export const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const ACCESS_KEY_ID = /^[A-Z0-9]{16,128}$/;

export type BedrockKey =
  | { kind: 'sigv4'; accessKeyId: string; secretAccessKey: string; region: string; sessionToken?: string }
  | { kind: 'api_key'; apiKey: string; region: string };

const invalid = (why: string) => fail('invalid_bedrock_key', why);

/**
 * Reads a channel key: `ACCESS_KEY_ID|SECRET_ACCESS_KEY|REGION[|SESSION_TOKEN]`, or (no `|`) a Bedrock
 * API key whose region is `region` (the channel's `settings.region`). Throws a 400-class error that
 * names what is wrong and never repeats the key.
 */
export function parseBedrockKey(key: string, region?: unknown): BedrockKey {
  const k = key.trim();
  if (!k) throw invalid('the key is empty');
  if (!k.includes('|')) {
    if (/\s/.test(k)) throw invalid('a Bedrock API key has no spaces');
    if (typeof region !== 'string' || !AWS_REGION.test(region))
      throw invalid('a Bedrock API key needs settings.region (an AWS region such as us-east-1)');
    return { kind: 'api_key', apiKey: k, region };
  }
  const parts = k.split('|').map((s) => s.trim());
  if (parts.length < 3 || parts.length > 4) throw invalid('must be ACCESS_KEY_ID|SECRET_ACCESS_KEY|REGION, optionally |SESSION_TOKEN');
  const [accessKeyId, secretAccessKey, r, sessionToken] = parts;
  if (!ACCESS_KEY_ID.test(accessKeyId)) throw invalid('the access key id must be 16 or more capital letters and digits (AKIA…, ASIA…)');
  if (!secretAccessKey || /\s/.test(secretAccessKey)) throw invalid('the secret access key is missing');
  if (!AWS_REGION.test(r)) throw invalid('the third part must be an AWS region such as us-east-1');
  if (parts.length === 4 && (!sessionToken || /\s/.test(sessionToken))) throw invalid('the session token (fourth part) is empty');
  return { kind: 'sigv4', accessKeyId, secretAccessKey, region: r, ...(sessionToken ? { sessionToken } : {}) };
}

/** A channel key read once: its region, its signer (or API key), and what an upstream error must not repeat. */
export interface BedrockCredential {
  region: string;
  signer: SignatureV4 | null;
  apiKey: string | null;
  /** The key and each of its secret parts, for redaction of upstream error text. */
  secrets: string[];
  /** Model URLs by base, model and streaming. */
  urls: Map<string, URL>;
}

const credentials = new Map<string, BedrockCredential>();

const load = createRequire(import.meta.url);
let signing: { SignatureV4: typeof SignatureV4; Sha256: typeof import('@aws-crypto/sha256-js').Sha256 } | null = null;
let framing: { codec: EventStreamCodec; toUtf8: (b: Uint8Array) => string } | null = null;

/** AWS's SigV4 signer and SHA-256, loaded by the first access key read. */
function awsSigning() {
  return (signing ??= {
    SignatureV4: (load('@smithy/signature-v4') as typeof import('@smithy/signature-v4')).SignatureV4,
    Sha256: (load('@aws-crypto/sha256-js') as typeof import('@aws-crypto/sha256-js')).Sha256,
  });
}

/** AWS's event-stream codec, loaded by the first event stream read. */
function awsFraming() {
  if (!framing) {
    const { EventStreamCodec } = load('@smithy/eventstream-codec') as typeof import('@smithy/eventstream-codec');
    const { fromUtf8, toUtf8 } = load('@smithy/util-utf8') as typeof import('@smithy/util-utf8');
    framing = { codec: new EventStreamCodec(toUtf8, fromUtf8), toUtf8 };
  }
  return framing;
}

/** The credential of a channel key (read and cached on first use); throws as parseBedrockKey. */
export function bedrockCredential(key: string, ch: Pick<UpstreamChannel, 'settings'>): BedrockCredential {
  const region = ch.settings.region;
  const id = `${typeof region === 'string' ? region : ''}\n${key}`;
  let c = credentials.get(id);
  if (c) return c;
  const k = parseBedrockKey(key, region);
  c =
    k.kind === 'api_key'
      ? { region: k.region, signer: null, apiKey: k.apiKey, secrets: [key, k.apiKey], urls: new Map() }
      : {
          region: k.region,
          signer: new (awsSigning().SignatureV4)({
            service: BEDROCK_SERVICE,
            region: k.region,
            sha256: awsSigning().Sha256,
            credentials: {
              accessKeyId: k.accessKeyId,
              secretAccessKey: k.secretAccessKey,
              ...(k.sessionToken ? { sessionToken: k.sessionToken } : {}),
            },
          }),
          apiKey: null,
          secrets: [key, k.accessKeyId, k.secretAccessKey, ...(k.sessionToken ? [k.sessionToken] : [])],
          urls: new Map(),
        };
  if (credentials.size >= 1000) credentials.clear();
  credentials.set(id, c);
  return c;
}

/** The Converse (or ConverseStream) URL of a model: `base_url`, else the regional endpoint of the key. */
export function bedrockUrl(ch: Pick<UpstreamChannel, 'baseUrl'>, cred: BedrockCredential, model: string, stream: boolean): Readonly<URL> {
  const k = `${ch.baseUrl}\n${model}\n${stream ? 1 : 0}`;
  let u = cred.urls.get(k);
  if (!u) {
    const host = (ch.baseUrl || `https://bedrock-runtime.${cred.region}.amazonaws.com`).replace(/\/+$/, '');
    u = new URL(`${host}/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}`);
    if (cred.urls.size >= 1000) cred.urls.clear();
    cred.urls.set(k, u);
  }
  return u;
}

/**
 * The headers of a Bedrock request: JSON in, JSON or an event stream out, the channel's header
 * override, then the credential: `Authorization: Bearer` for an API key, else a SigV4 signature over
 * every header (the body's SHA-256 is sent as `x-amz-content-sha256`, hashed natively once).
 */
export async function bedrockHeaders(
  ch: { headerOverride: Record<string, string> },
  cred: BedrockCredential,
  url: Readonly<URL>,
  body: string | Buffer,
  stream: boolean,
): Promise<Record<string, string>> {
  const h: Record<string, string> = { 'content-type': 'application/json', accept: stream ? EVENT_STREAM_TYPE : 'application/json' };
  for (const [k, v] of Object.entries(ch.headerOverride)) {
    if (typeof v === 'string') h[k.toLowerCase()] = cred.apiKey ? v.replaceAll('{api_key}', cred.apiKey) : v;
  }
  if (cred.apiKey !== null) {
    h.authorization = `Bearer ${cred.apiKey}`;
    return h;
  }
  h.host = url.host;
  h['x-amz-content-sha256'] = createHash('sha256').update(body).digest('hex');
  const signed = await cred.signer!.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: {},
    headers: h,
    body,
  });
  return signed.headers;
}

/** The largest event-stream message taken (AWS caps them at 16 MiB). */
const MAX_MESSAGE = 16 * 1024 * 1024 + 1024;

const headerString = (v: { type: string; value: unknown } | undefined): string => (v && typeof v.value === 'string' ? v.value : '');

/**
 * Decodes an `application/vnd.amazon.eventstream` body incrementally into SSE-like events: an event
 * message is `{event: :event-type, data: payload}`, an exception `{event: :exception-type, data:
 * payload}`, an error message `{event: :error-code, data: {"message": :error-message}}`. Only the
 * bytes of a message not yet complete are held. A corrupt stream (bad length or CRC) becomes one error
 * event, and the rest of the body is ignored; a stream that ends inside a message, likewise.
 */
export class EventStreamFramer {
  private buf: Buffer | null = null;
  private broken = false;

  push(chunk: Buffer): SseEvent[] {
    if (this.broken || chunk.length === 0) return [];
    const data = this.buf ? Buffer.concat([this.buf, chunk]) : chunk;
    this.buf = null;
    const out: SseEvent[] = [];
    let at = 0;
    while (data.length - at >= 4) {
      const total = data.readUInt32BE(at);
      if (total < 16 || total > MAX_MESSAGE) return this.fail(out, `a message of ${total} bytes`);
      if (data.length - at < total) break;
      let msg: ReturnType<EventStreamCodec['decode']>;
      try {
        msg = awsFraming().codec.decode(data.subarray(at, at + total));
      } catch (e) {
        return this.fail(out, (e as Error).message);
      }
      at += total;
      out.push(toEvent(msg));
    }
    // A partial message is copied out of its chunk, so that the chunk itself is not kept.
    if (at < data.length) this.buf = Buffer.from(data.subarray(at));
    return out;
  }

  end(): SseEvent[] {
    if (this.broken || !this.buf) return [];
    this.buf = null;
    return this.fail([], 'the stream ended inside a message');
  }

  private fail(out: SseEvent[], why: string): SseEvent[] {
    this.broken = true;
    this.buf = null;
    const data = JSON.stringify({ message: `the upstream event stream could not be read: ${why}` });
    out.push({ raw: '', event: 'eventStreamError', data });
    return out;
  }
}

function toEvent(msg: ReturnType<EventStreamCodec['decode']>): SseEvent {
  const type = headerString(msg.headers[':message-type']);
  if (type === 'error') {
    const code = headerString(msg.headers[':error-code']) || 'error';
    return { raw: '', event: code, data: JSON.stringify({ message: headerString(msg.headers[':error-message']) || code }) };
  }
  const name =
    type === 'exception' ? headerString(msg.headers[':exception-type']) || 'exception' : headerString(msg.headers[':event-type']);
  return { raw: '', event: name, data: awsFraming().toUtf8(msg.body) };
}
