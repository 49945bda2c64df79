/**
 * The chat family's request work (relay.ts runs the calls): the check and decoding of the caller's
 * request, the usage its reserve covers, the head that names its conversation, its body for a channel
 * (as received, edited, or converted), the body of an upstream 4xx for the caller, and the free count of
 * a prompt's tokens.
 */
import type { KeyPrincipal } from '../accounts/types.ts';
import { checkModelAccess } from '../accounts/keys.ts';
import type { TokenUsage } from '../billing/prices.ts';
import { countTokens } from '../billing/tokens.ts';
import { echo, GatewayError, fail, foreignError } from '../platform/errors.ts';
import { isObj } from '../platform/validate.ts';
import type { RuntimeChannel } from './channels.ts';
import type { AttemptClientError } from './attempts.ts';
import type { RelayDeps, RelayPrincipal } from './call.ts';
import { scanBody } from './body-scan.ts';
import { inputBound, pricesOutput, textBound } from './estimate.ts';
import { choiceCount, tokenCount } from './providers/canonical.ts';
import { applyParamOverride, hasOverride } from './providers/endpoint.ts';
import {
  bodyEdits,
  decodeRequest,
  encodeOptions,
  encodeRequest,
  errorBodyFor,
  type CanonicalRequest,
  type WireFormat,
} from './providers/index.ts';
import { decodeRequest as anthropicDecode } from './providers/anthropic/codec.ts';
import { includeUsageAsked, sendsMax } from './providers/openai/body.ts';
import { conversationHead, withCacheBreakpoints } from './providers/cache-breakpoints.ts';
import { checkGeminiEmbed, geminiEmbedBody, isGeminiEmbed } from './embeddings.ts';
import { canonicalImageCount, canonicalPromptText, injectField } from './chat-stream.ts';
import type { Ctx, RelayCall } from './chat-call.ts';

/**
 * Longest prompt text the count-tokens endpoints count (more than any model's context). Counting runs
 * off the event loop (billing/tokens.ts); the bound keeps one request from holding a counter for long.
 */
export const COUNT_MAX_CHARS = 8 * 1024 * 1024;
/** A body shorter than this holds no prompt long enough to be cached: its conversation is not named by its head. */
const HEAD_MIN_BYTES = 4096;
/** What marks a body that places prompt-cache breakpoints, as bytes (searched in the body as received). */
const CACHE_CONTROL = Buffer.from('"cache_control"');

/**
 * Checks the caller's request and decodes it when it is not OpenAI's (the prompt of the estimate, and what
 * a conversion starts from); `onlySameFormat` is set when the body holds what only its own vendor
 * understands: only channels of the caller's format may serve it.
 */
export function readChatRequest(
  call: RelayCall,
  cf: WireFormat,
  model: string,
): { canonical: CanonicalRequest | null; onlySameFormat: GatewayError | null } {
  const { body } = call;
  let canonical: CanonicalRequest | null = null;
  /** Set when the body holds what only its own vendor understands: only channels of the caller's format may serve it. */
  let onlySameFormat: GatewayError | null = null;
  if (cf === 'openai') {
    if (call.kind === 'chat' && !Array.isArray(body.messages)) throw fail('invalid_request', '"messages" is required and must be an array');
    if (call.kind === 'completions' && body.prompt === undefined) throw fail('invalid_request', '"prompt" is required');
    if (call.kind === 'embeddings' && body.input === undefined) throw fail('invalid_request', '"input" is required');
  } else if (call.kind === 'chat') {
    // Other formats are decoded up front: it validates the request and gives the prompt for the estimate.
    try {
      canonical = decodeRequest(cf, body);
    } catch (e) {
      // A role the gateway does not know (a new vendor beta): an Anthropic upstream gets the body as
      // sent; a conversion would lose it, so other channels refuse it with this error.
      if (cf !== 'anthropic' || !(e instanceof GatewayError) || !/\.role/.test(e.message)) throw e;
      canonical = anthropicDecode(body, { lenient: true });
      onlySameFormat = e;
    }
    canonical.model = model;
    if (call.stream !== undefined) canonical.stream = call.stream;
  } else if (isGeminiEmbed(call.kind, cf)) checkGeminiEmbed(call);
  return { canonical, onlySameFormat };
}

/**
 * The usage the reserve covers: an upper bound of the input from the body's bytes and media (its text
 * part, `textBound`, replaced by the tokenizer's estimate where that matters: tightenInput), and
 * the output the gateway will ask for (the caller's max_tokens, at most the model's limit, or the
 * default) times the choices. Sets ctx.inputBound, ctx.n and ctx.maxOut.
 */
export function estimateChatUsage(ctx: Ctx, policy: RelayDeps['policy']): TokenUsage {
  const { call } = ctx;
  const b = call.body;
  const c = ctx.cf !== 'openai' ? ctx.canonical : null;
  let asked: number | undefined;
  if (c) {
    asked = c.maxTokens;
    ctx.n = c.n ?? 1;
  } else if (call.kind !== 'embeddings') {
    // Checked here for OpenAI bodies (sent as received); other formats were checked by their decoder.
    const mc = tokenCount(b.max_completion_tokens, 'max_completion_tokens');
    const mt = tokenCount(b.max_tokens, 'max_tokens');
    asked = mc ?? mt;
    ctx.n = choiceCount(b.n, 'n') ?? 1;
  }
  if (ctx.price?.perRequest !== null && ctx.price?.perRequest !== undefined) return { inputTokens: 0, outputTokens: 0 };
  const scan = call.scan ?? scanBody(b);
  const tools = b.tools !== undefined || b.functions !== undefined;
  ctx.inputBound = inputBound(call.raw.length, scan, tools);
  ctx.textBound = textBound(call.raw.length, scan, tools);
  ctx.cacheWrites = call.raw.includes(CACHE_CONTROL);
  if (call.kind === 'embeddings' || !pricesOutput(ctx.price)) return { inputTokens: ctx.inputBound, outputTokens: 0 };
  const limit = policy.modelMaxOutput(ctx.model);
  let out = asked ?? policy.defaultMaxOutput(ctx.model);
  if (limit !== undefined && out > limit) out = limit;
  ctx.maxOut = out;
  return { inputTokens: ctx.inputBound, outputTokens: out * ctx.n };
}

/**
 * The body of the call for a channel of format `fmt`: in the caller's format as received unless the model, the
 * output limit or an override changes it (an OpenAI body's missing max_tokens written into its bytes),
 * else converted through the canonical request (with prompt-cache breakpoints where the channel places them).
 */
export function chatBody(ctx: Ctx, ch: RuntimeChannel, fmt: WireFormat, upModel: string): string | Buffer {
  const { call, cf } = ctx;
  ctx.sent = null;
  if (isGeminiEmbed(call.kind, cf)) return geminiEmbedBody(ctx, ch, fmt, upModel);
  const max = ctx.maxOut;
  if (fmt === cf) {
    const edits = bodyEdits(fmt);
    if (fmt === 'openai') {
      const addUsage = ctx.stream && !includeUsageAsked(call.body);
      const modelChanges = call.modelFromPath !== undefined || upModel !== call.body.model;
      const maxChanges = max !== null && !sendsMax(call.body, max);
      if (!addUsage && !modelChanges && !hasOverride(ch)) {
        if (!maxChanges) return call.raw;
        // Only max_tokens is missing: written into the bytes as received (no parse, no stringify).
        if (call.body.max_tokens === undefined && call.body.max_completion_tokens === undefined) {
          return injectField(call.raw, edits.maxOutputField?.(ch, call.kind) ?? 'max_tokens', max);
        }
      }
      const b: Record<string, unknown> = { ...call.body, model: upModel };
      if (addUsage) b.stream_options = { ...(isObj(b.stream_options) ? b.stream_options : {}), include_usage: true };
      applyParamOverride(b, ch.paramOverride);
      if (max !== null) edits.setMaxOutput(b, max, { field: edits.maxOutputField?.(ch, call.kind) });
      return JSON.stringify(b);
    }
    // Anthropic → Anthropic and Gemini → Gemini: as received unless the model (when the body names it), the output limit or an override changes it.
    const modelChanges = edits.setModel !== undefined && upModel !== call.body.model;
    const maxChanges = max !== null && edits.maxOutput(call.body) !== max;
    if (!modelChanges && !maxChanges && !hasOverride(ch)) return call.raw;
    const b: Record<string, unknown> = { ...call.body };
    edits.setModel?.(b, upModel);
    applyParamOverride(b, ch.paramOverride);
    if (max !== null) edits.setMaxOutput(b, max, {});
    return JSON.stringify(b);
  }
  ctx.canonical ??= ctx.decoded ?? decodeRequest(cf, call.body);
  const req = withCacheBreakpoints(
    { ...ctx.canonical, dropped: [...ctx.canonical.dropped] },
    { format: fmt, model: upModel, settings: ch.settings },
  );
  const edits = bodyEdits(fmt);
  if (max !== null) {
    req.maxTokens = max;
    // The output-token field the channel wants (OpenAI's setting), when the caller's request named none.
    if (!req.openaiMaxTokensField && edits.maxOutputField) req.openaiMaxTokensField = edits.maxOutputField(ch, call.kind);
  }
  // Options the caller's vendor headers give the body (the Anthropic betas of Anthropic models on Bedrock).
  const b = encodeRequest(fmt, req, upModel, encodeOptions(fmt, call.vendorHeaders));
  ctx.sent = req;
  applyParamOverride(b, ch.paramOverride);
  if (max !== null) edits.setMaxOutput(b, max, { field: req.openaiMaxTokensField });
  return JSON.stringify(b);
}

/** The body of an upstream 4xx the caller is to see: as it came when the upstream speaks the caller's format. */
export function clientErrorBody(
  ctx: Ctx,
  fmt: WireFormat,
  status: number,
  text: string,
  contentType: string,
  message: string,
): AttemptClientError {
  if (fmt === ctx.cf) return { kind: 'client_error', status, body: text, contentType, message };
  const body =
    ctx.cf === 'openai' || ctx.cf === 'responses' || ctx.cf === 'bedrock'
      ? { error: { message, type: 'invalid_request_error', param: null, code: 'upstream_client_error' } }
      : errorBodyFor(ctx.cf, foreignError(status, 'upstream_client_error', message, 'invalid_request_error'));
  return { kind: 'client_error', status, contentType: 'application/json', message, body: JSON.stringify(body) };
}

/**
 * A chat call's conversation named by its head (relay/affinity.ts) when its prompt is long enough to
 * be cached: the body is decoded for it only then.
 */
export function chatConversationHead(ctx: Ctx): string | null {
  if (ctx.call.kind !== 'chat' || ctx.call.raw.length < HEAD_MIN_BYTES) return null;
  try {
    // Kept for a conversion, but not as `canonical`: a call in the caller's own format stays as received.
    ctx.decoded = ctx.canonical ?? decodeRequest(ctx.cf, ctx.call.body);
  } catch {
    return null;
  }
  return conversationHead(ctx.decoded);
}

/**
 * Counts the prompt tokens of a request in `format` with the local tokenizer (o200k_base), for
 * `/v1/messages/count_tokens` and Gemini `:countTokens`. No upstream call and no charge; the model
 * must be one the caller may use. Images count 1000 tokens each (as in the estimate). Long prompts are
 * counted by the tokenizer's worker threads; over COUNT_MAX_CHARS characters the answer is 413.
 */
export async function countPromptTokens(
  d: RelayDeps,
  listModels: (p: RelayPrincipal) => string[],
  p: RelayPrincipal,
  format: WireFormat,
  model: string,
  body: Record<string, unknown>,
): Promise<number> {
  if (p.models) checkModelAccess(p as KeyPrincipal, model);
  if (!listModels(p).includes(model)) throw fail('model_not_found', `model "${echo(model)}" is not available in group "${p.group}"`);
  await assertSomeBalance(d, p);
  const req = decodeRequest(format, body);
  const text = canonicalPromptText(req);
  if (text.length > COUNT_MAX_CHARS) {
    throw fail('request_too_large', `the prompt is too long to count: ${text.length} characters, the limit is ${COUNT_MAX_CHARS}`);
  }
  return (await countTokens(text)) + canonicalImageCount(req) * 1000;
}

/**
 * Free work (token counting) is for callers who could pay for a call: 429 `insufficient_quota` when
 * the user's balance, or a capped key's remaining quota, is used up.
 */
async function assertSomeBalance(d: RelayDeps, p: RelayPrincipal): Promise<void> {
  if ((await d.ledger.available(d.budgets.payer(p))) <= 0)
    throw fail('insufficient_quota', 'quota exhausted: the balance is too low for this request');
}
