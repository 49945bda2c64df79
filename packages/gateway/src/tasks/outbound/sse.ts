/**
 * SSE submit responses, consumed by the host (never forwarded). The host owns framing, size limits
 * and time-outs; the plugin says what each event means and when the stream is done.
 *
 *  - snapshot mode: `parseSubmitEvent(ctx, event, prev)` → `{ state, done }`; the last state is the body.
 *  - delta mode (`submit-sse-delta@1`): `parseSubmitEventDelta(ctx, event, prev)` → `{ changes, state,
 *    done }`; the host applies `set` / `append` / `appendText` to a separate result that becomes the body.
 *
 * Any failure here happens after the upstream accepted the request, so it is never retried.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { OutboundError, type RawResponse } from './request.ts';

export interface SseLimits {
  maxEventBytes: number;
  maxTotalBytes: number;
  maxStateBytes: number;
  maxResultBytes: number;
  idleTimeoutMs: number;
  deadlineMs: number;
}

export const DEFAULT_SSE_LIMITS: SseLimits = {
  maxEventBytes: 1024 * 1024,
  maxTotalBytes: 16 * 1024 * 1024,
  maxStateBytes: 1024 * 1024,
  maxResultBytes: 1024 * 1024,
  idleTimeoutMs: 30_000,
  deadlineMs: 600_000,
};

export interface SubmitEvent {
  event: string;
  id: string;
  data: string;
}

const fail = (msg: string) => new OutboundError('plugin_submit_stream_failed', msg, true);

/**
 * Reads events from `res.body` and hands each to `onEvent` in order; resolves with what `onEvent`
 * returned for the event that said done.
 */
export async function readSse<T>(
  res: RawResponse,
  limits: SseLimits,
  onEvent: (ev: SubmitEvent) => Promise<{ done: boolean; value: T }>,
): Promise<T> {
  const queue: SubmitEvent[] = [];
  let lastId = '';
  let parseError: Error | null = null;
  const parser = createParser({
    maxBufferSize: limits.maxEventBytes,
    onEvent(m: EventSourceMessage) {
      if (m.id !== undefined && !m.id.includes('\0')) lastId = m.id;
      queue.push({ event: m.event || 'message', id: lastId, data: m.data });
    },
    onError(e) {
      if ((e as { type?: string }).type === 'max-buffer-size-exceeded') parseError = e;
    },
  });
  const body = res.body;
  const started = Date.now();
  let total = 0;
  let idle: NodeJS.Timeout | null = null;
  let timedOut = '';
  const arm = () => {
    if (idle) clearTimeout(idle);
    const left = limits.deadlineMs - (Date.now() - started);
    const wait = Math.max(1, Math.min(limits.idleTimeoutMs, left));
    idle = setTimeout(() => {
      timedOut = left <= limits.idleTimeoutMs ? 'deadline' : 'idle';
      body.destroy();
    }, wait);
  };
  const decoder = new TextDecoder();
  let first = true;
  try {
    arm();
    for await (const chunk of body) {
      arm();
      total += (chunk as Buffer).length;
      if (total > limits.maxTotalBytes) throw fail(`event stream is larger than ${limits.maxTotalBytes} bytes`);
      let text = decoder.decode(chunk as Buffer, { stream: true });
      if (first) {
        text = text.replace(/^\uFEFF/, '');
        first = false;
      }
      parser.feed(text);
      if (parseError) throw fail(`an event is larger than ${limits.maxEventBytes} bytes`);
      while (queue.length) {
        const ev = queue.shift()!;
        if (Buffer.byteLength(ev.data) > limits.maxEventBytes) throw fail(`an event is larger than ${limits.maxEventBytes} bytes`);
        const r = await onEvent(ev);
        if (r.done) {
          body.destroy();
          return r.value;
        }
      }
    }
    parser.reset({ consume: true });
    while (queue.length) {
      const r = await onEvent(queue.shift()!);
      if (r.done) return r.value;
    }
    throw fail('event stream ended before the plugin reported done');
  } catch (e) {
    if (timedOut)
      throw new OutboundError(
        'plugin_submit_stream_timeout',
        `event stream ${timedOut === 'idle' ? 'was idle too long' : 'passed its deadline'}`,
        true,
      );
    if (e instanceof OutboundError) throw e;
    throw fail(`reading the event stream failed: ${(e as Error).message}`.slice(0, 300));
  } finally {
    if (idle) clearTimeout(idle);
  }
}

export interface DeltaChange {
  op: string;
  path: Array<string | number>;
  value: unknown;
}

/** The result a delta stream builds. Limits: 256 changes per event, depth 32, 32768 nodes, size. */
export class DeltaResult {
  value: unknown = null;
  constructor(private readonly maxBytes: number) {}

  apply(changes: unknown): void {
    if (!Array.isArray(changes)) throw fail('changes must be an array');
    if (changes.length > 256) throw fail('too many changes in one event');
    for (const c of changes as DeltaChange[]) {
      if (!c || typeof c !== 'object' || Object.keys(c).sort().join(',') !== 'op,path,value')
        throw fail('each change has exactly op, path and value');
      if (!Array.isArray(c.path) || c.path.length > 32) throw fail('change path must be an array of at most 32 segments');
      if (c.op === 'set' && c.path.length === 0) {
        this.value = clone(c.value);
        continue;
      }
      const { parent, last } = this.locate(c.path);
      if (c.op === 'set') {
        if (Array.isArray(parent)) {
          if (typeof last !== 'number' || last >= parent.length) throw fail('set may only replace an existing array element');
          parent[last] = clone(c.value);
        } else {
          if (typeof last !== 'string') throw fail('object members are named by strings');
          (parent as Record<string, unknown>)[last] = clone(c.value);
        }
        continue;
      }
      const cur = Array.isArray(parent)
        ? typeof last === 'number'
          ? parent[last]
          : undefined
        : (parent as Record<string, unknown>)[last as string];
      if (c.op === 'append') {
        if (!Array.isArray(cur)) throw fail('append needs an array target');
        cur.push(clone(c.value));
      } else if (c.op === 'appendText') {
        if (typeof cur !== 'string' || typeof c.value !== 'string') throw fail('appendText needs an existing string and a string value');
        if (Array.isArray(parent)) parent[last as number] = cur + c.value;
        else (parent as Record<string, unknown>)[last as string] = cur + c.value;
      } else throw fail(`unknown change op "${String(c.op)}"`);
    }
    check(this.value, this.maxBytes);
  }

  private locate(path: Array<string | number>): { parent: unknown[] | Record<string, unknown>; last: string | number } {
    let cur: unknown = this.value;
    for (let i = 0; i < path.length - 1; i++) cur = step(cur, path[i]);
    if (cur === null || typeof cur !== 'object') throw fail('change path does not exist');
    return { parent: cur as unknown[] | Record<string, unknown>, last: path[path.length - 1] };
  }
}

function step(cur: unknown, seg: string | number): unknown {
  if (Array.isArray(cur)) {
    if (typeof seg !== 'number' || !Number.isInteger(seg) || seg < 0 || seg >= cur.length) throw fail('change path does not exist');
    return cur[seg];
  }
  if (cur && typeof cur === 'object' && typeof seg === 'string' && Object.prototype.hasOwnProperty.call(cur, seg))
    return (cur as Record<string, unknown>)[seg];
  throw fail('change path does not exist');
}

function clone(v: unknown): unknown {
  return v === undefined ? null : JSON.parse(JSON.stringify(v));
}

function check(v: unknown, maxBytes: number): void {
  let nodes = 0;
  const walk = (x: unknown, d: number): void => {
    if (++nodes > 32768) throw fail('result has too many nodes');
    if (d > 32) throw fail('result is nested too deeply');
    if (Array.isArray(x)) x.forEach((y) => walk(y, d + 1));
    else if (x && typeof x === 'object') Object.values(x).forEach((y) => walk(y, d + 1));
  };
  walk(v, 0);
  if (Buffer.byteLength(JSON.stringify(v)) > maxBytes) throw fail(`result is larger than ${maxBytes} bytes`);
}

export function checkStateSize(state: unknown, max: number): void {
  if (state !== undefined && Buffer.byteLength(JSON.stringify(state) ?? 'null') > max)
    throw fail(`plugin state is larger than ${max} bytes`);
}
