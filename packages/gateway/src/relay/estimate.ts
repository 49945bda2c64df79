/**
 * The reserve of a model call as an upper bound of what the upstream can bill (docs/relay.md#billing).
 *
 * Input: the request's bytes. Byte-level BPE tokenizers (OpenAI, Anthropic, Gemini's SentencePiece
 * with byte fallback) never make more tokens than UTF-8 bytes, and the JSON body holds every byte of
 * text the model reads (escapes only add), so the body's length less its inline media data bounds
 * the text; each medium adds its own bound (images INPUT_TOKENS_PER_IMAGE, audio and video one token
 * per AV_CHARS_PER_TOKEN characters of base64, documents their base64 length up to a context window,
 * references a context window) and a request with tools TOOLS_OVERHEAD_TOKENS for the vendor's tool
 * prompt. Output: the max_tokens the gateway itself sends, times the choices asked for.
 *
 * That bound costs nothing to compute, and it is what a call reserves when its balance covers it. When a
 * tokens-per-minute limit counts the call, or the balance (or a budget, or a key's cap) cannot cover the
 * bound, its text part is replaced by the tokenizer's estimate (relay/input-estimate.ts, through
 * `tightenInput`, from relay/pipeline/index.ts): then the reserve is an estimate, settled exactly like any other.
 *
 * When the balance cannot cover the output asked for (or the default), the output is lowered to what
 * it covers; below MIN_OUTPUT_TOKENS the call is refused with `insufficient_quota`.
 */
import { chargesAnything, chargesOutput, type CallFacts, type ModelPrice, type PriceBook, type TokenUsage } from '../billing/prices.ts';
import type { BodyScan } from './body-scan.ts';

/** Input tokens an image can cost (gpt-4o-mini's high-detail tiles reach 48,169). */
export const INPUT_TOKENS_PER_IMAGE = 50_000;
/** Base64 characters of audio or video per input token (≥ 60 tokens a second at 6 kbit/s; vendors bill 10–32, Gemini video 263 at far higher rates). */
export const AV_CHARS_PER_TOKEN = 16;
/** The largest context window of any model: the bound of a document or a referenced file. */
export const CONTEXT_TOKENS_BOUND = 1_048_576;
/** Tokens a vendor adds to a request that declares tools (Anthropic's tool prompt is 346–530). */
export const TOOLS_OVERHEAD_TOKENS = 1024;
/** Tokens added to every request (message framing beyond the body's own bytes). */
export const BASE_OVERHEAD_TOKENS = 16;
/** The least output worth answering: the call is refused when the balance cannot cover this much. */
export const MIN_OUTPUT_TOKENS = 16;

/** An upper bound of the input tokens of a request of `bytes` bytes with the media `scan` found. */
export function inputBound(bytes: number, scan: BodyScan, hasTools: boolean): number {
  return textBound(bytes, scan, hasTools) + mediaBound(scan);
}

/**
 * The part of the input bound that its text makes (the body's bytes less its inline media, the tool
 * prompt, the framing): what the tokenizer's estimate (relay/input-estimate.ts) may replace.
 */
export function textBound(bytes: number, scan: BodyScan, hasTools: boolean): number {
  return Math.max(0, bytes - scan.inlineChars) + (hasTools ? TOOLS_OVERHEAD_TOKENS : 0) + BASE_OVERHEAD_TOKENS;
}

/** The part of the input bound that its media make (images, audio and video, documents, referenced files). */
export function mediaBound(scan: BodyScan): number {
  return (
    scan.images * INPUT_TOKENS_PER_IMAGE +
    Math.ceil(scan.avChars / AV_CHARS_PER_TOKEN) +
    Math.min(scan.fileChars, CONTEXT_TOKENS_BOUND) +
    scan.refs * CONTEXT_TOKENS_BOUND
  );
}

/** Whether a price makes a call cost something (its reserve is then never 0). */
export function isPriced(price: ModelPrice | null): boolean {
  return chargesAnything(price);
}

/** Whether output tokens cost something at this price (then the output asked for must be bounded). */
export function pricesOutput(price: ModelPrice | null): boolean {
  return chargesOutput(price);
}

/**
 * The reserve of `usage`: the price's bound for its token counts (billing's `PriceBook.bound`: every
 * rule of the price at its dearest within them), at least 1 unit for a priced call. With `cacheWrites`
 * (the request marks prompt-cache breakpoints, so the vendor may bill its whole input as a cache write)
 * the input may be priced as cache writes.
 */
export function reserveCost(
  prices: PriceBook,
  price: ModelPrice | null,
  usage: TokenUsage,
  group: string,
  cacheWrites = false,
  call?: CallFacts,
): number {
  const c = prices.bound(price, usage, group, call, cacheWrites);
  return c < 1 && isPriced(price) ? 1 : c;
}

/**
 * The most output tokens per choice, from `min` to `want`, whose reserve (with `input` tokens and
 * `n` choices) fits in `available` units; null when not even `min` fits.
 */
export function fitOutput(
  prices: PriceBook,
  price: ModelPrice | null,
  group: string,
  input: number,
  n: number,
  want: number,
  min: number,
  available: number,
  cacheWrites = false,
  call?: CallFacts,
): number | null {
  const cost = (out: number) => reserveCost(prices, price, { inputTokens: input, outputTokens: out * n }, group, cacheWrites, call);
  const lo0 = Math.min(min, want);
  if (cost(lo0) > available) return null;
  let lo = lo0;
  let hi = want;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (cost(mid) <= available) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
