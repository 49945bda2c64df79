/** OpenAI chat completions ⇄ canonical. */
import type {
  AssistantMessage,
  CanonicalChoice,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalStreamEvent,
  ContentPart,
  FinishReason,
  Message,
  ResponseFormat,
  StreamDecoder,
  StreamEncoder,
  StreamEncoderOptions,
  Tool,
  ToolCall,
  ToolChoice,
  Usage,
} from '../canonical.ts';
import {
  applyExtra,
  choiceCount,
  tokenCount,
  bad,
  budgetForEffort,
  effortForBudget,
  emptyUsage,
  eventJson,
  idWithSignature,
  imageFromUrl,
  imageUrlOf,
  int,
  isObj,
  n0,
  newToolCallId,
  num,
  parseDataUrl,
  splitSignedId,
  sse,
  str,
  textOf,
  unknownFields,
} from '../canonical.ts';

const KNOWN = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'temperature',
  'top_p',
  'top_k',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'max_tokens',
  'max_completion_tokens',
  'stop',
  'n',
  'stream',
  'stream_options',
  'response_format',
  'reasoning_effort',
  'user',
  'functions',
  'function_call',
]);

// ---------- thinking blocks ----------
//
// Anthropic thinking comes with a signature (and sometimes as encrypted redacted_thinking), which the
// vendor wants back with the next turn when tools are in play. The OpenAI format has no field for it,
// so, as LiteLLM does, messages carry `thinking_blocks` beside `reasoning_content`:
// `[{ type: 'thinking', thinking, signature } | { type: 'redacted_thinking', data }]`. In a stream,
// each `thinking_blocks` entry of a delta is one whole block, sent when its signature arrives (the
// text also streams as `reasoning_content`).

type ThinkingOut = { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string };

/** `thinking_blocks` of a message as thinking parts; `field` set: a malformed entry is a 400. */
function decodeThinkingBlocks(v: unknown, field?: string): ContentPart[] {
  if (!Array.isArray(v)) {
    if (field && v !== undefined && v !== null) throw bad(field, 'must be an array of thinking blocks');
    return [];
  }
  const out: ContentPart[] = [];
  v.forEach((b, i) => {
    if (
      isObj(b) &&
      b.type === 'thinking' &&
      typeof b.thinking === 'string' &&
      (b.signature === undefined || typeof b.signature === 'string')
    ) {
      out.push({ type: 'thinking', text: b.thinking, ...(b.signature ? { signature: b.signature } : {}), from: 'anthropic' });
    } else if (isObj(b) && b.type === 'redacted_thinking' && typeof b.data === 'string') {
      out.push({ type: 'thinking', text: '', redacted: b.data, from: 'anthropic' });
    } else if (field) {
      throw bad(`${field}[${i}]`, 'must be {type: "thinking", thinking, signature} or {type: "redacted_thinking", data}');
    }
  });
  return out;
}

/** The thinking parts that carry an Anthropic signature or redacted data, as `thinking_blocks`. */
function thinkingBlocksOut(parts: readonly ContentPart[]): ThinkingOut[] {
  const out: ThinkingOut[] = [];
  for (const p of parts) {
    if (p.type !== 'thinking' || p.from === 'gemini') continue;
    if (p.redacted) out.push({ type: 'redacted_thinking', data: p.redacted });
    else if (p.signature) out.push({ type: 'thinking', thinking: p.text, signature: p.signature });
  }
  return out;
}

/** Thinking of an assistant message or response: the blocks when given (they hold the text too), else the reasoning text. */
function thinkingParts(m: Record<string, any>, field?: string): ContentPart[] {
  const blocks = decodeThinkingBlocks(m.thinking_blocks, field);
  if (blocks.length) return blocks;
  const reasoning = typeof m.reasoning_content === 'string' ? m.reasoning_content : typeof m.reasoning === 'string' ? m.reasoning : '';
  return reasoning ? [{ type: 'thinking', text: reasoning }] : [];
}

// ---------- request ----------

function decodeContent(content: unknown, field: string): ContentPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw bad(field, 'must be a string or an array of content parts');
  const parts: ContentPart[] = [];
  content.forEach((p, i) => {
    const f = `${field}[${i}]`;
    if (!isObj(p)) throw bad(f, 'must be an object');
    switch (p.type) {
      case 'text':
        parts.push({ type: 'text', text: str(p.text, `${f}.text`) ?? '' });
        break;
      case 'image_url': {
        const iu = p.image_url;
        const url = typeof iu === 'string' ? iu : isObj(iu) ? iu.url : undefined;
        if (typeof url !== 'string' || !url) throw bad(`${f}.image_url.url`, 'is required');
        parts.push(imageFromUrl(url, isObj(iu) && typeof iu.detail === 'string' ? iu.detail : undefined));
        break;
      }
      case 'input_audio': {
        const a = p.input_audio;
        if (!isObj(a) || typeof a.data !== 'string') throw bad(`${f}.input_audio.data`, 'is required');
        parts.push({ type: 'audio', data: a.data, format: typeof a.format === 'string' ? a.format : 'wav' });
        break;
      }
      case 'file': {
        const fl = isObj(p.file) ? p.file : {};
        if (typeof fl.file_data === 'string') {
          const d = parseDataUrl(fl.file_data);
          parts.push({
            type: 'file',
            mediaType: d?.mediaType ?? 'application/pdf',
            data: d ? d.data : fl.file_data,
            filename: fl.filename,
          });
        } else if (typeof fl.file_id === 'string') {
          parts.push({ type: 'file', url: fl.file_id, filename: fl.filename });
        } else throw bad(`${f}.file`, 'needs file_data or file_id');
        break;
      }
      case 'refusal':
        parts.push({ type: 'text', text: typeof p.refusal === 'string' ? p.refusal : '' });
        break;
      default:
        throw bad(`${f}.type`, `is not a supported content part type (${String(p.type)})`);
    }
  });
  return parts;
}

function decodeToolCalls(v: unknown, field: string): ToolCall[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw bad(field, 'must be an array');
  return v.map((tc, i) => {
    const f = `${field}[${i}]`;
    if (!isObj(tc) || !isObj(tc.function)) throw bad(`${f}.function`, 'is required');
    const name = str(tc.function.name, `${f}.function.name`);
    if (!name) throw bad(`${f}.function.name`, 'is required');
    const rawArgs = tc.function.arguments;
    const args = typeof rawArgs === 'string' ? rawArgs : rawArgs === undefined ? '{}' : JSON.stringify(rawArgs);
    const { id, signature } = splitSignedId(typeof tc.id === 'string' && tc.id ? tc.id : newToolCallId());
    const extraSig = tc.extra_content?.google?.thought_signature;
    const call: ToolCall = { id, name, arguments: args };
    const sig = typeof extraSig === 'string' ? extraSig : signature;
    if (sig) call.thoughtSignature = sig;
    return call;
  });
}

function decodeMessages(v: unknown, dropped: string[]): Message[] {
  if (v === undefined) throw bad('messages', 'is required');
  if (!Array.isArray(v)) throw bad('messages', 'must be an array');
  const out: Message[] = [];
  v.forEach((m, i) => {
    const f = `messages[${i}]`;
    if (!isObj(m)) throw bad(f, 'must be an object');
    const role = m.role;
    switch (role) {
      case 'system':
      case 'developer':
        out.push({ role: 'system', parts: decodeContent(m.content, `${f}.content`) });
        break;
      case 'user':
        out.push({
          role: 'user',
          parts: decodeContent(m.content, `${f}.content`),
          ...(typeof m.name === 'string' ? { name: m.name } : {}),
        });
        break;
      case 'assistant': {
        const parts: ContentPart[] = thinkingParts(m, `${f}.thinking_blocks`);
        parts.push(...decodeContent(m.content, `${f}.content`));
        const toolCalls = decodeToolCalls(m.tool_calls, `${f}.tool_calls`);
        if (isObj(m.function_call) && typeof m.function_call.name === 'string') {
          toolCalls.push({ id: newToolCallId(), name: m.function_call.name, arguments: String(m.function_call.arguments ?? '{}') });
        }
        const msg: AssistantMessage = { role: 'assistant', parts, toolCalls };
        if (typeof m.name === 'string') msg.name = m.name;
        out.push(msg);
        break;
      }
      case 'tool': {
        const id = str(m.tool_call_id, `${f}.tool_call_id`);
        if (!id) throw bad(`${f}.tool_call_id`, 'is required');
        out.push({ role: 'tool', toolCallId: splitSignedId(id).id, parts: decodeContent(m.content, `${f}.content`) });
        break;
      }
      case 'function': {
        // Legacy function result: pair it with the latest call of that name.
        const name = str(m.name, `${f}.name`) ?? '';
        let id = '';
        for (let k = out.length - 1; k >= 0 && !id; k--) {
          const prev = out[k];
          if (prev.role === 'assistant') id = prev.toolCalls.find((c) => c.name === name)?.id ?? '';
        }
        out.push({ role: 'tool', toolCallId: id || newToolCallId(), name, parts: decodeContent(m.content, `${f}.content`) });
        break;
      }
      default:
        throw bad(`${f}.role`, `is not a valid role (${JSON.stringify(role)}); expected system, developer, user, assistant or tool`);
    }
  });
  if (v.some((m) => isObj(m) && m.role === 'function')) dropped.push('messages[].role=function (legacy; converted to tool)');
  return out;
}

function decodeTools(body: Record<string, any>): Tool[] | undefined {
  const tools: Tool[] = [];
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) throw bad('tools', 'must be an array');
    body.tools.forEach((t: unknown, i: number) => {
      if (!isObj(t) || !isObj(t.function)) throw bad(`tools[${i}].function`, 'is required');
      const name = str(t.function.name, `tools[${i}].function.name`);
      if (!name) throw bad(`tools[${i}].function.name`, 'is required');
      const tool: Tool = { name };
      if (typeof t.function.description === 'string') tool.description = t.function.description;
      if (isObj(t.function.parameters)) tool.parameters = t.function.parameters;
      if (typeof t.function.strict === 'boolean') tool.strict = t.function.strict;
      tools.push(tool);
    });
  }
  if (Array.isArray(body.functions)) {
    for (const fn of body.functions)
      if (isObj(fn) && typeof fn.name === 'string') tools.push({ name: fn.name, description: fn.description, parameters: fn.parameters });
  }
  return tools.length ? tools : undefined;
}

function decodeToolChoice(v: unknown): ToolChoice | undefined {
  if (v === undefined || v === null) return undefined;
  if (v === 'auto' || v === 'none' || v === 'required') return v;
  if (isObj(v) && isObj(v.function) && typeof v.function.name === 'string') return { name: v.function.name };
  if (isObj(v) && typeof v.name === 'string') return { name: v.name }; // legacy function_call
  throw bad('tool_choice', 'must be "auto", "none", "required" or {"type":"function","function":{"name":…}}');
}

function decodeResponseFormat(v: unknown): ResponseFormat | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) throw bad('response_format', 'must be an object');
  if (v.type === 'text' || v.type === 'json_object') return { type: v.type };
  if (v.type === 'json_schema') {
    const js = isObj(v.json_schema) ? v.json_schema : {};
    return {
      type: 'json_schema',
      name: js.name,
      description: js.description,
      schema: isObj(js.schema) ? js.schema : undefined,
      strict: js.strict,
    };
  }
  throw bad('response_format.type', 'must be text, json_object or json_schema');
}

export function decodeRequest(body: unknown): CanonicalRequest {
  if (!isObj(body)) throw bad('body', 'must be a JSON object');
  const model = str(body.model, 'model');
  if (!model) throw bad('model', 'is required');
  const dropped: string[] = [];
  const messages = decodeMessages(body.messages, dropped);
  let stop: string[] | undefined;
  if (typeof body.stop === 'string') stop = [body.stop];
  else if (Array.isArray(body.stop)) stop = body.stop.map((s: unknown, i: number) => str(s, `stop[${i}]`) as string);
  else if (body.stop !== undefined && body.stop !== null) throw bad('stop', 'must be a string or an array of strings');
  const maxCompletion = tokenCount(body.max_completion_tokens, 'max_completion_tokens');
  const maxTokens = tokenCount(body.max_tokens, 'max_tokens');
  const stream = body.stream === true;
  const req: CanonicalRequest = {
    model,
    messages,
    stream,
    includeUsage: stream && isObj(body.stream_options) && body.stream_options.include_usage === true,
    extra: unknownFields(body, KNOWN),
    sourceFormat: 'openai',
    dropped,
  };
  const tools = decodeTools(body);
  if (tools) req.tools = tools;
  const tc = decodeToolChoice(body.tool_choice ?? body.function_call);
  if (tc) req.toolChoice = tc;
  if (typeof body.parallel_tool_calls === 'boolean') req.parallelToolCalls = body.parallel_tool_calls;
  const t = num(body.temperature, 'temperature');
  if (t !== undefined) req.temperature = t;
  const tp = num(body.top_p, 'top_p');
  if (tp !== undefined) req.topP = tp;
  const tk = int(body.top_k, 'top_k');
  if (tk !== undefined) req.topK = tk;
  const seed = int(body.seed, 'seed');
  if (seed !== undefined) req.seed = seed;
  const pp = num(body.presence_penalty, 'presence_penalty');
  if (pp !== undefined) req.presencePenalty = pp;
  const fp = num(body.frequency_penalty, 'frequency_penalty');
  if (fp !== undefined) req.frequencyPenalty = fp;
  if (maxCompletion !== undefined) {
    req.maxTokens = maxCompletion;
    req.openaiMaxTokensField = 'max_completion_tokens';
  } else if (maxTokens !== undefined) {
    req.maxTokens = maxTokens;
    req.openaiMaxTokensField = 'max_tokens';
  }
  if (stop) req.stop = stop;
  const n = choiceCount(body.n, 'n');
  if (n !== undefined) req.n = n;
  const rf = decodeResponseFormat(body.response_format);
  if (rf) req.responseFormat = rf;
  const effort = str(body.reasoning_effort, 'reasoning_effort');
  if (effort) req.reasoning = effort === 'none' ? { enabled: false, effort } : { effort, budgetTokens: budgetForEffort(effort) };
  if (typeof body.user === 'string') req.user = body.user;
  return req;
}

function encodeParts(parts: ContentPart[], dropped: string[], where: string): string | Record<string, unknown>[] {
  const visible = parts.filter((p) => p.type !== 'thinking');
  if (visible.length <= 1 && visible.every((p) => p.type === 'text')) return textOf(visible);
  const out: Record<string, unknown>[] = [];
  for (const p of visible) {
    switch (p.type) {
      case 'text':
        out.push({ type: 'text', text: p.text });
        break;
      case 'image':
        out.push({ type: 'image_url', image_url: { url: imageUrlOf(p.source), ...(p.detail ? { detail: p.detail } : {}) } });
        break;
      case 'audio':
        out.push({ type: 'input_audio', input_audio: { data: p.data, format: p.format } });
        break;
      case 'file':
        if (p.data)
          out.push({
            type: 'file',
            file: {
              file_data: `data:${p.mediaType ?? 'application/pdf'};base64,${p.data}`,
              ...(p.filename ? { filename: p.filename } : {}),
            },
          });
        else if (p.url && !/^https?:/i.test(p.url)) out.push({ type: 'file', file: { file_id: p.url } });
        else dropped.push(`${where}: file by URL (${p.mediaType ?? 'unknown type'})`);
        break;
    }
  }
  return out;
}

export function encodeRequest(req: CanonicalRequest, upstreamModel: string): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  let thinkingDropped = false;
  req.messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    switch (m.role) {
      case 'system':
        messages.push({ role: 'system', content: encodeParts(m.parts, req.dropped, where) });
        break;
      case 'user':
        messages.push({ role: 'user', content: encodeParts(m.parts, req.dropped, where), ...(m.name ? { name: m.name } : {}) });
        break;
      case 'assistant': {
        if (m.parts.some((p) => p.type === 'thinking')) thinkingDropped = true;
        const content = encodeParts(m.parts, req.dropped, where);
        const msg: Record<string, unknown> = { role: 'assistant', content: content === '' && m.toolCalls.length ? null : content };
        if (m.name) msg.name = m.name;
        if (m.toolCalls.length) {
          msg.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
        }
        messages.push(msg);
        break;
      }
      case 'tool': {
        // OpenAI tool results carry text only
        const texts = m.parts.filter((p) => p.type === 'text');
        if (texts.length < m.parts.length) req.dropped.push(`${where}: non-text tool result content`);
        messages.push({
          role: 'tool',
          tool_call_id: m.toolCallId,
          content: m.isError && texts.length ? `Error: ${textOf(texts)}` : textOf(texts),
        });
        break;
      }
    }
  });
  if (thinkingDropped && req.sourceFormat !== 'openai') req.dropped.push('thinking blocks of earlier assistant turns');
  const body: Record<string, unknown> = { model: upstreamModel, messages };
  if (req.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.topK !== undefined) {
    if (req.sourceFormat === 'openai') body.top_k = req.topK;
    else req.dropped.push('top_k');
  }
  if (req.seed !== undefined) body.seed = req.seed;
  if (req.presencePenalty !== undefined) body.presence_penalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) body.frequency_penalty = req.frequencyPenalty;
  if (req.maxTokens !== undefined) body[req.openaiMaxTokensField ?? 'max_tokens'] = req.maxTokens;
  if (req.stop?.length) body.stop = req.stop;
  if (req.n !== undefined && req.n !== 1) body.n = req.n;
  if (req.tools?.length) {
    const tools: Record<string, unknown>[] = [];
    for (const t of req.tools) {
      if (t.native) {
        req.dropped.push(`tools.${t.name} (native ${t.native.format} tool)`);
        continue;
      }
      const fn: Record<string, unknown> = { name: t.name };
      if (t.description !== undefined) fn.description = t.description;
      fn.parameters = t.parameters ?? { type: 'object', properties: {} };
      if (t.strict !== undefined) fn.strict = t.strict;
      tools.push({ type: 'function', function: fn });
    }
    if (tools.length) body.tools = tools;
  }
  if (req.toolChoice && body.tools)
    body.tool_choice = typeof req.toolChoice === 'string' ? req.toolChoice : { type: 'function', function: { name: req.toolChoice.name } };
  if (req.parallelToolCalls !== undefined && body.tools) body.parallel_tool_calls = req.parallelToolCalls;
  if (req.responseFormat) {
    const rf = req.responseFormat;
    if (rf.type === 'json_schema') {
      const js: Record<string, unknown> = { name: rf.name ?? 'response', schema: rf.schema ?? {} };
      if (rf.description) js.description = rf.description;
      if (rf.strict !== undefined) js.strict = rf.strict;
      body.response_format = { type: 'json_schema', json_schema: js };
    } else body.response_format = { type: rf.type };
  }
  if (req.reasoning) {
    const r = req.reasoning;
    const effort =
      r.effort ?? (r.enabled === false ? undefined : r.budgetTokens !== undefined ? effortForBudget(r.budgetTokens) : undefined);
    if (effort) body.reasoning_effort = effort;
    else if (r.enabled === false && req.sourceFormat !== 'openai') req.dropped.push('thinking disabled (no OpenAI equivalent)');
  }
  if (req.user) body.user = req.user;
  applyExtra('openai', req, body);
  return body;
}

// ---------- usage ----------

export function usageFromOpenAI(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  return {
    inputTokens: n0(u.prompt_tokens),
    outputTokens: n0(u.completion_tokens),
    cachedInputTokens: n0(u.prompt_tokens_details?.cached_tokens ?? u.prompt_cache_hit_tokens),
    cacheWriteTokens: n0(u.prompt_tokens_details?.cache_write_tokens ?? u.cache_creation_input_tokens),
    reasoningTokens: n0(u.completion_tokens_details?.reasoning_tokens),
  };
}

export function usageToOpenAI(u: Usage): Record<string, unknown> {
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

export function usageFromResponse(body: unknown): Usage | null {
  return isObj(body) ? usageFromOpenAI(body.usage) : null;
}

export function usageFromStreamEvent(ev: { event?: string; data: string }): Partial<Usage> | null {
  if (!ev.data.includes('"usage"')) return null;
  try {
    const j = JSON.parse(ev.data);
    return isObj(j) ? usageFromOpenAI(j.usage) : null;
  } catch {
    return null;
  }
}

// ---------- response ----------

const FINISH_IN: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
};

export const finishFromOpenAI = (r: unknown): FinishReason => (typeof r === 'string' && FINISH_IN[r]) || 'stop';
const finishToOpenAI = (r: FinishReason): string => (r === 'error' ? 'stop' : r);

export function decodeResponse(body: unknown): CanonicalResponse {
  if (!isObj(body)) throw bad('upstream response', 'is not a JSON object');
  const dropped: string[] = [];
  const choices: CanonicalChoice[] = (Array.isArray(body.choices) ? body.choices : []).map((c: any, i: number): CanonicalChoice => {
    const m = isObj(c?.message) ? c.message : {};
    const parts: ContentPart[] = thinkingParts(m);
    if (typeof m.content === 'string' && m.content) parts.push({ type: 'text', text: m.content });
    else if (Array.isArray(m.content)) parts.push(...decodeContent(m.content, 'content'));
    if (typeof m.refusal === 'string' && m.refusal) parts.push({ type: 'text', text: m.refusal });
    if (c?.logprobs) dropped.push('logprobs');
    let toolCalls: ToolCall[] = [];
    try {
      toolCalls = decodeToolCalls(m.tool_calls, 'tool_calls');
    } catch {
      toolCalls = [];
    }
    return { index: typeof c?.index === 'number' ? c.index : i, parts, toolCalls, finishReason: finishFromOpenAI(c?.finish_reason) };
  });
  return {
    id: typeof body.id === 'string' ? body.id : '',
    model: typeof body.model === 'string' ? body.model : undefined,
    created: typeof body.created === 'number' ? body.created : undefined,
    choices,
    usage: usageFromOpenAI(body.usage) ?? emptyUsage(),
    dropped,
  };
}

function toolCallOut(c: ToolCall, index?: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (index !== undefined) out.index = index;
  out.id = idWithSignature(c.id, c.thoughtSignature);
  out.type = 'function';
  out.function = { name: c.name, arguments: c.arguments };
  if (c.thoughtSignature) out.extra_content = { google: { thought_signature: c.thoughtSignature } };
  return out;
}

function visibleText(parts: ContentPart[]): string {
  let s = '';
  for (const p of parts) {
    if (p.type === 'text') s += p.text;
    else if (p.type === 'image') s += `![image](${imageUrlOf(p.source)})`;
  }
  return s;
}

export function encodeResponse(res: CanonicalResponse, clientModel: string, requestId: string): Record<string, unknown> {
  return {
    id: res.id && res.id.startsWith('chatcmpl') ? res.id : `chatcmpl-${requestId}`,
    object: 'chat.completion',
    created: res.created ?? Math.floor(Date.now() / 1000),
    model: clientModel,
    choices: res.choices.map((c) => {
      const message: Record<string, unknown> = { role: 'assistant', content: null };
      const text = visibleText(c.parts);
      const thinking = c.parts
        .filter((p) => p.type === 'thinking')
        .map((p) => (p as { text: string }).text)
        .join('');
      message.content = text || (c.toolCalls.length ? null : '');
      if (thinking) message.reasoning_content = thinking;
      const blocks = thinkingBlocksOut(c.parts);
      if (blocks.length) message.thinking_blocks = blocks;
      if (c.toolCalls.length) message.tool_calls = c.toolCalls.map((t) => toolCallOut(t));
      return { index: c.index, message, logprobs: null, finish_reason: finishToOpenAI(c.finishReason) };
    }),
    usage: usageToOpenAI(res.usage),
  };
}

// ---------- streams ----------

export function createStreamDecoder(): StreamDecoder {
  let started = false;
  const seenTools = new Map<string, string>(); // `${choice}:${toolIndex}` → id
  return {
    push(ev) {
      const j = eventJson(ev.data);
      if (!j) return [];
      const out: CanonicalStreamEvent[] = [];
      if (isObj(j.error)) {
        out.push({
          type: 'error',
          message: String(j.error.message ?? 'upstream error'),
          code: j.error.code ? String(j.error.code) : undefined,
        });
        return out;
      }
      if (!started) {
        started = true;
        out.push({
          type: 'start',
          id: typeof j.id === 'string' ? j.id : undefined,
          model: typeof j.model === 'string' ? j.model : undefined,
        });
      }
      for (const c of Array.isArray(j.choices) ? j.choices : []) {
        const index = typeof c?.index === 'number' ? c.index : 0;
        const d = isObj(c?.delta) ? c.delta : {};
        const reasoning =
          typeof d.reasoning_content === 'string' ? d.reasoning_content : typeof d.reasoning === 'string' ? d.reasoning : '';
        if (reasoning) out.push({ type: 'thinking', index, text: reasoning });
        // The text of a block came as reasoning_content; the block adds its signature or redacted data.
        for (const b of decodeThinkingBlocks(d.thinking_blocks)) {
          if (b.type !== 'thinking') continue;
          if (b.redacted) out.push({ type: 'thinking', index, redacted: b.redacted, from: 'anthropic' });
          else if (b.signature) out.push({ type: 'thinking', index, signature: b.signature, from: 'anthropic' });
        }
        if (typeof d.content === 'string' && d.content) out.push({ type: 'text', index, text: d.content });
        if (typeof d.refusal === 'string' && d.refusal) out.push({ type: 'text', index, text: d.refusal });
        if (Array.isArray(d.tool_calls)) {
          d.tool_calls.forEach((tc: any, k: number) => {
            const toolIndex = typeof tc?.index === 'number' ? tc.index : k;
            const key = `${index}:${toolIndex}`;
            if (!seenTools.has(key) && (tc?.id || tc?.function?.name)) {
              const { id, signature } = splitSignedId(typeof tc.id === 'string' && tc.id ? tc.id : newToolCallId());
              seenTools.set(key, id);
              const sig = tc.extra_content?.google?.thought_signature ?? signature;
              out.push({
                type: 'tool_call_start',
                index,
                toolIndex,
                id,
                name: String(tc.function?.name ?? ''),
                ...(sig ? { thoughtSignature: sig } : {}),
              });
            }
            const args = tc?.function?.arguments;
            if (typeof args === 'string' && args) out.push({ type: 'tool_call_args', index, toolIndex, delta: args });
          });
        }
        if (c?.finish_reason) out.push({ type: 'finish', index, reason: finishFromOpenAI(c.finish_reason) });
      }
      const u = usageFromOpenAI(j.usage);
      if (u) out.push({ type: 'usage', usage: u });
      return out;
    },
    end() {
      return [];
    },
  };
}

export function createStreamEncoder(opts: StreamEncoderOptions): StreamEncoder {
  const id = `chatcmpl-${opts.requestId}`;
  const created = opts.created ?? Math.floor(Date.now() / 1000);
  const roleSent = new Set<number>();
  /** Thinking text of each choice since its last signed block. */
  const thought = new Map<number, string>();
  let usage: Usage | null = null;
  let ended = false;
  const chunk = (choices: unknown[], extra?: Record<string, unknown>): string => {
    const c: Record<string, unknown> = { id, object: 'chat.completion.chunk', created, model: opts.model, choices };
    if (opts.includeUsage) c.usage = null;
    if (extra) Object.assign(c, extra);
    return sse(c);
  };
  const delta = (index: number, d: Record<string, unknown>, finish: string | null = null): string => {
    if (!roleSent.has(index)) {
      roleSent.add(index);
      d = { role: 'assistant', ...d };
    }
    return chunk([{ index, delta: d, logprobs: null, finish_reason: finish }]);
  };
  return {
    push(ev) {
      switch (ev.type) {
        case 'start':
          return '';
        case 'text':
          return ev.text ? delta(ev.index, { content: ev.text }) : '';
        case 'thinking': {
          const d: Record<string, unknown> = {};
          if (ev.text) d.reasoning_content = ev.text;
          if (ev.from !== 'gemini') {
            const text = (thought.get(ev.index) ?? '') + (ev.text ?? '');
            if (ev.redacted) d.thinking_blocks = [{ type: 'redacted_thinking', data: ev.redacted }];
            else if (ev.signature) d.thinking_blocks = [{ type: 'thinking', thinking: text, signature: ev.signature }];
            thought.set(ev.index, ev.redacted || ev.signature ? '' : text);
          }
          return d.reasoning_content || d.thinking_blocks ? delta(ev.index, d) : '';
        }
        case 'tool_call_start':
          return delta(ev.index, {
            tool_calls: [toolCallOut({ id: ev.id, name: ev.name, arguments: '', thoughtSignature: ev.thoughtSignature }, ev.toolIndex)],
          });
        case 'tool_call_args':
          return ev.delta ? delta(ev.index, { tool_calls: [{ index: ev.toolIndex, function: { arguments: ev.delta } }] }) : '';
        case 'finish':
          return delta(ev.index, {}, finishToOpenAI(ev.reason));
        case 'usage':
          usage = ev.usage;
          return '';
        case 'error':
          return sse({ error: { message: ev.message, type: 'upstream_error', code: ev.code ?? null } });
      }
      return '';
    },
    end() {
      if (ended) return '';
      ended = true;
      let s = '';
      if (opts.includeUsage) s += chunk([], { usage: usageToOpenAI(usage ?? emptyUsage()) });
      return s + 'data: [DONE]\n\n';
    },
  };
}

// ---------- errors ----------

export function errorMessage(j: unknown): string | undefined {
  if (!isObj(j)) return undefined;
  if (isObj(j.error) && typeof j.error.message === 'string') return j.error.message;
  if (typeof j.error === 'string') return j.error;
  if (typeof j.message === 'string') return j.message;
  return undefined;
}
