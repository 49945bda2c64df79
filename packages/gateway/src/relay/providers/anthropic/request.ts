/** Anthropic Messages requests ⇄ canonical: the codec's request section (codec.ts). */
import type { CanonicalRequest, ContentPart, Message, Tool, ToolCall, ToolChoice } from '../canonical.ts';
import {
  GEMINI_SIG_PREFIX,
  applyExtra,
  tokenCount,
  argsObject,
  argsText,
  bad,
  effortForBudget,
  budgetForEffort,
  int,
  isObj,
  newToolCallId,
  num,
  pushTurn,
  splitSignedId,
  str,
} from '../canonical.ts';
import { decodeOutputFormat, encodeOutputFormat } from './structured-output.ts';

export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

const KNOWN = new Set([
  'model',
  'messages',
  'system',
  'max_tokens',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'metadata',
]);

function decodeSignature(sig: unknown): { signature?: string; from?: 'gemini' | 'anthropic' } {
  if (typeof sig !== 'string' || !sig) return {};
  if (sig.startsWith(GEMINI_SIG_PREFIX)) return { signature: sig.slice(GEMINI_SIG_PREFIX.length), from: 'gemini' };
  return { signature: sig, from: 'anthropic' };
}

function decodeBlock(b: unknown, f: string): ContentPart | null {
  if (!isObj(b)) throw bad(f, 'must be an object');
  switch (b.type) {
    case 'text': {
      const p: ContentPart = { type: 'text', text: str(b.text, `${f}.text`) ?? '' };
      if (b.cache_control) p.cacheControl = b.cache_control;
      return p;
    }
    case 'image':
    case 'document': {
      const s = b.source;
      if (!isObj(s)) throw bad(`${f}.source`, 'is required');
      let part: ContentPart;
      if (s.type === 'base64') {
        if (typeof s.data !== 'string') throw bad(`${f}.source.data`, 'is required');
        const mediaType = typeof s.media_type === 'string' ? s.media_type : b.type === 'image' ? 'image/png' : 'application/pdf';
        part =
          b.type === 'image'
            ? { type: 'image', source: { kind: 'base64', mediaType, data: s.data } }
            : { type: 'file', mediaType, data: s.data };
      } else if (s.type === 'url') {
        if (typeof s.url !== 'string') throw bad(`${f}.source.url`, 'is required');
        part =
          b.type === 'image'
            ? { type: 'image', source: { kind: 'url', url: s.url } }
            : { type: 'file', url: s.url, mediaType: 'application/pdf' };
      } else if (s.type === 'text' && b.type === 'document') {
        part = { type: 'text', text: String(s.data ?? '') };
      } else throw bad(`${f}.source.type`, `is not supported (${String(s.type)})`);
      if (b.cache_control) (part as { cacheControl?: unknown }).cacheControl = b.cache_control;
      return part;
    }
    case 'thinking': {
      const p: ContentPart = { type: 'thinking', text: typeof b.thinking === 'string' ? b.thinking : '' };
      Object.assign(p, decodeSignature(b.signature));
      return p;
    }
    case 'redacted_thinking':
      return { type: 'thinking', text: '', redacted: String(b.data ?? ''), from: 'anthropic' };
    default:
      return null;
  }
}

function decodeContent(content: unknown, f: string): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) throw bad(f, 'must be a string or an array of content blocks');
  return content;
}

function decodeMessages(v: unknown, dropped: string[], lenient: boolean): Message[] {
  if (v === undefined) throw bad('messages', 'is required');
  if (!Array.isArray(v)) throw bad('messages', 'must be an array');
  const out: Message[] = [];
  const names = new Map<string, string>();
  v.forEach((m, i) => {
    const f = `messages[${i}]`;
    if (!isObj(m)) throw bad(f, 'must be an object');
    if (m.role !== 'user' && m.role !== 'assistant' && m.role !== 'system') {
      if (lenient) {
        dropped.push(`${f} (role ${JSON.stringify(m.role)})`);
        return;
      }
      throw bad(`${f}.role`, `is not a valid role (${JSON.stringify(m.role)}); expected user, assistant or system`);
    }
    const blocks = decodeContent(m.content, `${f}.content`);
    if (m.role === 'system') {
      // A system entry inside the conversation (a beta Claude Code uses): other formats get it folded into
      // their system prompt by their encoders; Anthropic upstreams get the body as it came.
      const parts: ContentPart[] = [];
      blocks.forEach((b, k) => {
        const p = decodeBlock(b, `${f}.content[${k}]`);
        if (p) parts.push(p);
      });
      out.push({ role: 'system', parts });
      return;
    }
    if (m.role === 'assistant') {
      const parts: ContentPart[] = [];
      const toolCalls: ToolCall[] = [];
      blocks.forEach((b, k) => {
        const bf = `${f}.content[${k}]`;
        if (isObj(b) && (b.type === 'tool_use' || b.type === 'server_tool_use')) {
          if (b.type === 'server_tool_use') {
            dropped.push(`${bf} (server_tool_use)`);
            return;
          }
          const rawId = str(b.id, `${bf}.id`) ?? newToolCallId();
          const { id, signature } = splitSignedId(rawId);
          const name = str(b.name, `${bf}.name`);
          if (!name) throw bad(`${bf}.name`, 'is required');
          names.set(id, name);
          const call: ToolCall = { id, name, arguments: argsText(b.input ?? {}) };
          if (signature) call.thoughtSignature = signature;
          if (b.cache_control) call.cacheControl = b.cache_control;
          toolCalls.push(call);
          return;
        }
        const p = decodeBlock(b, bf);
        if (p) parts.push(p);
        else dropped.push(`${bf} (${String((b as any).type)})`);
      });
      out.push({ role: 'assistant', parts, toolCalls });
      return;
    }
    // user: tool_result blocks become tool messages (in order), the rest one user message after them
    const parts: ContentPart[] = [];
    blocks.forEach((b, k) => {
      const bf = `${f}.content[${k}]`;
      if (isObj(b) && b.type === 'tool_result') {
        const rawId = str(b.tool_use_id, `${bf}.tool_use_id`);
        if (!rawId) throw bad(`${bf}.tool_use_id`, 'is required');
        const id = splitSignedId(rawId).id;
        const rc = b.content === undefined ? [] : decodeContent(b.content, `${bf}.content`);
        const rparts: ContentPart[] = [];
        rc.forEach((x, j) => {
          const p = decodeBlock(x, `${bf}.content[${j}]`);
          if (p) rparts.push(p);
        });
        out.push({
          role: 'tool',
          toolCallId: id,
          name: names.get(id),
          parts: rparts,
          ...(b.is_error === true ? { isError: true } : {}),
          ...(b.cache_control ? { cacheControl: b.cache_control } : {}),
        });
        return;
      }
      const p = decodeBlock(b, bf);
      if (p) parts.push(p);
      else dropped.push(`${bf} (${String((b as any).type)})`);
    });
    if (parts.length || !blocks.some((b) => isObj(b) && b.type === 'tool_result')) out.push({ role: 'user', parts });
  });
  return out;
}

function decodeTools(v: unknown): Tool[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw bad('tools', 'must be an array');
  return v.map((t, i): Tool => {
    if (!isObj(t)) throw bad(`tools[${i}]`, 'must be an object');
    const name = str(t.name, `tools[${i}].name`);
    if (!name) throw bad(`tools[${i}].name`, 'is required');
    if (t.type && t.type !== 'custom') return { name, native: { format: 'anthropic', value: t } };
    const tool: Tool = { name };
    if (typeof t.description === 'string') tool.description = t.description;
    if (isObj(t.input_schema)) tool.parameters = t.input_schema;
    if (t.cache_control) tool.cacheControl = t.cache_control;
    return tool;
  });
}

function decodeToolChoice(v: unknown): { choice?: ToolChoice; parallel?: boolean } {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw bad('tool_choice', 'must be an object');
  const parallel = v.disable_parallel_tool_use === true ? false : undefined;
  switch (v.type) {
    case 'auto':
      return { choice: 'auto', parallel };
    case 'any':
      return { choice: 'required', parallel };
    case 'none':
      return { choice: 'none', parallel };
    case 'tool':
      if (typeof v.name !== 'string') throw bad('tool_choice.name', 'is required');
      return { choice: { name: v.name }, parallel };
    default:
      throw bad('tool_choice.type', 'must be auto, any, tool or none');
  }
}

/**
 * Decodes a messages request. `lenient`: messages of roles the gateway does not know are left out of
 * the canonical request (noted in `dropped`) instead of refused — for a body an Anthropic upstream
 * receives as sent, where the canonical form only serves the estimate.
 */
export function decodeRequest(body: unknown, opts: { lenient?: boolean } = {}): CanonicalRequest {
  if (!isObj(body)) throw bad('body', 'must be a JSON object');
  const model = str(body.model, 'model');
  if (!model) throw bad('model', 'is required');
  const maxTokens = tokenCount(body.max_tokens, 'max_tokens');
  if (maxTokens === undefined) throw bad('max_tokens', 'is required');
  const dropped: string[] = [];
  const messages = decodeMessages(body.messages, dropped, opts.lenient === true);
  if (body.system !== undefined && body.system !== null) {
    const blocks = decodeContent(body.system, 'system');
    const parts: ContentPart[] = [];
    blocks.forEach((b, k) => {
      const p = decodeBlock(b, `system[${k}]`);
      if (p) parts.push(p);
    });
    messages.unshift({ role: 'system', parts });
  }
  const stream = body.stream === true;
  const extra: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(body)) if (!KNOWN.has(k)) extra[k] = val;
  const req: CanonicalRequest = { model, messages, maxTokens, stream, includeUsage: true, extra, sourceFormat: 'anthropic', dropped };
  const rf = decodeOutputFormat(body, extra);
  if (rf) req.responseFormat = rf;
  if (body.stop_sequences !== undefined) {
    if (!Array.isArray(body.stop_sequences)) throw bad('stop_sequences', 'must be an array of strings');
    req.stop = body.stop_sequences.map((s: unknown, i: number) => str(s, `stop_sequences[${i}]`) as string);
  }
  const t = num(body.temperature, 'temperature');
  if (t !== undefined) req.temperature = t;
  const tp = num(body.top_p, 'top_p');
  if (tp !== undefined) req.topP = tp;
  const tk = int(body.top_k, 'top_k');
  if (tk !== undefined) req.topK = tk;
  const tools = decodeTools(body.tools);
  if (tools) req.tools = tools;
  const tc = decodeToolChoice(body.tool_choice);
  if (tc.choice) req.toolChoice = tc.choice;
  if (tc.parallel !== undefined) req.parallelToolCalls = tc.parallel;
  if (isObj(body.thinking)) {
    const th = body.thinking;
    if (th.type === 'enabled') {
      const budget = int(th.budget_tokens, 'thinking.budget_tokens');
      req.reasoning = {
        enabled: true,
        budgetTokens: budget,
        effort: budget !== undefined ? effortForBudget(budget) : undefined,
        includeThoughts: true,
      };
    } else if (th.type === 'disabled') req.reasoning = { enabled: false };
    else req.reasoning = { enabled: true, includeThoughts: true };
  }
  // `output_config.effort` (with adaptive or enabled thinking) is the reasoning effort other formats take.
  if (isObj(body.output_config) && typeof body.output_config.effort === 'string' && req.reasoning?.enabled !== false) {
    const effort = body.output_config.effort === 'max' ? 'high' : body.output_config.effort;
    req.reasoning = {
      ...(req.reasoning ?? { enabled: true }),
      effort,
      budgetTokens: req.reasoning?.budgetTokens ?? budgetForEffort(effort),
    };
  }
  if (isObj(body.metadata) && typeof body.metadata.user_id === 'string') req.user = body.metadata.user_id;
  if (isObj(body.metadata) && Object.keys(body.metadata).some((k) => k !== 'user_id')) req.extra.metadata = body.metadata;
  return req;
}

function encodeBlocks(parts: ContentPart[], dropped: string[], where: string, keepSignatures: boolean): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const p of parts) {
    let b: Record<string, unknown> | null = null;
    switch (p.type) {
      case 'text':
        if (p.text === '') continue; // Anthropic rejects empty text blocks
        b = { type: 'text', text: p.text };
        break;
      case 'image':
        if (p.detail) dropped.push(`${where}: image detail`);
        b = {
          type: 'image',
          source:
            p.source.kind === 'base64'
              ? { type: 'base64', media_type: p.source.mediaType, data: p.source.data }
              : { type: 'url', url: p.source.url },
        };
        break;
      case 'file':
        if (p.data && (p.mediaType ?? 'application/pdf') === 'application/pdf')
          b = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: p.data } };
        else if (p.data && p.mediaType?.startsWith('text/'))
          b = {
            type: 'document',
            source: { type: 'text', media_type: 'text/plain', data: Buffer.from(p.data, 'base64').toString('utf8') },
          };
        else if (p.url && /^https?:/i.test(p.url)) b = { type: 'document', source: { type: 'url', url: p.url } };
        else dropped.push(`${where}: file (${p.mediaType ?? 'unknown type'})`);
        break;
      case 'audio':
        dropped.push(`${where}: audio input`);
        break;
      case 'thinking':
        if (!keepSignatures) continue;
        if (p.redacted) b = { type: 'redacted_thinking', data: p.redacted };
        else if (p.signature && p.from !== 'gemini') b = { type: 'thinking', thinking: p.text, signature: p.signature };
        else {
          dropped.push(`${where}: thinking without an Anthropic signature`);
          continue;
        }
        break;
    }
    if (!b) continue;
    if ('cacheControl' in p && p.cacheControl) b.cache_control = p.cacheControl;
    out.push(b);
  }
  return out;
}

export interface AnthropicEncodeOptions {
  defaultMaxTokens?: number;
}

export function encodeRequest(req: CanonicalRequest, upstreamModel: string, opts: AnthropicEncodeOptions = {}): Record<string, unknown> {
  // First: JSON without a schema is asked for through a forced tool, which the tools below then carry.
  const outputFormat = encodeOutputFormat(req);
  const system: Record<string, unknown>[] = [];
  const msgs: { role: 'user' | 'assistant'; content: Record<string, unknown>[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: Record<string, unknown>[]) =>
    pushTurn(msgs, role, blocks, (b) => b.type === 'tool_result');
  req.messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    switch (m.role) {
      case 'system':
        system.push(...encodeBlocks(m.parts, req.dropped, where, false).filter((b) => b.type === 'text'));
        break;
      case 'user':
        push('user', encodeBlocks(m.parts, req.dropped, where, false));
        break;
      case 'assistant': {
        const blocks = encodeBlocks(m.parts, req.dropped, where, true);
        for (const c of m.toolCalls) {
          const b: Record<string, unknown> = {
            type: 'tool_use',
            id: c.id,
            name: c.name,
            input: argsObject(c.arguments, req.dropped, where),
          };
          if (c.cacheControl) b.cache_control = c.cacheControl;
          blocks.push(b);
        }
        push('assistant', blocks);
        break;
      }
      case 'tool': {
        const content = encodeBlocks(m.parts, req.dropped, where, false);
        const b: Record<string, unknown> = { type: 'tool_result', tool_use_id: m.toolCallId };
        if (content.length === 1 && content[0].type === 'text' && !content[0].cache_control) b.content = content[0].text;
        else if (content.length) b.content = content;
        if (m.isError) b.is_error = true;
        if (m.cacheControl) b.cache_control = m.cacheControl;
        push('user', [b]);
        break;
      }
    }
  });
  const body: Record<string, unknown> = { model: upstreamModel, messages: msgs };
  if (system.length) body.system = system.length === 1 && !system[0].cache_control ? system[0].text : system;
  let maxTokens = req.maxTokens;
  if (maxTokens === undefined) maxTokens = opts.defaultMaxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
  body.max_tokens = maxTokens;
  if (req.stop?.length) body.stop_sequences = req.stop;
  if (req.stream) body.stream = true;
  if (req.temperature !== undefined) body.temperature = Math.min(1, req.temperature);
  if (req.temperature !== undefined && req.temperature > 1) req.dropped.push('temperature clamped to 1');
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.topK !== undefined) body.top_k = req.topK;
  if (req.tools?.length) {
    const tools: Record<string, unknown>[] = [];
    for (const t of req.tools) {
      if (t.native) {
        if (t.native.format === 'anthropic') tools.push(t.native.value as Record<string, unknown>);
        else req.dropped.push(`tools.${t.name} (native ${t.native.format} tool)`);
        continue;
      }
      const o: Record<string, unknown> = { name: t.name };
      if (t.description !== undefined) o.description = t.description;
      o.input_schema = t.parameters ?? { type: 'object', properties: {} };
      if (t.cacheControl) o.cache_control = t.cacheControl;
      tools.push(o);
    }
    if (tools.length) body.tools = tools;
  }
  if (body.tools && (req.toolChoice || req.parallelToolCalls === false)) {
    const tc = req.toolChoice ?? 'auto';
    const o: Record<string, unknown> =
      tc === 'auto'
        ? { type: 'auto' }
        : tc === 'required'
          ? { type: 'any' }
          : tc === 'none'
            ? { type: 'none' }
            : { type: 'tool', name: tc.name };
    if (req.parallelToolCalls === false && tc !== 'none') o.disable_parallel_tool_use = true;
    body.tool_choice = o;
  }
  if (req.n !== undefined && req.n > 1) req.dropped.push('n (Anthropic returns one choice)');
  if (req.seed !== undefined) req.dropped.push('seed');
  if (req.presencePenalty !== undefined) req.dropped.push('presence_penalty');
  if (req.frequencyPenalty !== undefined) req.dropped.push('frequency_penalty');
  if (req.reasoning) {
    const r = req.reasoning;
    if (r.enabled === false) {
      if (req.sourceFormat === 'anthropic') body.thinking = { type: 'disabled' };
    } else {
      const want = r.budgetTokens ?? budgetForEffort(r.effort);
      if (want !== undefined || r.enabled) {
        // budget_tokens must be ≥ 1024 and below max_tokens
        let budget = Math.max(1024, want ?? 2048);
        if (budget >= maxTokens) {
          if (req.maxTokens === undefined) body.max_tokens = budget + DEFAULT_ANTHROPIC_MAX_TOKENS;
          else budget = Math.max(1024, maxTokens - 1);
        }
        if (budget < (body.max_tokens as number)) {
          body.thinking = { type: 'enabled', budget_tokens: budget };
          // Anthropic rejects sampling changes with thinking; a native caller's body is left as sent.
          if (req.sourceFormat !== 'anthropic') {
            if (body.temperature !== undefined && body.temperature !== 1) {
              delete body.temperature;
              req.dropped.push('temperature (not allowed with thinking)');
            }
            if (body.top_k !== undefined) {
              delete body.top_k;
              req.dropped.push('top_k (not allowed with thinking)');
            }
          }
        } else req.dropped.push('reasoning (max_tokens too small for a thinking budget)');
      }
    }
  }
  if (req.user)
    body.metadata = { ...(isObj(req.extra.metadata) && req.sourceFormat === 'anthropic' ? req.extra.metadata : {}), user_id: req.user };
  applyExtra('anthropic', req, body);
  if (outputFormat) body.output_config = { ...(isObj(body.output_config) ? body.output_config : {}), format: outputFormat };
  return body;
}
