/** Responses API requests → canonical: the codec's request section (codec.ts). */
import type { AssistantMessage, CanonicalRequest, ContentPart, Message, ResponseFormat, Tool, ToolChoice } from '../canonical.ts';
import {
  bad,
  budgetForEffort,
  imageFromUrl,
  isObj,
  newToolCallId,
  num,
  parseDataUrl,
  str,
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

export function decodeInput(input: unknown, dropped: string[]): Message[] {
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
        let name = str(item.name, `${f}.name`);
        if (!name) throw bad(`${f}.name`, 'is required');
        if (typeof item.namespace === 'string' && item.namespace) name = namespacedName(item.namespace, name);
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

/** The name a tool of a `namespace` group is offered under to vendors that have no namespaces. */
export const namespacedName = (namespace: string, name: string) => `${namespace}__${name}`;

function decodeTools(v: unknown, dropped: string[], at = 'tools', ns?: string): Tool[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw bad(at, 'must be an array');
  const out: Tool[] = [];
  v.forEach((t, i) => {
    if (!isObj(t)) throw bad(`${at}[${i}]`, 'must be an object');
    // A namespace groups function and custom tools (Codex's sub-agent tools): each is offered on its own, its
    // name prefixed with the namespace's, and its calls are answered with the namespace again.
    if (t.type === 'namespace' && !ns) {
      const group = str(t.name, `${at}[${i}].name`);
      if (!group) throw bad(`${at}[${i}].name`, 'is required');
      const about = typeof t.description === 'string' && t.description ? `${t.description}\n\n` : '';
      for (const inner of decodeTools(t.tools ?? [], dropped, `${at}[${i}].tools`, group) ?? [])
        out.push({ ...inner, description: `${about}${inner.description ?? ''}`.trim() || undefined });
      return;
    }
    const withNs = (tool: Tool): Tool =>
      ns ? { ...tool, name: namespacedName(ns, tool.name), namespace: { namespace: ns, name: tool.name } } : tool;
    if (t.type === 'function') {
      const name = str(t.name, `${at}[${i}].name`);
      if (!name) throw bad(`${at}[${i}].name`, 'is required');
      const tool: Tool = { name };
      if (typeof t.description === 'string') tool.description = t.description;
      if (isObj(t.parameters)) tool.parameters = t.parameters;
      if (typeof t.strict === 'boolean') tool.strict = t.strict;
      out.push(withNs(tool));
    } else if (t.type === 'custom') {
      const name = str(t.name, `${at}[${i}].name`);
      if (!name) throw bad(`${at}[${i}].name`, 'is required');
      const grammar =
        isObj(t.format) && typeof t.format.definition === 'string'
          ? `\n\nThe input must follow this ${String(t.format.syntax ?? '')} grammar:\n${t.format.definition}`
          : '';
      out.push(
        withNs({
          name,
          description: `${typeof t.description === 'string' ? t.description : ''}${grammar}`,
          parameters: CUSTOM_TOOL_PARAMETERS,
          freeform: true,
        }),
      );
    } else {
      dropped.push(`${at}[${i}] (${String(t.type)})`);
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
      ...(typeof f.description === 'string' ? { description: f.description } : {}),
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
