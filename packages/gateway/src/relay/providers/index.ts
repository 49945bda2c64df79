/**
 * Protocol conversion for model calls. Every wire format has one codec to and from the canonical model
 * (canonical.ts), so any inbound format reaches any upstream format through it.
 */
import * as anthropic from './anthropic/codec.ts';
import type { AnthropicEncodeOptions } from './anthropic/codec.ts';
import * as bedrock from './bedrock/codec.ts';
import type { BedrockEncodeOptions } from './bedrock/codec.ts';
import type {
  CanonicalRequest,
  CanonicalResponse,
  StreamDecoder,
  StreamEncoder,
  StreamEncoderOptions,
  Usage,
  WireFormat,
} from './canonical.ts';
import * as gemini from './gemini/codec.ts';
import * as openai from './openai/codec.ts';
import * as responses from './responses/codec.ts';

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

export const WIRE_FORMATS: readonly WireFormat[] = ['openai', 'anthropic', 'gemini', 'responses', 'bedrock'];

/** `responses` is a caller's format only: no channel speaks it (relay/providers/endpoint.ts channelFormat). */
function notUpstream(): never {
  throw new Error('the Responses format is not an upstream format');
}

/** `bedrock` is an upstream's format only: no route takes Converse bodies from callers. */
function notCaller(): never {
  throw new Error('the Bedrock format is not a caller format');
}

/** Decodes a client request; throws GatewayError(400) naming the bad field. For gemini, set `stream` from the URL afterwards. */
export function decodeRequest(format: WireFormat, body: unknown): CanonicalRequest {
  switch (format) {
    case 'openai':
      return openai.decodeRequest(body);
    case 'anthropic':
      return anthropic.decodeRequest(body);
    case 'gemini':
      return gemini.decodeRequest(body);
    case 'responses':
      return responses.decodeRequest(body);
    case 'bedrock':
      return notCaller();
  }
}

export type EncodeRequestOptions = AnthropicEncodeOptions & BedrockEncodeOptions;

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
  switch (format) {
    case 'openai':
      return openai.encodeRequest(req, upstreamModel);
    case 'anthropic':
      return anthropic.encodeRequest(req, upstreamModel, opts);
    case 'gemini':
      return gemini.encodeRequest(req);
    case 'bedrock':
      return bedrock.encodeRequest(req, upstreamModel, opts);
    case 'responses':
      return notUpstream();
  }
}

export function decodeResponse(format: WireFormat, body: unknown): CanonicalResponse {
  switch (format) {
    case 'openai':
      return openai.decodeResponse(body);
    case 'anthropic':
      return anthropic.decodeResponse(body);
    case 'gemini':
      return gemini.decodeResponse(body);
    case 'bedrock':
      return bedrock.decodeResponse(body);
    case 'responses':
      return notUpstream();
  }
}

export function encodeResponse(
  format: WireFormat,
  res: CanonicalResponse,
  clientModel: string,
  requestId: string,
): Record<string, unknown> {
  switch (format) {
    case 'openai':
      return openai.encodeResponse(res, clientModel, requestId);
    case 'anthropic':
      return anthropic.encodeResponse(res, clientModel, requestId);
    case 'gemini':
      return gemini.encodeResponse(res, clientModel, requestId);
    case 'responses':
      return responses.encodeResponse(res, clientModel, requestId);
    case 'bedrock':
      return notCaller();
  }
}

/** Decodes upstream SSE events (already split by an SSE parser) into canonical events. */
export function createStreamDecoder(format: WireFormat): StreamDecoder {
  switch (format) {
    case 'openai':
      return openai.createStreamDecoder();
    case 'anthropic':
      return anthropic.createStreamDecoder();
    case 'gemini':
      return gemini.createStreamDecoder();
    case 'bedrock':
      return bedrock.createStreamDecoder();
    case 'responses':
      return notUpstream();
  }
}

/** Encodes canonical events as ready-to-write SSE text for the client. */
export function createStreamEncoder(format: WireFormat, opts: StreamEncoderOptions): StreamEncoder {
  switch (format) {
    case 'openai':
      return openai.createStreamEncoder(opts);
    case 'anthropic':
      return anthropic.createStreamEncoder(opts);
    case 'gemini':
      return gemini.createStreamEncoder(opts);
    case 'responses':
      return responses.createStreamEncoder(opts);
    case 'bedrock':
      return notCaller();
  }
}

/** Reads only the usage of a response body (same-format pass-through). */
export function usageFromResponse(format: WireFormat, body: unknown): Usage | null {
  switch (format) {
    case 'openai':
      return openai.usageFromResponse(body);
    case 'anthropic':
      return anthropic.usageFromResponse(body);
    case 'gemini':
      return gemini.usageFromResponse(body);
    case 'bedrock':
      return bedrock.usageFromResponse(body);
    case 'responses':
      return notUpstream();
  }
}

/** Usage carried by one pass-through SSE event, if any; later events override earlier fields. */
export function usageFromStreamEvent(format: WireFormat, ev: { event?: string; data: string }): Partial<Usage> | null {
  switch (format) {
    case 'openai':
      return openai.usageFromStreamEvent(ev);
    case 'anthropic':
      return anthropic.usageFromStreamEvent(ev);
    case 'gemini':
      return gemini.usageFromStreamEvent(ev);
    case 'bedrock':
      return bedrock.usageFromStreamEvent(ev);
    case 'responses':
      return notUpstream();
  }
}

/** The vendor's message from an upstream error body of any family; falls back to the trimmed text (≤ 500 chars). */
export function upstreamErrorMessage(format: WireFormat, status: number, body: string, errorType?: string): string {
  const m = vendorMessage(format, body);
  // Bedrock names the error in a header (`x-amzn-errortype`) and only describes it in the body.
  if (format === 'bedrock' && errorType) return `${errorType}: ${m ?? `upstream returned status ${status}`}`.slice(0, 500);
  return m ?? `upstream returned status ${status}`;
}

function vendorMessage(format: WireFormat, body: string): string | undefined {
  let j: unknown;
  try {
    j = JSON.parse(body);
  } catch {
    j = undefined;
  }
  if (j !== undefined) {
    const order =
      format === 'anthropic'
        ? [anthropic.errorMessage, openai.errorMessage, gemini.errorMessage]
        : format === 'gemini'
          ? [gemini.errorMessage, openai.errorMessage, anthropic.errorMessage]
          : format === 'bedrock'
            ? [bedrock.errorMessage, openai.errorMessage, anthropic.errorMessage, gemini.errorMessage]
            : [openai.errorMessage, anthropic.errorMessage, gemini.errorMessage];
    for (const f of order) {
      const m = f(j);
      if (m && m.trim()) return m.trim().slice(0, 500);
    }
  }
  const text = body.trim();
  return text ? text.slice(0, 500) : undefined;
}
