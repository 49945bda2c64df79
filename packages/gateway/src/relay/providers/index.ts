/**
 * Protocol conversion for model calls. Every wire format has one codec to and from the canonical model
 * (canonical.ts), so any inbound format reaches any upstream format through it. Each codec lives in its
 * provider's folder and is found through the registry (registry.ts).
 */
import type { GatewayError } from '../../platform/errors.ts';
import type {
  CanonicalRequest,
  CanonicalResponse,
  StreamDecoder,
  StreamEncoder,
  StreamEncoderOptions,
  Usage,
  WireFormat,
} from './canonical.ts';
import type { BodyEdits, Codec, EncodeRequestOptions } from './provider.ts';
import { SseFramer, type EventFramer } from '../sse.ts';
import { codecOf, COMMON_ERROR_FORMATS, formatProvider } from './registry.ts';

export type {
  AssistantMessage,
  AudioPart,
  CanonicalChoice,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalStreamEvent,
  ContentPart,
  FilePart,
  FinishReason,
  ImagePart,
  ImageSource,
  Message,
  Reasoning,
  ResponseFormat,
  StreamDecoder,
  StreamEncoder,
  StreamEncoderOptions,
  SystemMessage,
  TextPart,
  ThinkingPart,
  Tool,
  ToolCall,
  ToolChoice,
  ToolMessage,
  Usage,
  UserMessage,
  WireFormat,
} from './canonical.ts';
export { emptyUsage } from './canonical.ts';
export { DEFAULT_ANTHROPIC_MAX_TOKENS } from './anthropic/codec.ts';

export { WIRE_FORMATS } from './registry.ts';
export type { BodyEdits, EncodeRequestOptions, MaxOutputField } from './provider.ts';
export { UnusableKeyError } from './provider.ts';

const CALLER_SIDE = new Set<keyof Codec>(['decodeRequest', 'encodeResponse', 'createStreamEncoder']);

/** A side of a format's codec; a side it does not have throws (`responses` is a caller's format only, `bedrock` an upstream's). */
function side<K extends keyof Codec>(format: WireFormat, k: K): NonNullable<Codec[K]> {
  const f = codecOf(format)[k];
  if (f) return f as NonNullable<Codec[K]>;
  throw new Error(`the ${formatProvider(format).title} format is not ${CALLER_SIDE.has(k) ? 'a caller' : 'an upstream'} format`);
}

/** Decodes a client request; throws GatewayError(400) naming the bad field. For gemini, set `stream` from the URL afterwards. */
export function decodeRequest(format: WireFormat, body: unknown): CanonicalRequest {
  return side(format, 'decodeRequest')(body);
}

/**
 * Builds the upstream JSON body. Appends lossy steps to `req.dropped`. Gemini bodies carry no model and no
 * stream flag: the relay picks `:generateContent` or `:streamGenerateContent?alt=sse` from `req.stream`.
 * OpenAI streams always ask for `stream_options.include_usage` so usage arrives at the end.
 */
export function encodeRequest(
  format: WireFormat,
  req: CanonicalRequest,
  upstreamModel: string,
  opts: EncodeRequestOptions = {},
): Record<string, unknown> {
  return side(format, 'encodeRequest')(req, upstreamModel, opts);
}

export function decodeResponse(format: WireFormat, body: unknown): CanonicalResponse {
  return side(format, 'decodeResponse')(body);
}

export function encodeResponse(
  format: WireFormat,
  res: CanonicalResponse,
  clientModel: string,
  requestId: string,
): Record<string, unknown> {
  return side(format, 'encodeResponse')(res, clientModel, requestId);
}

/** Decodes upstream SSE events (already split by an SSE parser) into canonical events. */
/** Options of an upstream body in `format` taken from the caller's vendor headers. */
export const encodeOptions = (format: WireFormat, callerHeaders: Record<string, string> | undefined): EncodeRequestOptions =>
  codecOf(format).encodeOptions?.(callerHeaders) ?? {};

/** The error type an upstream error in `format` names in its headers (Bedrock's), else undefined. */
export const upstreamErrorType = (format: WireFormat, headers: Record<string, string | string[] | undefined>): string | undefined =>
  codecOf(format).upstreamErrorType?.(headers);

/** How a same-format call edits a body of `format` (its model and its output-token limit). */
export function bodyEdits(format: WireFormat): BodyEdits {
  const b = formatProvider(format).body;
  if (!b) throw new Error(`the ${format} format has no body edits`);
  return b;
}

/** Whether an upstream answer of `contentType` is a stream in `format`. */
export const isStreamType = (format: WireFormat, contentType: string): boolean =>
  contentType.includes(codecOf(format).streamContentType ?? 'text/event-stream');

/** Splits an upstream stream in `format` into events. */
export const streamFramer = (format: WireFormat): EventFramer => codecOf(format).streamFramer?.() ?? new SseFramer();

export function createStreamDecoder(format: WireFormat): StreamDecoder {
  return side(format, 'createStreamDecoder')();
}

/** Encodes canonical events as ready-to-write SSE text for the client. */
export function createStreamEncoder(format: WireFormat, opts: StreamEncoderOptions): StreamEncoder {
  return side(format, 'createStreamEncoder')(opts);
}

/** Reads only the usage of a response body (same-format pass-through). */
export function usageFromResponse(format: WireFormat, body: unknown): Usage | null {
  return side(format, 'usageFromResponse')(body);
}

/** Usage carried by one pass-through SSE event, if any; later events override earlier fields. */
export function usageFromStreamEvent(format: WireFormat, ev: { event?: string; data: string }): Partial<Usage> | null {
  return side(format, 'usageFromStreamEvent')(ev);
}

/** The body of a gateway error in the envelope of a caller's format (OpenAI's for a format without its own). */
export function errorBodyFor(format: WireFormat, e: GatewayError, requestId?: string): unknown {
  return (codecOf(format).errorBody ?? codecOf('openai').errorBody!)(e, requestId);
}

/** The end of a stream the balance cannot pay for any further, as the caller's format writes an error. */
export function quotaStreamEvent(format: WireFormat): string {
  const message = 'quota exhausted: the balance cannot cover more output for this request';
  return (codecOf(format).streamError ?? codecOf('openai').streamError!)('quota', message);
}

/** A mid-stream failure as the caller's format writes it. */
export function streamErrorEvent(format: WireFormat, message: string): string {
  return (codecOf(format).streamError ?? codecOf('openai').streamError!)('upstream', message);
}

/** The vendor's message from an upstream error body of any family; falls back to the trimmed text (≤ 500 chars). */
export function upstreamErrorMessage(format: WireFormat, status: number, body: string, errorType?: string): string {
  const m = vendorMessage(format, body);
  const text = codecOf(format).upstreamErrorText;
  return text ? text(m, status, errorType) : (m ?? `upstream returned status ${status}`);
}

/** Reads the body with the format's own error shape first, then the common ones. */
function vendorMessage(format: WireFormat, body: string): string | undefined {
  let j: unknown;
  try {
    j = JSON.parse(body);
  } catch {
    j = undefined;
  }
  if (j !== undefined) {
    const order = [format, ...COMMON_ERROR_FORMATS.filter((f) => f !== format)];
    for (const f of order) {
      const m = codecOf(f).errorMessage?.(j);
      if (m && m.trim()) return m.trim().slice(0, 500);
    }
  }
  const text = body.trim();
  return text ? text.slice(0, 500) : undefined;
}
