/** OpenAI Chat Completions requests ⇄ canonical: the codec's request section (codec.ts). */
import type { AssistantMessage, CanonicalRequest, ContentPart, Message, ResponseFormat, Tool, ToolCall, ToolChoice } from '../canonical.ts';
import {
  applyExtra,
  choiceCount,
  tokenCount,
  bad,
  budgetForEffort,
  effortForBudget,
  imageFromUrl,
  imageUrlOf,
  int,
  isObj,
  newToolCallId,
  num,
  parseDataUrl,
  splitSignedId,
  str,
  textOf,
  unknownFields,
} from '../canonical.ts';
import { thinkingParts } from './thinking.ts';

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

export function decodeContent(content: unknown, field: string): ContentPart[] {
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

export function decodeToolCalls(v: unknown, field: string): ToolCall[] {
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
