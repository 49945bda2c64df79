/**
 * The OpenAI Responses API as a caller's format (never an upstream's): a Responses request for a model
 * that only a chat, Anthropic or Gemini channel serves is decoded into the canonical model, and the
 * answer is encoded back as a Response object or as the Responses event stream, in the event order
 * OpenAI sends (created, in_progress, output items with their parts and deltas, completed).
 *
 * Input items: messages (user, system, developer, assistant; `input_text`, `input_image`,
 * `input_file`, `output_text`), `function_call` and `function_call_output`, `custom_tool_call` and its
 * output (freeform tools, passed as a function with one string argument `input`), and `reasoning`
 * (its summary is kept as thinking text; encrypted content only means something to OpenAI). Tools:
 * `function` and `custom`; other hosted tools (web search, file search, computer use …) have no
 * equivalent on other vendors and are left out, noted in the log.
 */
import type {
  AssistantMessage,
  CanonicalRequest,
  CanonicalResponse,
  ContentPart,
  FinishReason,
  Message,
  ResponseFormat,
  StreamEncoder,
  StreamEncoderOptions,
  Tool,
  ToolChoice,
  Usage,
} from '../canonical.ts';
import {
  bad,
  budgetForEffort,
  emptyUsage,
  imageFromUrl,
  isObj,
  newToolCallId,
  num,
  parseDataUrl,
  str,
  textOf,
  tokenCount,
  unknownFields,
} from '../canonical.ts';

const KNOWN = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'temperature',
  'top_p',
  'reasoning',
  'text',
  'stream',
  'stream_options',
  'store',
  'previous_response_id',
  'user',
  'metadata',
  'include',
  'prompt_cache_key',
  'safety_identifier',
  'service_tier',
  'truncation',
  'client_metadata',
  'background',
]);

/** A freeform (custom) tool is offered to other vendors as a function taking one string. */
const CUSTOM_TOOL_PARAMETERS = {
  type: 'object',
  properties: { input: { type: 'string', description: 'the raw input of the tool' } },
  required: ['input'],
};

function decodeContent(content: unknown, f: string, dropped: string[]): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw bad(f, 'must be a string or an array of content parts');
  const out: ContentPart[] = [];
  content.forEach((p, i) => {
    const pf = `${f}[${i}]`;
    if (!isObj(p)) throw bad(pf, 'must be an object');
    switch (p.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
      case 'summary_text':
        out.push({ type: 'text', text: str(p.text, `${pf}.text`) ?? '' });
        return;
      case 'refusal':
        out.push({ type: 'text', text: str(p.refusal, `${pf}.refusal`) ?? '' });
        return;
      case 'input_image': {
        const url = str(p.image_url, `${pf}.image_url`);
        if (!url) {
          dropped.push(`${pf} (input_image without image_url)`);
          return;
        }
        out.push(imageFromUrl(url, typeof p.detail === 'string' ? p.detail : undefined));
        return;
      }
      case 'input_file': {
        const data = typeof p.file_data === 'string' ? parseDataUrl(p.file_data) : null;
        if (data)
          out.push({
            type: 'file',
            mediaType: data.mediaType,
            data: data.data,
            ...(typeof p.filename === 'string' ? { filename: p.filename } : {}),
          });
        else if (typeof p.file_url === 'string')
          out.push({ type: 'file', url: p.file_url, ...(typeof p.filename === 'string' ? { filename: p.filename } : {}) });
        else dropped.push(`${pf} (input_file by id)`);
        return;
      }
      default:
        dropped.push(`${pf} (${String(p.type)})`);
    }
  });
  return out;
}

/** The output of a tool call: a string, or content parts whose text is joined. */
function outputParts(v: unknown, f: string, dropped: string[]): ContentPart[] {
  if (typeof v === 'string') return [{ type: 'text', text: v }];
  if (Array.isArray(v)) return decodeContent(v, f, dropped);
  if (v === undefined || v === null) return [];
  return [{ type: 'text', text: JSON.stringify(v) }];
}

function decodeInput(input: unknown, dropped: string[]): Message[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ role: 'user', parts: [{ type: 'text', text: input }] }];
  if (!Array.isArray(input)) throw bad('input', 'must be a string or an array of input items');
  const out: Message[] = [];
  /** The assistant message that consecutive calls and texts join. */
  const assistant = (): AssistantMessage => {
    const last = out[out.length - 1];
    if (last && last.role === 'assistant') return last;
    const m: AssistantMessage = { role: 'assistant', parts: [], toolCalls: [] };
    out.push(m);
    return m;
  };
  input.forEach((item, i) => {
    const f = `input[${i}]`;
    if (!isObj(item)) throw bad(f, 'must be an object');
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    switch (type) {
      case 'message': {
        const parts = decodeContent(item.content, `${f}.content`, dropped);
        switch (item.role) {
          case 'user':
            out.push({ role: 'user', parts });
            return;
          case 'system':
          case 'developer':
            out.push({ role: 'system', parts });
            return;
          case 'assistant':
            assistant().parts.push(...parts);
            return;
          default:
            throw bad(`${f}.role`, 'must be user, assistant, system or developer');
        }
      }
      case 'function_call':
      case 'custom_tool_call': {
        const name = str(item.name, `${f}.name`);
        if (!name) throw bad(`${f}.name`, 'is required');
        const id = str(item.call_id, `${f}.call_id`) ?? newToolCallId();
        const args =
          type === 'custom_tool_call'
            ? JSON.stringify({ input: typeof item.input === 'string' ? item.input : '' })
            : typeof item.arguments === 'string'
              ? item.arguments
              : JSON.stringify(item.arguments ?? {});
        assistant().toolCalls.push({ id, name, arguments: args });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const id = str(item.call_id, `${f}.call_id`);
        if (!id) throw bad(`${f}.call_id`, 'is required');
        out.push({ role: 'tool', toolCallId: id, parts: outputParts(item.output, `${f}.output`, dropped) });
        return;
      }
      case 'reasoning': {
        const summary = Array.isArray(item.summary) ? item.summary : [];
        const text = summary.map((s: unknown) => (isObj(s) && typeof s.text === 'string' ? s.text : '')).join('\n');
        if (text) assistant().parts.push({ type: 'thinking', text });
        return;
      }
      default:
        dropped.push(`${f} (${String(type)})`);
    }
  });
  return out;
}

function decodeTools(v: unknown, dropped: string[]): Tool[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw bad('tools', 'must be an array');
  const out: Tool[] = [];
  v.forEach((t, i) => {
    if (!isObj(t)) throw bad(`tools[${i}]`, 'must be an object');
    if (t.type === 'function') {
      const name = str(t.name, `tools[${i}].name`);
      if (!name) throw bad(`tools[${i}].name`, 'is required');
      const tool: Tool = { name };
      if (typeof t.description === 'string') tool.description = t.description;
      if (isObj(t.parameters)) tool.parameters = t.parameters;
      if (typeof t.strict === 'boolean') tool.strict = t.strict;
      out.push(tool);
    } else if (t.type === 'custom') {
      const name = str(t.name, `tools[${i}].name`);
      if (!name) throw bad(`tools[${i}].name`, 'is required');
      const grammar =
        isObj(t.format) && typeof t.format.definition === 'string'
          ? `\n\nThe input must follow this ${String(t.format.syntax ?? '')} grammar:\n${t.format.definition}`
          : '';
      out.push({
        name,
        description: `${typeof t.description === 'string' ? t.description : ''}${grammar}`,
        parameters: CUSTOM_TOOL_PARAMETERS,
        freeform: true,
      });
    } else {
      dropped.push(`tools[${i}] (${String(t.type)})`);
    }
  });
  return out.length ? out : undefined;
}

function decodeToolChoice(v: unknown): ToolChoice | undefined {
  if (v === undefined || v === null) return undefined;
  if (v === 'auto' || v === 'none' || v === 'required') return v;
  if (isObj(v) && (v.type === 'function' || v.type === 'custom') && typeof v.name === 'string') return { name: v.name };
  if (isObj(v) && v.type === 'allowed_tools') return v.mode === 'required' ? 'required' : 'auto';
  throw bad('tool_choice', 'must be auto, none, required or {type: "function", name}');
}

function decodeTextFormat(v: unknown): ResponseFormat | undefined {
  if (!isObj(v) || !isObj(v.format)) return undefined;
  const f = v.format;
  if (f.type === 'json_schema') {
    return {
      type: 'json_schema',
      ...(typeof f.name === 'string' ? { name: f.name } : {}),
      ...(isObj(f.schema) ? { schema: f.schema } : {}),
      ...(typeof f.strict === 'boolean' ? { strict: f.strict } : {}),
    };
  }
  if (f.type === 'json_object') return { type: 'json_object' };
  return undefined;
}

/** Decodes a Responses request; `history` (messages of `previous_response_id`) comes before the new input. */
export function decodeRequest(body: unknown, history: Message[] = []): CanonicalRequest {
  if (!isObj(body)) throw bad('body', 'must be a JSON object');
  const model = str(body.model, 'model');
  if (!model) throw bad('model', 'is required');
  const dropped: string[] = [];
  const messages: Message[] = [];
  const instructions = str(body.instructions, 'instructions');
  if (instructions) messages.push({ role: 'system', parts: [{ type: 'text', text: instructions }] });
  messages.push(...history, ...decodeInput(body.input, dropped));
  const stream = body.stream === true;
  const req: CanonicalRequest = {
    model,
    messages,
    stream,
    includeUsage: true,
    extra: unknownFields(body, KNOWN),
    sourceFormat: 'responses',
    dropped,
  };
  const tools = decodeTools(body.tools, dropped);
  if (tools) req.tools = tools;
  const tc = decodeToolChoice(body.tool_choice);
  if (tc) req.toolChoice = tc;
  if (typeof body.parallel_tool_calls === 'boolean') req.parallelToolCalls = body.parallel_tool_calls;
  const max = tokenCount(body.max_output_tokens, 'max_output_tokens');
  if (max !== undefined) req.maxTokens = max;
  const t = num(body.temperature, 'temperature');
  if (t !== undefined) req.temperature = t;
  const tp = num(body.top_p, 'top_p');
  if (tp !== undefined) req.topP = tp;
  if (isObj(body.reasoning) && typeof body.reasoning.effort === 'string') {
    const effort = body.reasoning.effort;
    req.reasoning =
      effort === 'none'
        ? { enabled: false }
        : {
            effort: effort === 'xhigh' ? 'high' : effort,
            budgetTokens: budgetForEffort(effort === 'xhigh' ? 'high' : effort),
            includeThoughts: true,
          };
  }
  const rf = decodeTextFormat(body.text);
  if (rf) req.responseFormat = rf;
  if (typeof body.user === 'string') req.user = body.user;
  else if (typeof body.safety_identifier === 'string') req.user = body.safety_identifier;
  return req;
}

// ---------- the Response object ----------

export function usageToResponses(u: Usage): Record<string, unknown> {
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedInputTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

/** Response fields that echo the request. */
export interface ResponseEcho {
  /** Names of the caller's freeform (custom) tools: their calls are answered as `custom_tool_call` items. */
  customTools?: ReadonlySet<string>;
  previousResponseId?: string | null;
  store?: boolean;
}

function statusOf(reason: FinishReason | null): { status: string; incomplete: Record<string, string> | null } {
  if (reason === 'length') return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
  if (reason === 'content_filter') return { status: 'incomplete', incomplete: { reason: 'content_filter' } };
  return { status: 'completed', incomplete: null };
}

function callItem(id: string, callId: string, name: string, args: string, custom: boolean, status = 'completed'): Record<string, unknown> {
  if (custom) return { type: 'custom_tool_call', id, call_id: callId, name, input: customInput(args), status };
  return { type: 'function_call', id, call_id: callId, name, arguments: args, status };
}

function responseObject(
  id: string,
  created: number,
  model: string,
  output: unknown[],
  usage: Usage | null,
  reason: FinishReason | null,
  echo: ResponseEcho,
  status?: string,
): Record<string, unknown> {
  const s = statusOf(reason);
  return {
    id,
    object: 'response',
    created_at: created,
    status: status ?? s.status,
    error: null,
    incomplete_details: status ? null : s.incomplete,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: echo.previousResponseId ?? null,
    store: echo.store ?? true,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    usage: usage ? usageToResponses(usage) : null,
    metadata: {},
  };
}

export const responseId = (requestId: string): string => `resp_${requestId}`;

export function encodeResponse(
  res: CanonicalResponse,
  clientModel: string,
  requestId: string,
  echo: ResponseEcho = {},
): Record<string, unknown> {
  const c = res.choices[0];
  const output: unknown[] = [];
  if (c) {
    const thinking = c.parts
      .filter((p) => p.type === 'thinking')
      .map((p) => (p as { text: string }).text)
      .join('');
    if (thinking) output.push({ type: 'reasoning', id: `rs_${requestId}`, summary: [{ type: 'summary_text', text: thinking }] });
    const text = textOf(c.parts.filter((p) => p.type === 'text'));
    if (text || !c.toolCalls.length) {
      output.push({
        type: 'message',
        id: `msg_${requestId}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
      });
    }
    c.toolCalls.forEach((t, i) =>
      output.push(callItem(`fc_${requestId}_${i}`, t.id, t.name, t.arguments, !!echo.customTools?.has(t.name))),
    );
  }
  return responseObject(
    responseId(requestId),
    res.created ?? Math.floor(Date.now() / 1000),
    clientModel,
    output,
    res.usage ?? emptyUsage(),
    c?.finishReason ?? 'stop',
    echo,
  );
}

/** The names of a request's freeform tools (from its decoded tools). */
export function customToolNames(req: CanonicalRequest | null): Set<string> {
  return new Set((req?.tools ?? []).filter((t) => t.freeform).map((t) => t.name));
}

// ---------- the event stream ----------

interface OpenItem {
  kind: 'message' | 'reasoning' | 'call';
  index: number;
  id: string;
  text: string;
  callId?: string;
  name?: string;
  custom?: boolean;
}

/**
 * Canonical stream events → the Responses event stream (`event: <type>` + JSON with `sequence_number`).
 * `echo` carries what the final Response repeats; `onDone` receives the output items and the usage.
 */
export function createStreamEncoder(
  opts: StreamEncoderOptions,
  echo: ResponseEcho = {},
  onDone?: (output: unknown[], usage: Usage) => void,
): StreamEncoder {
  const id = responseId(opts.requestId);
  const created = opts.created ?? Math.floor(Date.now() / 1000);
  let seq = 0;
  let started = false;
  let ended = false;
  let usage: Usage | null = null;
  let reason: FinishReason | null = null;
  const output: unknown[] = [];
  let open: OpenItem | null = null;
  const toolItems = new Map<number, OpenItem>();
  const ev = (type: string, data: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`;
  const start = (): string => {
    if (started) return '';
    started = true;
    const r = responseObject(id, created, opts.model, [], null, null, echo, 'in_progress');
    return ev('response.created', { response: r }) + ev('response.in_progress', { response: r });
  };
  const close = (): string => {
    const o = open;
    if (!o) return '';
    open = null;
    let s = '';
    if (o.kind === 'message') {
      const part = { type: 'output_text', text: o.text, annotations: [], logprobs: [] };
      s += ev('response.output_text.done', { item_id: o.id, output_index: o.index, content_index: 0, text: o.text, logprobs: [] });
      s += ev('response.content_part.done', { item_id: o.id, output_index: o.index, content_index: 0, part });
      const item = { type: 'message', id: o.id, status: 'completed', role: 'assistant', content: [part] };
      output[o.index] = item;
      s += ev('response.output_item.done', { output_index: o.index, item });
    } else if (o.kind === 'reasoning') {
      const part = { type: 'summary_text', text: o.text };
      s += ev('response.reasoning_summary_text.done', { item_id: o.id, output_index: o.index, summary_index: 0, text: o.text });
      s += ev('response.reasoning_summary_part.done', { item_id: o.id, output_index: o.index, summary_index: 0, part });
      const item = { type: 'reasoning', id: o.id, summary: [part] };
      output[o.index] = item;
      s += ev('response.output_item.done', { output_index: o.index, item });
    } else {
      if (o.custom) s += ev('response.custom_tool_call_input.done', { item_id: o.id, output_index: o.index, input: customInput(o.text) });
      else s += ev('response.function_call_arguments.done', { item_id: o.id, output_index: o.index, arguments: o.text });
      const item = callItem(o.id, o.callId!, o.name!, o.text, !!o.custom);
      output[o.index] = item;
      s += ev('response.output_item.done', { output_index: o.index, item });
    }
    return s;
  };
  const openMessage = (): string => {
    if (open?.kind === 'message') return '';
    let s = close();
    open = { kind: 'message', index: output.length, id: `msg_${opts.requestId}_${output.length}`, text: '' };
    output.push(null);
    s += ev('response.output_item.added', {
      output_index: open.index,
      item: { type: 'message', id: open.id, status: 'in_progress', role: 'assistant', content: [] },
    });
    s += ev('response.content_part.added', {
      item_id: open.id,
      output_index: open.index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
    });
    return s;
  };
  const openReasoning = (): string => {
    if (open?.kind === 'reasoning') return '';
    let s = close();
    open = { kind: 'reasoning', index: output.length, id: `rs_${opts.requestId}_${output.length}`, text: '' };
    output.push(null);
    s += ev('response.output_item.added', { output_index: open.index, item: { type: 'reasoning', id: open.id, summary: [] } });
    s += ev('response.reasoning_summary_part.added', {
      item_id: open.id,
      output_index: open.index,
      summary_index: 0,
      part: { type: 'summary_text', text: '' },
    });
    return s;
  };
  return {
    push(e) {
      if (ended) return '';
      let s = start();
      switch (e.type) {
        case 'start':
          return s;
        case 'text':
          if (e.index !== 0 || !e.text) return s;
          s += openMessage();
          open!.text += e.text;
          return (
            s +
            ev('response.output_text.delta', {
              item_id: open!.id,
              output_index: open!.index,
              content_index: 0,
              delta: e.text,
              logprobs: [],
            })
          );
        case 'thinking':
          if (e.index !== 0 || !e.text) return s;
          s += openReasoning();
          open!.text += e.text;
          return (
            s +
            ev('response.reasoning_summary_text.delta', { item_id: open!.id, output_index: open!.index, summary_index: 0, delta: e.text })
          );
        case 'tool_call_start': {
          if (e.index !== 0) return s;
          s += close();
          const custom = !!echo.customTools?.has(e.name);
          const item: OpenItem = {
            kind: 'call',
            index: output.length,
            id: `fc_${opts.requestId}_${output.length}`,
            text: '',
            callId: e.id,
            name: e.name,
            custom,
          };
          output.push(null);
          open = item;
          toolItems.set(e.toolIndex, item);
          return (
            s +
            ev('response.output_item.added', { output_index: item.index, item: callItem(item.id, e.id, e.name, '', custom, 'in_progress') })
          );
        }
        case 'tool_call_args': {
          const item = toolItems.get(e.toolIndex);
          if (e.index !== 0 || !item || !e.delta) return s;
          item.text += e.delta;
          // Arguments of a call that is no longer the open item (interleaved calls) are kept for its done event only.
          if (open !== item) return s;
          return (
            s +
            (item.custom
              ? ''
              : ev('response.function_call_arguments.delta', { item_id: item.id, output_index: item.index, delta: e.delta }))
          );
        }
        case 'finish':
          if (e.index === 0) reason = e.reason;
          return s;
        case 'usage':
          usage = e.usage;
          return s;
        case 'error':
          ended = true;
          return (
            s +
            ev('error', { code: e.code ?? 'upstream_error', message: e.message, param: null }) +
            ev('response.failed', {
              response: {
                ...responseObject(id, created, opts.model, output.filter(Boolean), usage, null, echo, 'failed'),
                error: { code: 'server_error', message: e.message },
              },
            })
          );
      }
      return s;
    },
    end() {
      if (ended) return '';
      ended = true;
      let s = start() + close();
      // Calls that were interleaved and not closed in order.
      for (const item of toolItems.values())
        if (output[item.index] === null) output[item.index] = callItem(item.id, item.callId!, item.name!, item.text, !!item.custom);
      const items = output.filter(Boolean);
      const u = usage ?? emptyUsage();
      onDone?.(items, u);
      const final = responseObject(id, created, opts.model, items, u, reason ?? 'stop', echo);
      s += ev(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final });
      return s;
    },
  };
}

function customInput(args: string): string {
  try {
    const v = JSON.parse(args) as unknown;
    return isObj(v) && typeof v.input === 'string' ? v.input : args;
  } catch {
    return args;
  }
}

/** The stream's error event in the Responses family (a balance that ran out mid-stream, an upstream failure). */
export function streamError(code: string, message: string): string {
  return `event: error\ndata: ${JSON.stringify({ type: 'error', code, message, param: null, sequence_number: 0 })}\n\n`;
}

/** Output items of a Response as canonical messages (for `previous_response_id`). */
export function outputMessages(output: unknown[]): Message[] {
  const dropped: string[] = [];
  return decodeInput(
    output.map((o) => (isObj(o) && o.type === 'message' ? { ...o, role: 'assistant' } : o)),
    dropped,
  );
}
