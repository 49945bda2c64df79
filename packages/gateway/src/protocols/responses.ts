/**
 * The Responses protocol's host-owned parts (docs/protocols.md): Response ids, the Response object, the
 * normalisation of `renderFinal`, the mapping of `renderEvents` results to OpenAI Responses stream
 * events, and SSE framing. No I/O here; the stream driver lives in responses-stream.ts.
 */
import { GatewayError, fail } from '../platform/errors.ts';
import { isTerminal, type TaskViewLike } from './task-view.ts';

export const responseIdOf = (publicTaskId: string): string => 'resp_' + publicTaskId.replace(/^task_/, '');
export function taskIdOfResponse(id: string): string | null {
  return /^resp_[A-Za-z0-9_-]{1,128}$/.test(id) ? 'task_' + id.slice(5) : null;
}

export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'incomplete';

export function responseStatusOf(taskStatus: string): ResponseStatus {
  switch (taskStatus) {
    case 'SUCCESS':
      return 'completed';
    case 'FAILURE':
      return 'failed';
    case 'IN_PROGRESS':
    case 'UNKNOWN':
      return 'in_progress';
    default:
      return 'queued';
  }
}

export interface ResponseBase {
  task: TaskViewLike;
  model: string;
  background?: boolean;
  /** task_progress / task_message from progress events. */
  extraMetadata?: Record<string, string>;
}

const ZERO_USAGE = {
  input_tokens: 0,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 0,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 0,
};

/** The host-owned Response object for a task; `status`/`output` override the task-derived ones. */
export function responseObject(
  b: ResponseBase,
  over: { status?: ResponseStatus; output?: unknown[]; error?: unknown } = {},
): Record<string, unknown> {
  const status = over.status ?? responseStatusOf(b.task.status);
  const id = responseIdOf(b.task.task_id);
  const terminal = status === 'completed' || status === 'failed' || status === 'incomplete';
  const metadata: Record<string, string> = {
    ...(b.extraMetadata ?? {}),
    task_id: b.task.task_id,
    task_status: String(b.task.status),
    retrieval_path: `/v1/responses/${id}`,
  };
  const obj: Record<string, unknown> = {
    id,
    object: 'response',
    created_at: b.task.created_at,
    status,
    error: over.error ?? (status === 'failed' ? { code: 'server_error', message: b.task.fail_reason || 'The task failed.' } : null),
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: null,
    model: b.model,
    output: over.output ?? [],
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    metadata,
    usage: terminal ? { ...ZERO_USAGE } : null,
  };
  if (b.background !== undefined) obj.background = b.background;
  if (!terminal) obj.completed_at = null;
  else if (status === 'completed') obj.completed_at = b.task.finished_at || Math.floor(Date.now() / 1000);
  return obj;
}

const MAX_FINAL_BYTES = 1024 * 1024 + 64 * 1024;

function depth(v: unknown, d = 0): number {
  if (d > 64) return d;
  if (Array.isArray(v)) return v.reduce<number>((m, x) => Math.max(m, depth(x, d + 1)), d + 1);
  if (v && typeof v === 'object') return Object.values(v).reduce<number>((m, x) => Math.max(m, depth(x, d + 1)), d + 1);
  return d;
}

/**
 * Applies the host rules to a `renderFinal` result: message items with output_text/refusal parts get
 * host ids, defaults are filled, plugin metadata is merged under the host's keys, usage is zeroed.
 */
export function normalizeFinal(rendered: unknown, b: ResponseBase): Record<string, unknown> {
  if (!rendered || typeof rendered !== 'object' || Array.isArray(rendered)) throw renderError('renderFinal must return an object');
  if (JSON.stringify(rendered).length > MAX_FINAL_BYTES) throw renderError('renderFinal result is too large');
  if (depth(rendered) > 16) throw renderError('renderFinal result is nested too deeply');
  const r = rendered as Record<string, unknown>;
  const tid = b.task.task_id;
  const items = r.output === undefined ? [] : r.output;
  if (!Array.isArray(items)) throw renderError('renderFinal output must be an array');
  const output = items.map((it, i) => {
    const item = it as Record<string, unknown>;
    if (!item || item.type !== 'message' || (item.role ?? 'assistant') !== 'assistant' || !Array.isArray(item.content)) {
      throw renderError(`renderFinal output[${i}] must be an assistant message`);
    }
    const content = item.content.map((p, j) => {
      const part = p as Record<string, unknown>;
      if (part?.type === 'output_text' && typeof part.text === 'string') {
        return {
          type: 'output_text',
          text: part.text,
          annotations: Array.isArray(part.annotations) ? part.annotations : [],
          logprobs: Array.isArray(part.logprobs) ? part.logprobs : [],
        };
      }
      if (part?.type === 'refusal' && typeof part.refusal === 'string') return { type: 'refusal', refusal: part.refusal };
      throw renderError(`renderFinal output[${i}].content[${j}] must be output_text or refusal`);
    });
    return { id: `item_${tid}_${i}`, type: 'message', role: 'assistant', status: 'completed', content };
  });
  const base = responseObject(b, { status: 'completed', output });
  const meta: Record<string, string> = {};
  if (r.metadata && typeof r.metadata === 'object' && !Array.isArray(r.metadata)) {
    for (const [k, v] of Object.entries(r.metadata)) {
      if (typeof v === 'string' && k.length <= 64 && Buffer.byteLength(v) <= 512) meta[k] = v;
    }
  }
  const hostMeta = base.metadata as Record<string, string>;
  const merged: Record<string, string> = { ...hostMeta };
  for (const [k, v] of Object.entries(meta)) {
    if (k in hostMeta) continue;
    if (Object.keys(merged).length >= 16) break;
    merged[k] = v;
  }
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    if (k === 'sequence_number' || k in base) continue;
    extra[k] = v;
  }
  const num = (v: unknown, lo: number, hi: number, d: number) => (typeof v === 'number' && v >= lo && v <= hi ? v : d);
  return {
    ...base,
    ...extra,
    instructions: typeof r.instructions === 'string' ? r.instructions : null,
    temperature: num(r.temperature, 0, 2, 1),
    top_p: num(r.top_p, 0, 1, 1),
    metadata: merged,
  };
}

function renderError(msg: string): GatewayError {
  return fail('plugin_render_invalid', msg);
}

// ---------------------------------------------------------------------------------------------
// renderEvents → stream events
// ---------------------------------------------------------------------------------------------

export type SemanticEvent =
  | { type: 'progress'; progress?: number; message?: string }
  | { type: 'output'; data: unknown }
  | { type: 'error'; message: string; code?: string };

export interface RenderEventsResult {
  events: SemanticEvent[];
  state?: unknown;
  done: boolean;
}

/** Validates a renderEvents result against the contract limits. */
export function checkRenderEvents(v: unknown): RenderEventsResult {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw renderError('renderEvents must return {events, done}');
  const r = v as Record<string, unknown>;
  for (const k of Object.keys(r))
    if (!['events', 'state', 'done'].includes(k)) throw renderError(`renderEvents returned unknown field "${k}"`);
  if (!Array.isArray(r.events) || typeof r.done !== 'boolean') throw renderError('renderEvents must return {events: [], done: boolean}');
  if (r.events.length > 16) throw renderError('renderEvents returned more than 16 events');
  if (JSON.stringify(r.events).length > 64 * 1024) throw renderError('renderEvents events exceed 64 KiB');
  if (r.state !== undefined && JSON.stringify(r.state).length > 16 * 1024) throw renderError('renderEvents state exceeds 16 KiB');
  if (depth(r.events) > 17 || (r.state !== undefined && depth(r.state) > 16)) throw renderError('renderEvents result is nested too deeply');
  const events: SemanticEvent[] = r.events.map((e, i) => {
    const ev = e as Record<string, unknown>;
    if (!ev || typeof ev !== 'object') throw renderError(`renderEvents event ${i} is not an object`);
    if (JSON.stringify(ev).length > 32 * 1024) throw renderError(`renderEvents event ${i} exceeds 32 KiB`);
    const allow = (keys: string[]) => {
      for (const k of Object.keys(ev)) if (!keys.includes(k)) throw renderError(`renderEvents event ${i} has unknown field "${k}"`);
    };
    if (ev.type === 'progress') {
      allow(['type', 'progress', 'message']);
      if (ev.progress !== undefined && (typeof ev.progress !== 'number' || ev.progress < 0 || ev.progress > 100))
        throw renderError('progress must be 0..100');
      if (ev.message !== undefined && (typeof ev.message !== 'string' || Buffer.byteLength(ev.message) > 512))
        throw renderError('progress message must be a string of at most 512 bytes');
      return { type: 'progress', progress: ev.progress as number | undefined, message: ev.message as string | undefined };
    }
    if (ev.type === 'output') {
      allow(['type', 'data']);
      if (!('data' in ev)) throw renderError('output event needs data');
      return { type: 'output', data: ev.data };
    }
    if (ev.type === 'error') {
      allow(['type', 'message', 'code']);
      if (typeof ev.message !== 'string' || !ev.message || Buffer.byteLength(ev.message) > 4096)
        throw renderError('error event needs a message of at most 4 KiB');
      if (ev.code !== undefined && (typeof ev.code !== 'string' || Buffer.byteLength(ev.code) > 128))
        throw renderError('error code must be a string of at most 128 bytes');
      return { type: 'error', message: ev.message, code: ev.code as string | undefined };
    }
    throw renderError(`renderEvents event ${i} has unknown type`);
  });
  return { events, state: r.state, done: r.done };
}

export interface WireEvent {
  type: string;
  [k: string]: unknown;
}

const MAX_OUTPUTS = 64;
const MAX_TEXT = 1024 * 1024;

/**
 * Turns semantic events into OpenAI Responses stream events with sequence numbers. One instance per
 * stream; it remembers the outputs already sent so the final `response.completed` carries them.
 */
export class ResponsesEventMapper {
  private seq = 0;
  private outputs: Array<Record<string, unknown>> = [];
  private textBytes = 0;
  private meta: Record<string, string> = {};
  finished = false;

  constructor(private base: { model: string; background?: boolean; taskId: string }) {}

  private ev(type: string, body: Record<string, unknown>): WireEvent {
    return { type, ...body, sequence_number: this.seq++ };
  }

  private resp(task: TaskViewLike, status?: ResponseStatus, error?: unknown): Record<string, unknown> {
    return responseObject(
      { model: this.base.model, background: this.base.background, task, extraMetadata: this.meta },
      { status, output: this.outputs, error },
    );
  }

  created(task: TaskViewLike): WireEvent[] {
    const status = responseStatusOf(task.status);
    return [
      this.ev('response.created', { response: this.resp(task, status === 'completed' || status === 'failed' ? 'in_progress' : status) }),
    ];
  }

  /** Maps one renderEvents result; `task` is the snapshot it was rendered from. */
  map(task: TaskViewLike, r: RenderEventsResult): WireEvent[] {
    const out: WireEvent[] = [];
    for (const e of r.events) {
      if (this.finished) break;
      if (e.type === 'progress') {
        if (e.progress !== undefined) this.meta.task_progress = String(e.progress);
        if (e.message !== undefined) this.meta.task_message = e.message;
        if (this.outputs.length === 0) out.push(this.ev('response.in_progress', { response: this.resp(task, 'in_progress') }));
      } else if (e.type === 'output') {
        const text = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
        this.textBytes += Buffer.byteLength(text);
        if (this.outputs.length >= MAX_OUTPUTS || this.textBytes > MAX_TEXT) {
          out.push(...this.fail(task, 'The task output exceeded the host limits.'));
          break;
        }
        out.push(...this.output(text));
      } else {
        out.push(...this.fail(task, 'The task failed.'));
      }
    }
    if (!this.finished && (r.done || isTerminal(task.status))) out.push(...this.finish(task));
    return out;
  }

  private output(text: string): WireEvent[] {
    const i = this.outputs.length;
    const tid = this.base.taskId;
    const itemId = `msg_${tid}_${i}`;
    const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
    const done = { type: 'output_text', text, annotations: [], logprobs: [] };
    const item = { id: itemId, type: 'message', role: 'assistant', status: 'completed', content: [done] };
    const evs = [
      this.ev('response.output_item.added', { output_index: i, item: { ...item, status: 'in_progress', content: [] } }),
      this.ev('response.content_part.added', { item_id: itemId, output_index: i, content_index: 0, part }),
      this.ev('response.output_text.delta', { item_id: itemId, output_index: i, content_index: 0, delta: text, logprobs: [] }),
      this.ev('response.output_text.done', { item_id: itemId, output_index: i, content_index: 0, text, logprobs: [] }),
      this.ev('response.content_part.done', { item_id: itemId, output_index: i, content_index: 0, part: done }),
      this.ev('response.output_item.done', { output_index: i, item }),
    ];
    this.outputs.push(item);
    return evs;
  }

  fail(task: TaskViewLike, message: string): WireEvent[] {
    this.finished = true;
    return [this.ev('response.failed', { response: this.resp(task, 'failed', { code: 'server_error', message }) })];
  }

  /** The closing event from the durable status. */
  finish(task: TaskViewLike): WireEvent[] {
    this.finished = true;
    if (task.status === 'SUCCESS') return [this.ev('response.completed', { response: this.resp(task, 'completed') })];
    if (task.status === 'FAILURE')
      return [this.ev('response.failed', { response: this.resp(task, 'failed', { code: 'server_error', message: 'The task failed.' }) })];
    return [this.ev('response.incomplete', { response: this.resp(task, 'incomplete') })];
  }
}

/** One SSE frame. */
export const sseFrame = (e: WireEvent): string => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
export const SSE_HEARTBEAT = ': PING\n\n';
