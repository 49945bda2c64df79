/**
 * The chat, completions and embeddings call as the relay receives it (`RelayCall`) and as the call
 * pipeline runs it (`Ctx`): what relay.ts and its stream relay (chat-stream.ts) share.
 */
import type { ModelPrice } from '../billing/prices.ts';
import type { ChainStep } from './fallback.ts';
import type { PipelineCall } from './pipeline/index.ts';
import type { BodyScan } from './body-scan.ts';
import type { RelayKind } from './providers/endpoint.ts';
import type { ClientConn, RelayPrincipal } from './call.ts';
import type { CanonicalRequest, WireFormat } from './providers/index.ts';
import type { GeminiEmbedAction } from './providers/gemini/embed.ts';
import type { VerdictRecord } from './guardrails.ts';
import type { ResolvedBinding } from './guardrail-types.ts';

export interface RelayCall {
  kind: RelayKind;
  principal: RelayPrincipal;
  body: Record<string, unknown>;
  /** The request body as received (sent unchanged when nothing needs to change). */
  raw: Buffer;
  endpoint: string;
  requestId: string;
  /** process.hrtime.bigint() when the request arrived. */
  startedAt: bigint;
  client: ClientConn;
  /** Model named by the URL (legacy /v1/engines/{model}/embeddings, Gemini model actions). */
  modelFromPath?: string;
  /** The wire format the caller speaks (default `openai`). */
  inbound?: WireFormat;
  /** Streaming chosen by the URL (Gemini `:streamGenerateContent`); otherwise `body.stream === true`. */
  stream?: boolean;
  /** Gemini stream without `alt=sse`: the answer is one JSON array of response chunks. */
  jsonArrayStream?: boolean;
  /** Gemini embedding action (kind `embeddings`, inbound `gemini`). */
  geminiAction?: GeminiEmbedAction;
  /** The body's media and depth, when the route's parser already walked it (relay/body-scan.ts). */
  scan?: BodyScan;
  /** The caller's vendor headers (`anthropic-version`, `anthropic-beta`; OpenAI's session ids and betas), sent to upstreams of the caller's vendor. */
  vendorHeaders?: Record<string, string>;
  /** The request's headers (read by a price's expression, never its credentials: billing/call-facts.ts). */
  headers?: Record<string, string | string[] | undefined>;
}

/** One chat, completions or embeddings call as the pipeline runs it. */
export interface Ctx extends PipelineCall {
  call: RelayCall;
  /** The caller's wire format. */
  cf: WireFormat;
  canonical: CanonicalRequest | null;
  /** An OpenAI body decoded to name its conversation (relay/affinity.ts), used when it is converted. */
  decoded?: CanonicalRequest;
  /** The converted request of the latest attempt (null when the body went in the caller's format): what it left out, and its forced answer tool. */
  sent: Pick<CanonicalRequest, 'dropped' | 'outputTool'> | null;
  promptText: string | null;
  /** Guardrail verdicts on the call (its log row's `guardrails`), and the bindings that check its output. */
  guardrails: VerdictRecord[];
  outGuards: readonly ResolvedBinding[];
  /** The fallbacks the call took (relay/fallback.ts), and the prices its reserve must cover (null: its model's alone). */
  chain: ChainStep[];
  chainPrices: Array<ModelPrice | null> | null;
  /** Only channels of the caller's format may serve the body. */
  sameFormatOnly: boolean;
}
