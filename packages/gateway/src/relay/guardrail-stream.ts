/**
 * Output guardrails on a streamed answer (docs/guardrails.md#streams): the upstream's events are read
 * as they come; the text deltas are held until a window of WINDOW_CHARS characters has gathered (or
 * the stream ends), the window is checked, masks are written into the held events, and the events are
 * released but for the last HOLD_CHARS characters of text, which stay held for the next window so a
 * match split across chunks is seen whole. Events without text keep their place behind held ones. A
 * block ends the stream: what was held is never sent, and the body fails with GuardrailStop, which the
 * chat stream turns into the caller's stream error event. The events go on in the upstream's format;
 * the relay converts them for the caller as usual.
 */
import { Readable } from 'node:stream';
import { isObj } from '../platform/validate.ts';
import type { UpstreamResponse } from './upstream.ts';
import type { SseEvent } from './sse.ts';
import { streamFramer, type WireFormat } from './providers/index.ts';
import type { Guardrails, VerdictRecord } from './guardrails.ts';
import type { GuardrailContext, ResolvedBinding } from './guardrail-types.ts';

/** Characters of text gathered before a window is checked. */
export const WINDOW_CHARS = 256;
/** Characters of checked text held back for the next window. */
export const HOLD_CHARS = 64;

/** The stream was ended by a guardrail's block. */
export class GuardrailStop extends Error {
  constructor(
    readonly plugin: string,
    readonly reason: string,
  ) {
    super(`blocked by guardrail ${plugin}: ${reason}`);
  }
}

type Obj = Record<string, unknown>;
interface Slot {
  o: Obj;
  k: string;
}
interface Held {
  ev: SseEvent;
  json: Obj | null;
  slots: Slot[];
  /** The event's text offsets in the held text. */
  start: number;
  end: number;
  changed: boolean;
}

/** The text deltas of one upstream event in format `fmt`. */
function textSlots(fmt: WireFormat, j: Obj): Slot[] {
  const out: Slot[] = [];
  const push = (o: unknown, k: string) => {
    if (isObj(o) && typeof o[k] === 'string' && o[k]) out.push({ o, k });
  };
  if (fmt === 'openai') {
    if (Array.isArray(j.choices))
      for (const c of j.choices) {
        if (!isObj(c)) continue;
        if (isObj(c.delta)) push(c.delta, 'content');
        else push(c, 'text');
      }
  } else if (fmt === 'anthropic') {
    if (j.type === 'content_block_delta' && isObj(j.delta) && j.delta.type === 'text_delta') push(j.delta, 'text');
  } else if (fmt === 'gemini') {
    if (Array.isArray(j.candidates))
      for (const c of j.candidates)
        if (isObj(c) && isObj(c.content) && Array.isArray(c.content.parts))
          for (const p of c.content.parts) if (isObj(p) && p.thought !== true) push(p, 'text');
  } else if (fmt === 'responses') {
    if (j.type === 'response.output_text.delta') push(j, 'delta');
  }
  return out;
}

/** Whether the stream of an upstream in `fmt` can be checked window by window. */
export function guardsStream(fmt: WireFormat): boolean {
  return fmt === 'openai' || fmt === 'anthropic' || fmt === 'gemini' || fmt === 'responses';
}

/** Where offset `x` of the text lands after the spans (sorted, not overlapping) are replaced. */
function mapOffset(x: number, spans: { start: number; end: number; replacement: string }[]): number {
  let d = 0;
  for (const s of spans) {
    if (s.end <= x) d += s.replacement.length - (s.end - s.start);
    else if (s.start < x) return s.start + d + s.replacement.length;
    else break;
  }
  return x + d;
}

/**
 * The upstream body with the output guardrails applied; `records` collects the verdicts. The body
 * fails with GuardrailStop when one blocks.
 */
export function guardStream(
  up: UpstreamResponse,
  fmt: WireFormat,
  g: Guardrails,
  list: readonly ResolvedBinding[],
  ctx: GuardrailContext,
  records: VerdictRecord[],
): UpstreamResponse['body'] {
  const framer = streamFramer(fmt);
  let held: Held[] = [];
  let text = '';
  const serialise = (h: Held): string => {
    if (!h.changed || !h.json) return h.ev.raw;
    return `${h.ev.event ? `event: ${h.ev.event}\n` : ''}data: ${JSON.stringify(h.json)}\n\n`;
  };
  /** Checks the held text; releases (returns) the events before the hold-back, or all at the end. */
  const check = async (final: boolean): Promise<string> => {
    if (text) {
      const r = await g.run(list, ctx, 'output', [text]);
      records.push(...r.records);
      if (r.block) throw new GuardrailStop(r.block.plugin, r.block.reason);
      if (r.changed) {
        const masked = r.texts[0];
        // The spans as applied: recover them by the offsets of each held event.
        const spans = diffSpans(text, masked);
        for (const h of held) {
          if (h.end === h.start) continue;
          const a = mapOffset(h.start, spans);
          const b = mapOffset(h.end, spans);
          let part = masked.slice(a, b);
          // The new text of the event goes into its first delta; the others are emptied.
          for (const [i, s] of h.slots.entries()) {
            s.o[s.k] = i === 0 ? part : '';
            part = i === 0 ? part : '';
          }
          h.start = a;
          h.end = b;
          h.changed = true;
        }
        text = masked;
      }
    }
    const keepFrom = final ? text.length : Math.max(0, text.length - HOLD_CHARS);
    let out = '';
    let n = 0;
    while (n < held.length && (held[n].end <= keepFrom || (held[n].start === held[n].end && held[n].start <= keepFrom))) {
      out += serialise(held[n]);
      n++;
    }
    const cut = n < held.length ? held[n].start : text.length;
    held = held.slice(n);
    for (const h of held) {
      h.start -= cut;
      h.end -= cut;
    }
    text = text.slice(cut);
    return out;
  };
  const add = (ev: SseEvent): boolean => {
    let json: Obj | null = null;
    let slots: Slot[] = [];
    if (ev.data && ev.data[0] === '{') {
      try {
        const j = JSON.parse(ev.data) as unknown;
        if (isObj(j)) {
          json = j;
          slots = textSlots(fmt, j);
        }
      } catch {
        json = null;
      }
    }
    const start = text.length;
    for (const s of slots) text += s.o[s.k] as string;
    held.push({ ev, json, slots, start, end: text.length, changed: false });
    return slots.length > 0;
  };
  async function* run(): AsyncGenerator<Buffer> {
    let gathered = 0;
    for await (const chunk of up.body as AsyncIterable<Buffer>) {
      for (const ev of framer.push(chunk)) {
        const before = text.length;
        if (add(ev)) gathered += text.length - before;
      }
      if (gathered >= WINDOW_CHARS) {
        gathered = 0;
        const out = await check(false);
        if (out) yield Buffer.from(out);
      } else if (!text) {
        // Nothing held back: events without text go on at once.
        const out = held.map(serialise).join('');
        held = [];
        if (out) yield Buffer.from(out);
      }
    }
    for (const ev of framer.end()) add(ev);
    const out = await check(true);
    if (out) yield Buffer.from(out);
  }
  return Readable.from(run(), { objectMode: false }) as unknown as UpstreamResponse['body'];
}

/** The replaced ranges between a text and its masked form (one span: the differing middle). */
function diffSpans(a: string, b: string): { start: number; end: number; replacement: string }[] {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  return [{ start: p, end: a.length - s, replacement: b.slice(p, b.length - s) }];
}
