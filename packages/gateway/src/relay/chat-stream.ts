/**
 * A chat, completions or embeddings stream relayed to the caller (`ChatStream`, the chat family's
 * `StreamRelay`, made with its encoder and guarded body by `chatStreamRelay`): same-format streams forwarded as they come and read for usage, others converted
 * event by event; and the usage and prompt text of a call counted locally when the upstream gave none.
 */
import type { TokenUsage } from '../billing/prices.ts';
import { countTokens, TokenCounter } from '../billing/tokens.ts';
import { redactSecrets } from '../platform/redact.ts';
import type { StreamRelay } from './pipeline/index.ts';
import type { EventFramer, SseEvent } from './sse.ts';
import {
  createStreamDecoder,
  createStreamEncoder,
  quotaStreamEvent,
  streamErrorEvent,
  streamFramer,
  usageFromResponse,
  type CanonicalRequest,
  type CanonicalResponse,
  type CanonicalStreamEvent,
  type Usage,
  type WireFormat,
} from './providers/index.ts';
import { embedTexts } from './providers/gemini/embed.ts';
import { includeUsageAsked, textOfContent } from './providers/openai/body.ts';
import { JsonArrayStream } from './providers/gemini/body.ts';
import type { StreamEncoder } from './providers/index.ts';
import { unwrapOutputToolStream } from './providers/structured-output.ts';
import { guardsStream, guardStream, GuardrailStop } from './guardrail-stream.ts';
import { EventTemplate } from './providers/event-template.ts';
import { guardrailContext, type Guardrails } from './guardrails.ts';
import type { UpstreamResponse } from './upstream.ts';
import type { ResponsesConversion } from './responses-convert.ts';
import type { Ctx } from './chat-call.ts';

/**
 * How a streamed chat answer in `fmt` reaches the caller (relay.ts hands it to the pipeline's pump):
 * OpenAI upstreams byte for byte (only the usage chunk the gateway asked for removed when the caller did
 * not), other formats converted (a Responses caller's through `conv`); the upstream body read through the
 * output guardrails when they apply (relay/guardrail-stream.ts); and the headers of the answer.
 */
export function chatStreamRelay(
  ctx: Ctx,
  fmt: WireFormat,
  up: UpstreamResponse,
  secrets: () => string[],
  guardrails: Guardrails,
  conv: ResponsesConversion,
): { s: ChatStream; up: UpstreamResponse; headers: Record<string, string> } {
  const cf = ctx.cf;
  const encOpts = {
    model: ctx.model,
    requestId: ctx.call.requestId,
    includeUsage: cf === 'openai' ? (ctx.canonical?.includeUsage ?? false) : true,
  };
  const encoder: StreamEncoder | null =
    fmt === cf ? null : cf === 'responses' ? conv.streamEncoder(ctx, encOpts) : createStreamEncoder(cf, encOpts);
  const s = new ChatStream(ctx, fmt, encoder, secrets);
  if (ctx.outGuards.length && guardsStream(fmt)) {
    // Output guardrails see the answer in windows of text before the caller does (relay/guardrail-stream.ts).
    const gctx = guardrailContext(ctx.call.principal, ctx.model, ctx.call.requestId, ctx.call.endpoint);
    const body = guardStream(up, fmt, guardrails, ctx.outGuards, gctx, ctx.guardrails);
    body.on('error', (e) => {
      if (e instanceof GuardrailStop) s.stop = e;
    });
    up = { ...up, body };
  }
  const headers: Record<string, string> = s.array
    ? { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' }
    : { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' };
  return { s, up, headers };
}

/**
 * A chat stream on its way to the caller: OpenAI to OpenAI byte for byte (read for usage and output
 * text; the usage chunk the gateway asked for removed when the caller did not), other same-format
 * streams forwarded and decoded for usage, the rest decoded and encoded in the caller's format.
 */
export class ChatStream implements StreamRelay<Ctx> {
  text = '';
  /** Set when an output guardrail ended the stream. */
  stop: GuardrailStop | null = null;
  readonly framer: EventFramer;
  /** Gemini stream without `alt=sse`: the events re-framed as one JSON array. */
  readonly array: JsonArrayStream | null;
  private usageSeen: Partial<Usage> | null = null;
  private readonly cf: WireFormat;
  private readonly strip: boolean;
  /** Same-format streams other than OpenAI are forwarded as they come and only decoded for usage. */
  private readonly decoder: ReturnType<typeof createStreamDecoder> | null;
  /** OpenAI to OpenAI: content chunks read from a template (providers/event-template.ts). */
  private readonly tpl = new EventTemplate();

  constructor(
    ctx: Ctx,
    fmt: WireFormat,
    private readonly encoder: StreamEncoder | null,
    private readonly secrets: () => string[],
  ) {
    this.cf = ctx.cf;
    const oaPass = fmt === 'openai' && ctx.cf === 'openai';
    this.strip = oaPass && !includeUsageAsked(ctx.call.body);
    // SSE, or the events of the format's own stream framing (Bedrock's AWS event stream).
    this.framer = streamFramer(fmt);
    const decoder = oaPass ? null : createStreamDecoder(fmt);
    // JSON asked for through a forced tool: the tool's argument deltas are the answer's text deltas.
    const tool = ctx.sent?.outputTool;
    this.decoder = decoder && tool ? unwrapOutputToolStream(decoder, tool) : decoder;
    this.array = ctx.call.jsonArrayStream ? new JsonArrayStream() : null;
  }

  private onCanonical(evs: CanonicalStreamEvent[]): string {
    const encoder = this.encoder;
    let out = '';
    for (const e of evs) {
      if (e.type === 'usage') this.usageSeen = e.usage;
      else if (e.type === 'start' && e.usage) this.usageSeen = { ...(this.usageSeen ?? {}), ...e.usage };
      else if (e.type === 'text') this.text += e.text;
      else if (e.type === 'thinking' && e.text) this.text += e.text;
      else if (e.type === 'tool_call_args') this.text += e.delta;
      else if (e.type === 'tool_call_start') this.text += e.name;
      // An upstream error event being converted loses the credentials it may echo (other events are not scanned).
      else if (e.type === 'error' && encoder) e.message = redactSecrets(e.message, this.secrets());
      if (encoder) out += encoder.push(e);
    }
    return out;
  }

  /** Reads an OpenAI event; false when it is the usage chunk to remove. */
  private onOpenAI(ev: SseEvent): boolean {
    const data = ev.data;
    const t = this.tpl.match(data);
    if (t !== undefined) {
      this.text += t;
      return true;
    }
    if (!data || data === '[DONE]' || data[0] !== '{') return true;
    let j: any;
    try {
      j = JSON.parse(data);
    } catch {
      return true;
    }
    if (j.usage && typeof j.usage === 'object') {
      this.usageSeen = usageFromResponse('openai', j) ?? this.usageSeen;
      if (this.strip && Array.isArray(j.choices) && j.choices.length === 0) return false;
    }
    if (Array.isArray(j.choices)) {
      // A chunk of one choice whose only text is its content (no usage): later ones from the template.
      const dl = j.choices.length === 1 ? j.choices[0]?.delta : undefined;
      if (
        dl &&
        typeof dl.content === 'string' &&
        typeof dl.reasoning_content !== 'string' &&
        !Array.isArray(dl.tool_calls) &&
        !(j.usage && typeof j.usage === 'object')
      )
        this.tpl.learn(data, dl.content, (o) => o?.choices?.[0]?.delta?.content);
      for (const c of j.choices) {
        const dl = c?.delta;
        if (dl) {
          if (typeof dl.content === 'string') this.text += dl.content;
          if (typeof dl.reasoning_content === 'string') this.text += dl.reasoning_content;
          if (Array.isArray(dl.tool_calls))
            for (const t of dl.tool_calls) this.text += String(t?.function?.name ?? '') + String(t?.function?.arguments ?? '');
        } else if (typeof c?.text === 'string') this.text += c.text;
      }
    }
    return true;
  }

  chunk(chunk: Buffer): string | Buffer {
    const { decoder, framer } = this;
    if (decoder && !this.encoder) {
      for (const ev of framer.push(chunk)) this.onCanonical(decoder.push(ev));
      return chunk;
    }
    if (decoder) {
      let out = '';
      for (const ev of framer.push(chunk)) out += this.onCanonical(decoder.push(ev));
      return out;
    }
    if (this.strip) {
      let out = '';
      for (const ev of framer.push(chunk)) if (this.onOpenAI(ev)) out += ev.raw;
      return out;
    }
    for (const ev of framer.push(chunk)) this.onOpenAI(ev);
    return chunk;
  }

  end(): string {
    let out = '';
    if (this.decoder) {
      for (const ev of this.framer.end()) out += this.onCanonical(this.decoder.push(ev));
      out += this.tail();
    } else {
      for (const ev of this.framer.end()) if (this.onOpenAI(ev) && this.strip) out += ev.raw;
    }
    return this.encoder || this.strip ? out : '';
  }

  event(ev: SseEvent): string {
    if (this.decoder) {
      const out = this.onCanonical(this.decoder.push(ev));
      return this.encoder ? out : ev.raw;
    }
    return this.onOpenAI(ev) ? ev.raw : '';
  }

  tail(): string {
    if (!this.decoder) return '';
    const out = this.onCanonical(this.decoder.end());
    return this.encoder ? out + this.encoder.end() : '';
  }

  frame(out: string | Buffer): string | Buffer {
    return this.array ? this.array.push(out) : out;
  }

  close(cut: boolean, upstreamError: string | null): string {
    const tail = cut
      ? quotaStreamEvent(this.cf)
      : this.stop
        ? streamErrorEvent(this.cf, this.stop.message)
        : upstreamError
          ? streamErrorEvent(this.cf, `upstream stream failed: ${upstreamError}`)
          : '';
    return this.array ? this.array.push(tail) + this.array.end() : tail;
  }

  async usage(
    ctx: Ctx,
    cutAt: number | null,
    clientGone: boolean,
    counter: TokenCounter,
  ): Promise<{ usage: TokenUsage; reported: boolean }> {
    const u = this.usageSeen;
    if (cutAt !== null) {
      const final = await countUsage(ctx, null, '', u ? { ...u, outputTokens: 0 } : null);
      final.outputTokens = cutAt;
      return { usage: final, reported: false };
    }
    const complete = !clientGone && !!u && ((u.inputTokens ?? 0) > 0 || (u.outputTokens ?? 0) > 0);
    return { usage: complete ? fullUsage(u) : await countUsage(ctx, counter, '', u), reported: complete };
  }
}

function promptText(ctx: Ctx): string {
  if (ctx.promptText !== null) return ctx.promptText;
  const b = ctx.call.body;
  let t = '';
  if (ctx.canonical && ctx.cf !== 'openai') t = canonicalPromptText(ctx.canonical);
  else if (ctx.call.kind === 'embeddings' && ctx.cf === 'gemini')
    t = (embedTexts(b, ctx.call.geminiAction ?? 'embedContent') ?? []).join('\n');
  else if (ctx.call.kind === 'chat') {
    for (const m of b.messages as unknown[]) t += textOfContent((m as { content?: unknown })?.content) + '\n';
    if (Array.isArray(b.tools)) t += JSON.stringify(b.tools);
  } else if (ctx.call.kind === 'completions') t = textOfContent(b.prompt);
  else t = textOfContent(b.input);
  ctx.promptText = t;
  return t;
}

/** Usage counted locally when the upstream gave none (or the caller left before it came). */
export async function countUsage(
  ctx: Ctx,
  counter: TokenCounter | null,
  outputText: string,
  partial?: Partial<Usage> | null,
): Promise<Usage> {
  const input = partial?.inputTokens || (await countTokens(promptText(ctx)));
  let output = partial?.outputTokens ?? 0;
  if (counter) output = Math.max(output, await counter.total());
  else if (outputText) output = await countTokens(outputText);
  return {
    inputTokens: input,
    outputTokens: output,
    cachedInputTokens: partial?.cachedInputTokens ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}

// ---------- helpers ----------

/** Output text of a decoded response (counted when the upstream reported no usage). */
export function canonicalResponseText(r: CanonicalResponse): string {
  let t = '';
  for (const c of r.choices) {
    for (const p of c.parts) if (p.type === 'text' || p.type === 'thinking') t += p.text;
    for (const tc of c.toolCalls) t += tc.name + tc.arguments;
  }
  return t;
}

/** Prompt text of a decoded request (for the estimate and for counting). */
export function canonicalPromptText(r: CanonicalRequest): string {
  let t = '';
  for (const m of r.messages) {
    for (const p of m.parts) if (p.type === 'text' || p.type === 'thinking') t += p.text;
    if (m.role === 'assistant') for (const tc of m.toolCalls) t += tc.name + tc.arguments;
    t += '\n';
  }
  if (r.tools?.length) t += JSON.stringify(r.tools.map((x) => ({ name: x.name, description: x.description, parameters: x.parameters })));
  return t;
}

/** Images in a decoded request. */
export function canonicalImageCount(r: CanonicalRequest): number {
  let n = 0;
  for (const m of r.messages) for (const p of m.parts) if (p.type === 'image') n++;
  return n;
}

/** `raw` (a JSON object's bytes) with `"key":value,` written after its opening brace. */
export function injectField(raw: Buffer, key: string, value: number): Buffer {
  const i = raw.indexOf(0x7b);
  return Buffer.concat([raw.subarray(0, i + 1), Buffer.from(`${JSON.stringify(key)}:${value},`), raw.subarray(i + 1)]);
}

function fullUsage(u: Partial<Usage>): Usage {
  return {
    ...u,
    inputTokens: u.inputTokens ?? 0,
    outputTokens: u.outputTokens ?? 0,
    cachedInputTokens: u.cachedInputTokens ?? 0,
    cacheWriteTokens: u.cacheWriteTokens ?? 0,
    reasoningTokens: u.reasoningTokens ?? 0,
    ...(u.cacheWrite1hTokens ? { cacheWrite1hTokens: u.cacheWrite1hTokens } : {}),
  };
}
