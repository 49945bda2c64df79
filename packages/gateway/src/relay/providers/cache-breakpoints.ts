/**
 * Prompt-cache breakpoints on converted calls to Claude. A caller in the OpenAI, Responses or Gemini
 * format cannot mark `cache_control` breakpoints, so a Claude model reached through an Anthropic,
 * Vertex AI (Anthropic format) or Bedrock channel would re-read its whole prompt at the full input
 * price on every turn. With the channel's `settings.prompt_cache` at `auto` (the default) the canonical
 * request gets breakpoints before it is encoded (Bedrock writes each as a `cachePoint`):
 *
 * - on the newest message: the whole prompt, which the next turn repeats, is written to the cache;
 * - on the message the previous turn ended with (the one before the last assistant message): the
 *   entry the previous call wrote is read back exactly, however many blocks the answer added;
 * - on the last assistant message, the last before the newest user turn: the model's answers come back
 *   as they were, so the next turn reads this entry (within its 20-block look-back) even when the
 *   client rewrites its newest message once it is answered;
 * - on the end of the system prompt (or the last tool without one): tools and system, which outlive
 *   a rewritten conversation.
 *
 * Each is placed only where the prefix it closes reaches the model's minimum cacheable length
 * (estimated at four characters a token), and with those the request already has at most four in all
 * (Anthropic's limit). The TTL is five minutes, or one hour with `settings.prompt_cache_ttl: 1h`.
 * A caller of the Anthropic format marks its own breakpoints: its request is never changed here.
 * The canonical request is not changed in place: a copy with the marked messages and tools is returned.
 */
import type { CanonicalRequest, ContentPart, Message, Tool, WireFormat } from './canonical.ts';
import { isBedrockAnthropic } from './bedrock/codec.ts';
import { channelFormat, upstreamModel } from './endpoint.ts';
import type { UpstreamChannel } from './provider.ts';

/** Anthropic's limit of blocks with `cache_control` in one request. */
export const MAX_BREAKPOINTS = 4;

/** Values of `settings.prompt_cache` and `settings.prompt_cache_ttl` on a channel. */
export const PROMPT_CACHE_MODES = ['auto', 'off'] as const;
export const PROMPT_CACHE_TTLS = ['5m', '1h'] as const;

/** The minimum cacheable prompt of a Claude model, by its name (first match); DEFAULT_MIN_CACHEABLE otherwise. */
const MIN_CACHEABLE: ReadonlyArray<readonly [RegExp, number]> = [
  [/haiku-4-5|opus-4-[56]/i, 4096],
  [/haiku/i, 2048],
];
export const DEFAULT_MIN_CACHEABLE = 1024;

/** The fewest prompt tokens a cache entry of `model` holds (vendor model names of every channel type). */
export function minCacheableTokens(model: string): number {
  for (const [re, n] of MIN_CACHEABLE) if (re.test(model)) return n;
  return DEFAULT_MIN_CACHEABLE;
}

/** What the placement reads of the channel serving the call. */
export interface CacheTarget {
  /** The upstream's wire format (Vertex's Claude models speak `anthropic`). */
  format: WireFormat;
  /** The upstream model. */
  model: string;
  settings: Record<string, unknown>;
}

/** Whether calls of a caller speaking `inbound` get breakpoints on this target (a Claude model, caching not off). */
export function placesBreakpoints(inbound: WireFormat, t: CacheTarget): boolean {
  if (inbound === 'anthropic' || t.settings.prompt_cache === 'off') return false;
  return t.format === 'anthropic' || (t.format === 'bedrock' && isBedrockAnthropic(t.model));
}

/** Whether a call of `model` by a caller speaking `inbound` gets breakpoints on channel `ch` (its reserve then covers cache writes). */
export function channelPlacesBreakpoints(
  inbound: WireFormat,
  ch: Pick<UpstreamChannel, 'type' | 'settings'> & { modelMapping: Record<string, string> },
  model: string,
): boolean {
  const up = upstreamModel(ch, model);
  return placesBreakpoints(inbound, { format: channelFormat(ch.type, up), model: up, settings: ch.settings });
}

/** A rough token count: four characters a token, a thousand an image or file. */
function partTokens(p: ContentPart): number {
  switch (p.type) {
    case 'text':
    case 'thinking':
      return Math.ceil(p.text.length / 4);
    default:
      return 1000;
  }
}

function messageTokens(m: Message): number {
  let n = 4;
  for (const p of m.parts) n += partTokens(p);
  if (m.role === 'assistant') for (const c of m.toolCalls) n += Math.ceil((c.name.length + c.arguments.length) / 4);
  return n;
}

function toolTokens(t: Tool): number {
  return Math.ceil((t.name.length + (t.description?.length ?? 0) + JSON.stringify(t.parameters ?? {}).length) / 4);
}

/** The breakpoints the request already has. */
export function countBreakpoints(req: CanonicalRequest): number {
  let n = 0;
  for (const t of req.tools ?? []) if (t.cacheControl) n++;
  for (const m of req.messages) {
    for (const p of m.parts) if ('cacheControl' in p && p.cacheControl) n++;
    if (m.role === 'assistant') for (const c of m.toolCalls) if (c.cacheControl) n++;
    if (m.role === 'tool' && m.cacheControl) n++;
  }
  return n;
}

/** The index of the last part a breakpoint can sit on (what the encoders send with `cache_control`), or -1. */
function markablePart(parts: ContentPart[], textOnly: boolean): number {
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i];
    if (p.type === 'text' ? p.text !== '' : !textOnly && (p.type === 'image' || p.type === 'file')) return i;
  }
  return -1;
}

/** A copy of `m` with a breakpoint on its last block; null when no block of it can carry one. */
function marked(m: Message, cc: Record<string, unknown>): Message | null {
  if (m.role === 'tool') return { ...m, cacheControl: cc };
  if (m.role === 'assistant' && m.toolCalls.length) {
    const calls = m.toolCalls.slice();
    calls[calls.length - 1] = { ...calls[calls.length - 1], cacheControl: cc };
    return { ...m, toolCalls: calls };
  }
  const i = markablePart(m.parts, m.role === 'system');
  if (i < 0) return null;
  const parts = m.parts.slice();
  parts[i] = { ...parts[i], cacheControl: cc } as ContentPart;
  return { ...m, parts };
}

/**
 * The request with breakpoints placed (see the file's comment), or `req` itself when none is placed:
 * a caller of the Anthropic format, caching off, a model that is not Claude, no room left, or a
 * prompt below the minimum.
 */
export function withCacheBreakpoints(req: CanonicalRequest, t: CacheTarget): CanonicalRequest {
  if (!placesBreakpoints(req.sourceFormat, t)) return req;
  let room = MAX_BREAKPOINTS - countBreakpoints(req);
  if (room <= 0) return req;
  const min = minCacheableTokens(t.model);
  const cc: Record<string, unknown> = t.settings.prompt_cache_ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
  const msgs = req.messages;
  let head = 0;
  for (const tool of req.tools ?? []) head += toolTokens(tool);
  // Tools come first, then the whole system prompt (every system message joins it), then the conversation.
  let systemEnd = head;
  let lastSystem = -1;
  msgs.forEach((m, i) => {
    if (m.role !== 'system') return;
    systemEnd += messageTokens(m);
    lastSystem = i;
  });
  /** Prompt tokens up to the end of message i of the conversation. */
  const upTo: number[] = [];
  let total = systemEnd;
  for (const m of msgs) {
    if (m.role !== 'system') total += messageTokens(m);
    upTo.push(total);
  }
  let lastConv = -1;
  let lastAssistant = -1;
  for (let i = msgs.length - 1; i >= 0 && (lastConv < 0 || lastAssistant < 0); i--) {
    if (msgs[i].role === 'system') continue;
    if (lastConv < 0) lastConv = i;
    if (msgs[i].role === 'assistant' && lastAssistant < 0) lastAssistant = i;
  }
  let prevEnd = -1;
  for (let i = lastAssistant - 1; i >= 0; i--) {
    if (msgs[i].role !== 'system') {
      prevEnd = i;
      break;
    }
  }
  // In order of worth when room is short: the newest message, the previous turn's end, the last answer, tools and system.
  const targets: number[] = [];
  for (const i of [lastConv, prevEnd, lastAssistant]) if (i >= 0 && !targets.includes(i) && upTo[i] >= min) targets.push(i);
  if (lastSystem >= 0 && systemEnd >= min) targets.push(lastSystem);
  let out: Message[] | null = null;
  for (const i of targets) {
    if (room <= 0) break;
    const m = marked(msgs[i], cc);
    if (!m) continue;
    out ??= msgs.slice();
    out[i] = m;
    room--;
  }
  let tools = req.tools;
  const tl = tools?.length ?? 0;
  // Without a system prompt to close them, the tools get their own breakpoint.
  if (room > 0 && lastSystem < 0 && tl && head >= min && !tools![tl - 1].native) {
    tools = tools!.slice();
    tools[tl - 1] = { ...tools[tl - 1], cacheControl: cc };
  }
  if (!out && tools === req.tools) return req;
  return { ...req, messages: out ?? msgs, ...(tools ? { tools } : {}) };
}

/**
 * What names a conversation whose caller names none (relay/affinity.ts): its tools, system prompt and
 * first user message, which every turn repeats. Null for a prompt too short to be cached anywhere,
 * whose calls are spread over channels and keys as usual.
 */
export function conversationHead(req: CanonicalRequest): string | null {
  let tokens = 0;
  for (const tool of req.tools ?? []) tokens += toolTokens(tool);
  for (const m of req.messages) tokens += messageTokens(m);
  if (tokens < DEFAULT_MIN_CACHEABLE) return null;
  const firstUser = req.messages.findIndex((m) => m.role === 'user');
  const head = req.messages.slice(0, firstUser + 1).filter((m) => m.role === 'system' || m.role === 'user');
  return JSON.stringify([(req.tools ?? []).map((t) => t.name), head.map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : p.type)))]);
}
