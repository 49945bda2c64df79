/**
 * The one interface every vendor folder of relay/providers implements (docs/architecture.md#providers):
 * its wire format's codec (requests, responses, streams, errors, usage), its channels' endpoint (URLs,
 * auth, API versions, realtime URL) and the model list shape of its callers. The registry
 * (registry.ts) finds a provider by wire format and by channel type.
 */
import type { ChannelIssue, ChannelSettingsInput } from '../../channels/settings-check.ts';
import type { GatewayError } from '../../platform/errors.ts';
import type { GoogleTokens } from '../../platform/google-token.ts';
import type { EventFramer } from '../sse.ts';
import type {
  CanonicalRequest,
  CanonicalResponse,
  StreamDecoder,
  StreamEncoder,
  StreamEncoderOptions,
  Usage,
  WireFormat,
} from './canonical.ts';

/** The kinds of converted calls (chat and the OpenAI-only completions and embeddings). */
export type RelayKind = 'chat' | 'completions' | 'embeddings';

/** What an endpoint reads of a channel (relay/channels.ts RuntimeChannel has all of it). */
export interface UpstreamChannel {
  type: number;
  /** Without a trailing slash. */
  baseUrl: string;
  /** `baseUrl` is an OpenAI-compatible API root (a preset's): API paths are appended without adding `/v1`. */
  apiRoot: boolean;
  keys: readonly string[];
  settings: Record<string, unknown>;
}

/** Options of an upstream request body (Anthropic's on Bedrock take the caller's betas). */
export interface EncodeRequestOptions {
  /** Anthropic: the max_tokens sent when the request names none. */
  defaultMaxTokens?: number;
  /** Bedrock: the caller's `anthropic-beta` values, for Anthropic models. */
  anthropicBeta?: string[];
}

/**
 * A wire format's codec to and from the canonical model (canonical.ts). A caller's format decodes
 * requests and encodes answers; an upstream's format encodes requests and decodes answers. A side the
 * format does not have is absent (`responses` is a caller's format only, `bedrock` an upstream's).
 */
export interface Codec {
  /** Decodes a client request; throws GatewayError(400) naming the bad field. */
  decodeRequest?(body: unknown): CanonicalRequest;
  /** Encodes the client's answer. */
  encodeResponse?(res: CanonicalResponse, clientModel: string, requestId: string): Record<string, unknown>;
  /** Encodes canonical stream events as ready-to-write SSE text for the client. */
  createStreamEncoder?(opts: StreamEncoderOptions): StreamEncoder;
  /** A stream's last event when the call fails mid-stream (`quota`: the balance ran out), as this format writes an error. */
  streamError?(reason: 'quota' | 'upstream', message: string): string;
  /** The body of a gateway error in this format's envelope, for a caller of this format. */
  errorBody?(e: GatewayError, requestId?: string): unknown;

  /** Builds the upstream JSON body; appends lossy steps to `req.dropped`. */
  encodeRequest?(req: CanonicalRequest, upstreamModel: string, opts: EncodeRequestOptions): Record<string, unknown>;
  /** Decodes an upstream answer. */
  decodeResponse?(body: unknown): CanonicalResponse;
  /** Decodes upstream stream events (already split into events) into canonical events. */
  createStreamDecoder?(): StreamDecoder;
  /** Reads only the usage of an upstream answer (same-format pass-through). */
  usageFromResponse?(body: unknown): Usage | null;
  /** Usage carried by one pass-through stream event, if any; later events override earlier fields. */
  usageFromStreamEvent?(ev: { event?: string; data: string }): Partial<Usage> | null;
  /** The vendor's message in a parsed upstream error body, if it has this format's shape. */
  errorMessage?(j: unknown): string | undefined;
  /** The message of an upstream error: `errorType` is Bedrock's `x-amzn-errortype` header. */
  upstreamErrorText?(message: string | undefined, status: number, errorType?: string): string;
  /** The error type an upstream error names in its headers (Bedrock's `x-amzn-errortype`), for `upstreamErrorText`. */
  upstreamErrorType?(headers: Record<string, string | string[] | undefined>): string;
  /** Options of an upstream body taken from the caller's vendor headers (Bedrock: Anthropic betas). */
  encodeOptions?(callerHeaders: Record<string, string> | undefined): EncodeRequestOptions;
  /** The content type of an upstream stream in this format; absent: `text/event-stream`. */
  streamContentType?: string;
  /** Splits an upstream stream in this format into events; absent: SSE (relay/sse.ts). */
  streamFramer?(): EventFramer;
}

/** The output-token field of an OpenAI body. */
export type MaxOutputField = 'max_tokens' | 'max_completion_tokens';

/** How a JSON body of a wire format names its model and its output-token limit (same-format calls edit bodies in place). */
export interface BodyEdits {
  /** Names the upstream model in the body; absent where the model is in the URL (Gemini). */
  setModel?(b: Record<string, unknown>, model: string): void;
  /** The output-token limit the body asks for, as written. */
  maxOutput(b: Record<string, unknown>): unknown;
  /** Limits the output tokens to `max` (`field`: OpenAI's field, else `max_tokens`). */
  setMaxOutput(b: Record<string, unknown>, max: number, opts: { field?: MaxOutputField }): void;
  /** The output-token field a channel wants for a kind of call (OpenAI: by the channel's setting). */
  maxOutputField?(ch: Pick<UpstreamChannel, 'settings'>, kind: RelayKind): MaxOutputField;
}

/** What `Endpoint.prepare` gets: one upstream request of a channel with one key. */
export interface UpstreamRequestContext {
  channel: UpstreamChannel & { headerOverride: Record<string, string> };
  key: string;
  kind: RelayKind;
  /** The upstream model. */
  model: string;
  stream: boolean;
  /** The JSON body as the format encodes it. */
  body: string | Buffer;
  /** A Gemini model action (`embedContent` …). */
  geminiAction?: string;
  /** The caller's headers forwarded to this upstream. */
  callerHeaders?: Record<string, string>;
  /** Exchanges a service-account key for an access token (Vertex). */
  google?: GoogleTokens;
  /** The channel-generic URL and headers of the request, with `credential` in place of the key. */
  standard(credential: string): { url: Readonly<URL>; headers: Record<string, string> };
}

/** An upstream request ready to send. */
export interface UpstreamRequest {
  url: Readonly<URL>;
  headers: Record<string, string>;
  body: string | Buffer;
  /** The secrets the request carries: an upstream error never repeats them. */
  secrets: readonly string[];
}

/** Thrown by `Endpoint.prepare` when the channel's key cannot be used at all; `reason` says why. */
export class UnusableKeyError extends Error {
  constructor(readonly reason: Error) {
    super(reason.message);
  }
}

/** Where a channel's calls go and how they authenticate. */
export interface Endpoint {
  /** The API root of a channel with no base URL. */
  defaultBaseUrl?: string;
  /** The wire format the channel speaks for an (upstream) model: Vertex picks Anthropic's or Google's by model. */
  format(model: string): WireFormat;
  /** Whether the channel can serve a kind of converted call for a caller speaking `inbound`. */
  supportsKind(kind: RelayKind, inbound: WireFormat): boolean;
  /** The upstream URL of a converted call; `action` names a Gemini model action (`embedContent` …). */
  url(ch: UpstreamChannel, kind: RelayKind, model: string, stream: boolean, action?: string): URL;
  /** The channel's auth headers for a key (a Vertex key is first exchanged for an access token). */
  authHeaders(key: string): Record<string, string>;
  /**
   * The URL, headers and body of an upstream request when they take more than `url` and `authHeaders`
   * (Bedrock signs each request with its key; Vertex exchanges the key for an access token, and its
   * Anthropic bodies name no model and carry the API version). Absent: `ctx.standard(key)`.
   */
  prepare?(ctx: UpstreamRequestContext): Promise<UpstreamRequest>;
  /** The upstream refused the credential (401) of a request `prepare` made with `key` (Vertex: the token is exchanged again). */
  onAuthFailure?(key: string, google: GoogleTokens | undefined): void;
  /** The caller's headers that mean something to this upstream (forwarded on a call in its format). */
  callerHeaders?: readonly string[];
  /** The realtime WebSocket URL, for channels that have one. */
  realtimeUrl?(ch: UpstreamChannel, model: string): string;
  /** OpenAI-format pass-through calls (images, audio, Responses …): whether the channel serves `kind`. */
  servesPass?(ch: UpstreamChannel, kind: string): boolean;
  /** The URL of a pass-through call: `path` is OpenAI's (`images/generations` …), `responses` a Responses create. */
  passUrl?(ch: UpstreamChannel, path: string, model: string, responses: boolean): URL;
  /** The URL of a read of a stored response (`suffix` '' | '/cancel' | '/input_items'). */
  responseUrl?(ch: UpstreamChannel, id: string, suffix: string, query: string): URL;
}

/** The model list and model detail as this format's callers read them. */
export interface ModelListShape {
  model(id: string): unknown;
  list(models: string[], query: Record<string, unknown>): unknown;
}

/** One vendor folder of relay/providers. */
export interface Provider {
  /** The folder's name. */
  name: string;
  /** The vendor's or the API's name as people write it (`OpenAI`, `Vertex AI`, `Responses` …). */
  title: string;
  /** The wire format the folder's codec speaks; absent for vendors that speak another's (Azure, Vertex). */
  format?: WireFormat;
  codec?: Codec;
  /** How same-format calls edit a body of the format. */
  body?: BodyEdits;
  /** The channel types (channels/types.ts) whose channels this folder's endpoint serves. */
  channelTypes: readonly number[];
  endpoint?: Endpoint;
  models?: ModelListShape;
  /**
   * Checks the settings of a channel of this folder's types (`channel-settings.ts` of the folder, or
   * the rules every model-call channel shares, channels/settings-check.ts): administration calls it on
   * every create and update, after merging an update onto the stored row, and refuses the channel with
   * the first issue (its code, and its field prefixed by where the channel was given).
   */
  checkChannel?: ChannelCheck;
}

/** A provider's check of its channels' settings: one issue per field at fault, none when the channel is fine. */
export type ChannelCheck = (c: ChannelSettingsInput) => ChannelIssue[];
