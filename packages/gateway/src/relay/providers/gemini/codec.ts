/** Gemini generateContent / streamGenerateContent ⇄ canonical. */
import type {
  AssistantMessage,
  CanonicalChoice,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalStreamEvent,
  ContentPart,
  FinishReason,
  Message,
  StreamDecoder,
  StreamEncoder,
  StreamEncoderOptions,
  Tool,
  ToolCall,
  Usage,
} from '../canonical.ts';
import {
  applyExtra,
  choiceCount,
  tokenCount,
  argsObject,
  argsText,
  bad,
  budgetForEffort,
  effortForBudget,
  emptyUsage,
  eventJson,
  guessMime,
  int,
  isObj,
  n0,
  newToolCallId,
  num,
  safeJsonParse,
  sse,
  str,
  textOf,
} from '../canonical.ts';

const KNOWN = new Set([
  'contents',
  'systemInstruction',
  'system_instruction',
  'tools',
  'toolConfig',
  'tool_config',
  'generationConfig',
  'generation_config',
]);
const KNOWN_GEN = new Set([
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'candidateCount',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
]);

// ---------- request ----------

function decodePart(p: Record<string, any>, f: string): ContentPart | null {
  if (typeof p.text === 'string') {
    if (p.thought === true)
      return { type: 'thinking', text: p.text, from: 'gemini', ...(p.thoughtSignature ? { signature: p.thoughtSignature } : {}) };
    return { type: 'text', text: p.text, ...(p.thoughtSignature ? { signature: p.thoughtSignature } : {}) };
  }
  const inline = p.inlineData ?? p.inline_data;
  if (isObj(inline)) {
    const mime = String(inline.mimeType ?? inline.mime_type ?? 'application/octet-stream');
    if (typeof inline.data !== 'string') throw bad(`${f}.inlineData.data`, 'is required');
    if (mime.startsWith('image/')) return { type: 'image', source: { kind: 'base64', mediaType: mime, data: inline.data } };
    if (mime.startsWith('audio/'))
      return { type: 'audio', data: inline.data, format: mime.slice(6).replace(/^x-|^mpeg$/, (m) => (m === 'mpeg' ? 'mp3' : '')) };
    return { type: 'file', mediaType: mime, data: inline.data };
  }
  const file = p.fileData ?? p.file_data;
  if (isObj(file)) {
    const uri = String(file.fileUri ?? file.file_uri ?? '');
    if (!uri) throw bad(`${f}.fileData.fileUri`, 'is required');
    const mime = String(file.mimeType ?? file.mime_type ?? guessMime(uri, 'application/octet-stream'));
    if (mime.startsWith('image/')) return { type: 'image', source: { kind: 'url', url: uri } };
    return { type: 'file', mediaType: mime, url: uri };
  }
  if (p.thought === true && p.thoughtSignature) return { type: 'thinking', text: '', signature: p.thoughtSignature, from: 'gemini' };
  return null;
}

function responseText(resp: unknown): string {
  if (isObj(resp)) {
    const keys = Object.keys(resp);
    if (keys.length === 1 && (keys[0] === 'content' || keys[0] === 'result' || keys[0] === 'output') && typeof resp[keys[0]] === 'string')
      return resp[keys[0]];
  }
  return JSON.stringify(resp ?? {});
}

function decodeContents(v: unknown, dropped: string[]): Message[] {
  if (v === undefined || v === null) throw bad('contents', 'is required');
  if (!Array.isArray(v)) throw bad('contents', 'must be an array');
  const out: Message[] = [];
  const pending: ToolCall[] = []; // calls awaiting a response, oldest first
  let seq = 0;
  v.forEach((c, i) => {
    const f = `contents[${i}]`;
    if (!isObj(c)) throw bad(f, 'must be an object');
    const role = c.role ?? 'user';
    if (role !== 'user' && role !== 'model' && role !== 'function')
      throw bad(`${f}.role`, `is not a valid role (${JSON.stringify(role)}); expected user or model`);
    if (!Array.isArray(c.parts)) throw bad(`${f}.parts`, 'must be an array');
    if (role === 'model') {
      const msg: AssistantMessage = { role: 'assistant', parts: [], toolCalls: [] };
      c.parts.forEach((p: unknown, k: number) => {
        const pf = `${f}.parts[${k}]`;
        if (!isObj(p)) throw bad(pf, 'must be an object');
        const fc = p.functionCall ?? p.function_call;
        if (isObj(fc)) {
          if (typeof fc.name !== 'string' || !fc.name) throw bad(`${pf}.functionCall.name`, 'is required');
          const call: ToolCall = {
            id: typeof fc.id === 'string' && fc.id ? fc.id : `call_${++seq}`,
            name: fc.name,
            arguments: argsText(fc.args ?? {}),
          };
          const sig = p.thoughtSignature ?? p.thought_signature ?? fc.thoughtSignature;
          if (typeof sig === 'string' && sig) call.thoughtSignature = sig;
          msg.toolCalls.push(call);
          pending.push(call);
          return;
        }
        const part = decodePart(p, pf);
        if (part) msg.parts.push(part);
        else dropped.push(`${pf} (${Object.keys(p).join(',')})`);
      });
      out.push(msg);
      return;
    }
    const parts: ContentPart[] = [];
    c.parts.forEach((p: unknown, k: number) => {
      const pf = `${f}.parts[${k}]`;
      if (!isObj(p)) throw bad(pf, 'must be an object');
      const fr = p.functionResponse ?? p.function_response;
      if (isObj(fr)) {
        const name = str(fr.name, `${pf}.functionResponse.name`) ?? '';
        let idx = typeof fr.id === 'string' ? pending.findIndex((x) => x.id === fr.id) : -1;
        if (idx < 0) idx = pending.findIndex((x) => x.name === name);
        const id = idx >= 0 ? pending.splice(idx, 1)[0].id : typeof fr.id === 'string' && fr.id ? fr.id : `call_${++seq}`;
        out.push({ role: 'tool', toolCallId: id, name, parts: [{ type: 'text', text: responseText(fr.response) }] });
        return;
      }
      const part = decodePart(p, pf);
      if (part) parts.push(part);
      else dropped.push(`${pf} (${Object.keys(p).join(',')})`);
    });
    if (parts.length) out.push({ role: 'user', parts });
  });
  return out;
}

function decodeTools(v: unknown): Tool[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw bad('tools', 'must be an array');
  const tools: Tool[] = [];
  v.forEach((t, i) => {
    if (!isObj(t)) throw bad(`tools[${i}]`, 'must be an object');
    const decls = t.functionDeclarations ?? t.function_declarations;
    if (Array.isArray(decls)) {
      decls.forEach((d: unknown, k: number) => {
        if (!isObj(d) || typeof d.name !== 'string') throw bad(`tools[${i}].functionDeclarations[${k}].name`, 'is required');
        const tool: Tool = { name: d.name };
        if (typeof d.description === 'string') tool.description = d.description;
        const params = d.parametersJsonSchema ?? d.parameters;
        if (isObj(params)) tool.parameters = d.parametersJsonSchema ? params : lowerSchemaTypes(params);
        tools.push(tool);
      });
    }
    for (const k of Object.keys(t)) {
      if (k !== 'functionDeclarations' && k !== 'function_declarations')
        tools.push({ name: k, native: { format: 'gemini', value: { [k]: t[k] } } });
    }
  });
  return tools.length ? tools : undefined;
}

/** Gemini's OpenAPI schema uses upper-case type names (STRING, OBJECT); JSON schema wants lower case. */
function lowerSchemaTypes(s: unknown): any {
  if (Array.isArray(s)) return s.map(lowerSchemaTypes);
  if (!isObj(s)) return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'type' && typeof v === 'string') out[k] = v.toLowerCase();
    else if (k === 'properties' && isObj(v)) out[k] = Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, lowerSchemaTypes(pv)]));
    else if (k === 'items' || k === 'anyOf') out[k] = lowerSchemaTypes(v);
    else out[k] = v;
  }
  return out;
}

export function decodeRequest(body: unknown): CanonicalRequest {
  if (!isObj(body)) throw bad('body', 'must be a JSON object');
  const dropped: string[] = [];
  const messages = decodeContents(body.contents, dropped);
  const sys = body.systemInstruction ?? body.system_instruction;
  if (sys !== undefined && sys !== null) {
    const parts: ContentPart[] = [];
    if (typeof sys === 'string') parts.push({ type: 'text', text: sys });
    else if (isObj(sys) && Array.isArray(sys.parts))
      sys.parts.forEach((p: unknown, k: number) => {
        if (isObj(p)) {
          const x = decodePart(p, `systemInstruction.parts[${k}]`);
          if (x) parts.push(x);
        }
      });
    else throw bad('systemInstruction', 'must be a Content object with parts');
    messages.unshift({ role: 'system', parts });
  }
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!KNOWN.has(k)) extra[k] = v;
  const req: CanonicalRequest = {
    model: typeof body.model === 'string' ? body.model.replace(/^models\//, '') : '',
    messages,
    stream: false,
    includeUsage: true,
    extra,
    sourceFormat: 'gemini',
    dropped,
  };
  const tools = decodeTools(body.tools);
  if (tools) req.tools = tools;
  const tc = body.toolConfig ?? body.tool_config;
  const fcc = isObj(tc) ? (tc.functionCallingConfig ?? tc.function_calling_config) : undefined;
  if (isObj(fcc)) {
    const allowed = Array.isArray(fcc.allowedFunctionNames) ? fcc.allowedFunctionNames : [];
    if (fcc.mode === 'NONE') req.toolChoice = 'none';
    else if (fcc.mode === 'ANY' || fcc.mode === 'VALIDATED')
      req.toolChoice = allowed.length === 1 ? { name: String(allowed[0]) } : 'required';
    else if (fcc.mode === 'AUTO') req.toolChoice = 'auto';
    if (allowed.length > 1) dropped.push('toolConfig.functionCallingConfig.allowedFunctionNames');
  }
  const g = body.generationConfig ?? body.generation_config;
  if (g !== undefined && g !== null) {
    if (!isObj(g)) throw bad('generationConfig', 'must be an object');
    const t = num(g.temperature, 'generationConfig.temperature');
    if (t !== undefined) req.temperature = t;
    const tp = num(g.topP, 'generationConfig.topP');
    if (tp !== undefined) req.topP = tp;
    const tk = int(g.topK, 'generationConfig.topK');
    if (tk !== undefined) req.topK = tk;
    const mt = tokenCount(g.maxOutputTokens, 'generationConfig.maxOutputTokens');
    if (mt !== undefined) req.maxTokens = mt;
    if (g.stopSequences !== undefined) {
      if (!Array.isArray(g.stopSequences)) throw bad('generationConfig.stopSequences', 'must be an array of strings');
      req.stop = g.stopSequences.map(String);
    }
    const n = choiceCount(g.candidateCount, 'generationConfig.candidateCount');
    if (n !== undefined) req.n = n;
    const seed = int(g.seed, 'generationConfig.seed');
    if (seed !== undefined) req.seed = seed;
    const pp = num(g.presencePenalty, 'generationConfig.presencePenalty');
    if (pp !== undefined) req.presencePenalty = pp;
    const fp = num(g.frequencyPenalty, 'generationConfig.frequencyPenalty');
    if (fp !== undefined) req.frequencyPenalty = fp;
    const schema = g.responseJsonSchema ?? (isObj(g.responseSchema) ? lowerSchemaTypes(g.responseSchema) : undefined);
    if (g.responseMimeType === 'application/json')
      req.responseFormat = isObj(schema) ? { type: 'json_schema', name: 'response', schema } : { type: 'json_object' };
    else if (g.responseMimeType === 'text/plain') req.responseFormat = { type: 'text' };
    if (isObj(g.thinkingConfig)) {
      const tcfg = g.thinkingConfig;
      const budget = int(tcfg.thinkingBudget, 'generationConfig.thinkingConfig.thinkingBudget');
      if (budget === 0) req.reasoning = { enabled: false };
      else {
        req.reasoning = {};
        if (budget !== undefined && budget > 0) {
          req.reasoning.budgetTokens = budget;
          req.reasoning.effort = effortForBudget(budget);
        }
        if (typeof tcfg.thinkingLevel === 'string') req.reasoning.effort = tcfg.thinkingLevel.toLowerCase();
        if (typeof tcfg.includeThoughts === 'boolean') req.reasoning.includeThoughts = tcfg.includeThoughts;
      }
    }
    // Gemini → Gemini keeps these exactly as sent (thinkingLevel, OpenAPI-style responseSchema).
    const restGen: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(g)) if (!KNOWN_GEN.has(k) || k === 'thinkingConfig' || k === 'responseSchema') restGen[k] = v;
    if (Object.keys(restGen).length) req.geminiGenerationConfig = restGen;
  }
  return req;
}

function mimeOfAudio(format: string): string {
  return format === 'mp3' ? 'audio/mp3' : `audio/${format}`;
}

function encodeParts(parts: ContentPart[], dropped: string[], where: string, role: 'user' | 'model'): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const p of parts) {
    switch (p.type) {
      case 'text':
        if (p.text === '' && !p.signature) break;
        out.push({ text: p.text, ...(p.signature && role === 'model' ? { thoughtSignature: p.signature } : {}) });
        break;
      case 'image':
        if (p.detail) dropped.push(`${where}: image detail`);
        if (p.source.kind === 'base64') out.push({ inlineData: { mimeType: p.source.mediaType, data: p.source.data } });
        else out.push({ fileData: { mimeType: guessMime(p.source.url), fileUri: p.source.url } });
        break;
      case 'audio':
        out.push({ inlineData: { mimeType: mimeOfAudio(p.format), data: p.data } });
        break;
      case 'file':
        if (p.data) out.push({ inlineData: { mimeType: p.mediaType ?? 'application/pdf', data: p.data } });
        else if (p.url) out.push({ fileData: { mimeType: p.mediaType ?? guessMime(p.url, 'application/pdf'), fileUri: p.url } });
        break;
      case 'thinking':
        if (role !== 'model') break;
        if (p.from === 'gemini' && p.signature) out.push({ text: p.text, thought: true, thoughtSignature: p.signature });
        else if (p.text || p.redacted) dropped.push(`${where}: thinking without a Gemini signature`);
        break;
    }
  }
  return out;
}

function toFunctionResponse(m: Extract<Message, { role: 'tool' }>, name: string, withId: boolean): Record<string, unknown> {
  const text = textOf(m.parts);
  const parsed = safeJsonParse(text);
  const response = parsed.ok && isObj(parsed.value) ? parsed.value : { content: text };
  const fr: Record<string, unknown> = { name, response };
  if (withId) fr.id = m.toolCallId;
  return { functionResponse: fr };
}

/** Keeps only JSON-schema keywords Gemini's `parameters` accepts. */
function cleanSchema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(cleanSchema);
  if (!isObj(s)) return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (
      k === '$schema' ||
      k === 'additionalProperties' ||
      k === 'default' ||
      k === 'exclusiveMinimum' ||
      k === 'exclusiveMaximum' ||
      k === '$id' ||
      k === 'title' ||
      k === 'strict'
    )
      continue;
    if (k === 'type' && Array.isArray(v)) {
      const types = v.filter((x) => x !== 'null');
      out.type = types[0] ?? 'string';
      if (types.length < v.length) out.nullable = true;
    } else if (k === 'properties' && isObj(v)) out[k] = Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, cleanSchema(pv)]));
    else if (k === 'format' && typeof v === 'string' && v !== 'enum' && v !== 'date-time') continue;
    else if (k === 'items' || k === 'anyOf') out[k] = cleanSchema(v);
    else out[k] = v;
  }
  return out;
}

export function encodeRequest(req: CanonicalRequest): Record<string, unknown> {
  const contents: { role: 'user' | 'model'; parts: Record<string, unknown>[] }[] = [];
  const systemParts: Record<string, unknown>[] = [];
  const names = new Map<string, string>();
  // Function-call ids (FunctionCall.id / FunctionResponse.id) keep calls and results paired across turns.
  const withIds = true;
  const push = (role: 'user' | 'model', parts: Record<string, unknown>[]) => {
    if (!parts.length) return;
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  req.messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    switch (m.role) {
      case 'system':
        for (const p of m.parts) if (p.type === 'text' && p.text.trim()) systemParts.push({ text: p.text });
        break;
      case 'user':
        push('user', encodeParts(m.parts, req.dropped, where, 'user'));
        break;
      case 'assistant': {
        const parts = encodeParts(m.parts, req.dropped, where, 'model');
        for (const c of m.toolCalls) {
          names.set(c.id, c.name);
          const fc: Record<string, unknown> = { name: c.name, args: argsObject(c.arguments, req.dropped, where) };
          if (withIds) fc.id = c.id;
          const part: Record<string, unknown> = { functionCall: fc };
          if (c.thoughtSignature) part.thoughtSignature = c.thoughtSignature;
          parts.push(part);
        }
        push('model', parts);
        break;
      }
      case 'tool': {
        const name = m.name || names.get(m.toolCallId);
        if (!name) throw bad(`messages[${i}].tool_call_id`, `(${m.toolCallId}) does not match a tool call of an earlier assistant message`);
        if (m.parts.some((p) => p.type !== 'text')) req.dropped.push(`${where}: non-text tool result content`);
        push('user', [toFunctionResponse(m, name, withIds)]);
        break;
      }
    }
  });
  const body: Record<string, unknown> = { contents };
  if (systemParts.length) body.systemInstruction = { parts: systemParts };
  const gen: Record<string, unknown> = {};
  if (req.temperature !== undefined) gen.temperature = req.temperature;
  if (req.topP !== undefined) gen.topP = req.topP;
  if (req.topK !== undefined) gen.topK = req.topK;
  if (req.maxTokens !== undefined) gen.maxOutputTokens = req.maxTokens;
  if (req.stop?.length) gen.stopSequences = req.stop;
  if (req.n !== undefined && req.n !== 1) gen.candidateCount = req.n;
  if (req.seed !== undefined) gen.seed = req.seed;
  if (req.presencePenalty !== undefined) gen.presencePenalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) gen.frequencyPenalty = req.frequencyPenalty;
  if (req.responseFormat) {
    const rf = req.responseFormat;
    if (rf.type === 'text') gen.responseMimeType = 'text/plain';
    else {
      gen.responseMimeType = 'application/json';
      if (rf.type === 'json_schema' && rf.schema) gen.responseJsonSchema = rf.schema;
    }
  }
  if (req.reasoning) {
    const r = req.reasoning;
    const tcfg: Record<string, unknown> = {};
    if (r.enabled === false) tcfg.thinkingBudget = 0;
    else {
      const budget = r.budgetTokens ?? budgetForEffort(r.effort);
      if (budget !== undefined) tcfg.thinkingBudget = budget;
      else if (r.enabled) tcfg.thinkingBudget = -1;
      if (r.includeThoughts !== undefined || req.sourceFormat !== 'gemini') tcfg.includeThoughts = r.includeThoughts ?? true;
    }
    gen.thinkingConfig = tcfg;
  }
  if (req.sourceFormat === 'gemini' && req.geminiGenerationConfig) {
    Object.assign(gen, req.geminiGenerationConfig);
    if ('responseSchema' in req.geminiGenerationConfig) delete gen.responseJsonSchema;
  }
  if (Object.keys(gen).length) body.generationConfig = gen;
  if (req.tools?.length) {
    const decls: Record<string, unknown>[] = [];
    const tools: Record<string, unknown>[] = [];
    for (const t of req.tools) {
      if (t.native) {
        if (t.native.format === 'gemini') tools.push(t.native.value as Record<string, unknown>);
        else req.dropped.push(`tools.${t.name} (native ${t.native.format} tool)`);
        continue;
      }
      const d: Record<string, unknown> = { name: t.name };
      if (t.description !== undefined) d.description = t.description;
      const params = t.parameters;
      if (params && !(isObj(params.properties) && Object.keys(params.properties).length === 0 && params.type === 'object'))
        d.parameters = cleanSchema(params);
      decls.push(d);
    }
    if (decls.length) tools.unshift({ functionDeclarations: decls });
    if (tools.length) body.tools = tools;
  }
  if (req.toolChoice && body.tools) {
    const tc = req.toolChoice;
    body.toolConfig = {
      functionCallingConfig:
        tc === 'auto'
          ? { mode: 'AUTO' }
          : tc === 'none'
            ? { mode: 'NONE' }
            : tc === 'required'
              ? { mode: 'ANY' }
              : { mode: 'ANY', allowedFunctionNames: [tc.name] },
    };
  }
  if (req.parallelToolCalls === false) req.dropped.push('parallel_tool_calls');
  if (req.user && req.sourceFormat !== 'gemini') req.dropped.push('user');
  applyExtra('gemini', req, body);
  return body;
}

// ---------- usage ----------

export function usageFromGemini(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  const thoughts = n0(u.thoughtsTokenCount);
  return {
    inputTokens: n0(u.promptTokenCount) + n0(u.toolUsePromptTokenCount),
    outputTokens: n0(u.candidatesTokenCount) + thoughts,
    cachedInputTokens: n0(u.cachedContentTokenCount),
    cacheWriteTokens: 0,
    reasoningTokens: thoughts,
  };
}

export function usageToGemini(u: Usage): Record<string, number> {
  const out: Record<string, number> = {
    promptTokenCount: u.inputTokens,
    candidatesTokenCount: Math.max(0, u.outputTokens - u.reasoningTokens),
    totalTokenCount: u.inputTokens + u.outputTokens,
  };
  if (u.cachedInputTokens) out.cachedContentTokenCount = u.cachedInputTokens;
  if (u.reasoningTokens) out.thoughtsTokenCount = u.reasoningTokens;
  return out;
}

export function usageFromResponse(body: unknown): Usage | null {
  const b = Array.isArray(body) ? body[body.length - 1] : body;
  return isObj(b) ? usageFromGemini(b.usageMetadata) : null;
}

export function usageFromStreamEvent(ev: { event?: string; data: string }): Partial<Usage> | null {
  if (!ev.data.includes('usageMetadata')) return null;
  try {
    const j = JSON.parse(ev.data);
    return isObj(j) ? usageFromGemini(j.usageMetadata) : null;
  } catch {
    return null;
  }
}

// ---------- response ----------

const FINISH_IN: Record<string, FinishReason> = {
  STOP: 'stop',
  FINISH_REASON_UNSPECIFIED: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  LANGUAGE: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'error',
  UNEXPECTED_TOOL_CALL: 'error',
  OTHER: 'error',
};
export const finishFromGemini = (r: unknown, hasCalls: boolean): FinishReason => {
  const f = (typeof r === 'string' && FINISH_IN[r]) || 'stop';
  return f === 'stop' && hasCalls ? 'tool_calls' : f;
};
const FINISH_OUT: Record<FinishReason, string> = {
  stop: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
  error: 'OTHER',
};

function decodeCandidate(c: Record<string, any>, i: number, dropped: string[]): CanonicalChoice {
  const parts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  for (const p of Array.isArray(c.content?.parts) ? c.content.parts : []) {
    if (!isObj(p)) continue;
    if (isObj(p.functionCall)) {
      const call: ToolCall = {
        id: typeof p.functionCall.id === 'string' && p.functionCall.id ? p.functionCall.id : newToolCallId(),
        name: String(p.functionCall.name ?? ''),
        arguments: argsText(p.functionCall.args ?? {}),
      };
      const sig = p.thoughtSignature ?? p.functionCall.thoughtSignature;
      if (typeof sig === 'string' && sig) call.thoughtSignature = sig;
      toolCalls.push(call);
      continue;
    }
    const part = decodePart(p, 'part');
    if (part) parts.push(part);
    else if (isObj(p.executableCode))
      parts.push({
        type: 'text',
        text: `\n\`\`\`${String(p.executableCode.language ?? '').toLowerCase()}\n${p.executableCode.code ?? ''}\n\`\`\`\n`,
      });
    else if (isObj(p.codeExecutionResult))
      parts.push({ type: 'text', text: `\n\`\`\`output\n${p.codeExecutionResult.output ?? ''}\n\`\`\`\n` });
    else dropped.push(`part ${Object.keys(p).join(',')}`);
  }
  return {
    index: typeof c.index === 'number' ? c.index : i,
    parts,
    toolCalls,
    finishReason: finishFromGemini(c.finishReason, toolCalls.length > 0),
  };
}

export function decodeResponse(body: unknown): CanonicalResponse {
  if (Array.isArray(body)) return mergeArrayResponse(body);
  if (!isObj(body)) throw bad('upstream response', 'is not a JSON object');
  const dropped: string[] = [];
  let choices: CanonicalChoice[] = (Array.isArray(body.candidates) ? body.candidates : []).map((c: any, i: number) =>
    decodeCandidate(isObj(c) ? c : {}, i, dropped),
  );
  if (!choices.length && body.promptFeedback?.blockReason) {
    choices = [{ index: 0, parts: [], toolCalls: [], finishReason: 'content_filter' }];
    dropped.push(`prompt blocked: ${String(body.promptFeedback.blockReason)}`);
  }
  return {
    id: typeof body.responseId === 'string' ? body.responseId : '',
    model: typeof body.modelVersion === 'string' ? body.modelVersion : undefined,
    choices,
    usage: usageFromGemini(body.usageMetadata) ?? emptyUsage(),
    dropped,
  };
}

/** A streamGenerateContent response without alt=sse is a JSON array of chunks: fold it into one response. */
function mergeArrayResponse(chunks: unknown[]): CanonicalResponse {
  const dec = createStreamDecoder();
  const events: CanonicalStreamEvent[] = [];
  for (const c of chunks) events.push(...dec.push({ data: JSON.stringify(c) }));
  return responseFromEvents(events);
}

/** Folds canonical stream events into a response (used for Gemini array responses). */
export function responseFromEvents(events: CanonicalStreamEvent[]): CanonicalResponse {
  const res: CanonicalResponse = { id: '', choices: [], usage: emptyUsage() };
  const choice = (i: number): CanonicalChoice => {
    let c = res.choices.find((x) => x.index === i);
    if (!c) {
      c = { index: i, parts: [], toolCalls: [], finishReason: 'stop' };
      res.choices.push(c);
    }
    return c;
  };
  const tools = new Map<string, ToolCall>();
  for (const e of events) {
    switch (e.type) {
      case 'start':
        res.id = e.id ?? '';
        res.model = e.model;
        break;
      case 'text': {
        const c = choice(e.index);
        const last = c.parts[c.parts.length - 1];
        if (last?.type === 'text') last.text += e.text;
        else c.parts.push({ type: 'text', text: e.text });
        break;
      }
      case 'thinking': {
        const c = choice(e.index);
        const last = c.parts[c.parts.length - 1];
        if (last?.type === 'thinking' && !last.redacted && !e.redacted) {
          last.text += e.text ?? '';
          if (e.signature) last.signature = (last.signature ?? '') + e.signature;
        } else
          c.parts.push({
            type: 'thinking',
            text: e.text ?? '',
            ...(e.signature ? { signature: e.signature } : {}),
            ...(e.redacted ? { redacted: e.redacted } : {}),
            ...(e.from ? { from: e.from } : {}),
          });
        break;
      }
      case 'tool_call_start': {
        const t: ToolCall = {
          id: e.id,
          name: e.name,
          arguments: '',
          ...(e.thoughtSignature ? { thoughtSignature: e.thoughtSignature } : {}),
        };
        tools.set(`${e.index}:${e.toolIndex}`, t);
        choice(e.index).toolCalls.push(t);
        break;
      }
      case 'tool_call_args': {
        const t = tools.get(`${e.index}:${e.toolIndex}`);
        if (t) t.arguments += e.delta;
        break;
      }
      case 'finish':
        choice(e.index).finishReason = e.reason;
        break;
      case 'usage':
        res.usage = e.usage;
        break;
      case 'error':
        break;
    }
  }
  res.choices.sort((a, b) => a.index - b.index);
  return res;
}

function candidateParts(c: CanonicalChoice): Record<string, unknown>[] {
  const parts: Record<string, unknown>[] = [];
  for (const p of c.parts) {
    if (p.type === 'thinking') {
      if (!p.redacted)
        parts.push({ text: p.text, thought: true, ...(p.signature && p.from === 'gemini' ? { thoughtSignature: p.signature } : {}) });
    } else if (p.type === 'text') parts.push({ text: p.text, ...(p.signature ? { thoughtSignature: p.signature } : {}) });
    else if (p.type === 'image' && p.source.kind === 'base64')
      parts.push({ inlineData: { mimeType: p.source.mediaType, data: p.source.data } });
  }
  for (const t of c.toolCalls) parts.push(functionCallPart(t));
  return parts;
}

function functionCallPart(t: ToolCall): Record<string, unknown> {
  const part: Record<string, unknown> = { functionCall: { id: t.id, name: t.name, args: argsObject(t.arguments, undefined, '') } };
  if (t.thoughtSignature) part.thoughtSignature = t.thoughtSignature;
  return part;
}

export function encodeResponse(res: CanonicalResponse, clientModel: string, requestId: string): Record<string, unknown> {
  return {
    candidates: res.choices.map((c) => ({
      content: { role: 'model', parts: candidateParts(c) },
      finishReason: FINISH_OUT[c.finishReason],
      index: c.index,
    })),
    usageMetadata: usageToGemini(res.usage),
    modelVersion: clientModel,
    responseId: res.id || requestId,
  };
}

// ---------- streams ----------

export function createStreamDecoder(): StreamDecoder {
  let started = false;
  const toolCount = new Map<number, number>();
  return {
    push(ev) {
      const j = eventJson(ev.data);
      if (!j) return [];
      const out: CanonicalStreamEvent[] = [];
      if (isObj(j.error)) {
        out.push({
          type: 'error',
          message: String(j.error.message ?? 'upstream error'),
          code: j.error.status ? String(j.error.status) : undefined,
        });
        return out;
      }
      if (!started) {
        started = true;
        out.push({
          type: 'start',
          id: typeof j.responseId === 'string' ? j.responseId : undefined,
          model: typeof j.modelVersion === 'string' ? j.modelVersion : undefined,
        });
      }
      const cands = Array.isArray(j.candidates) ? j.candidates : [];
      cands.forEach((c: any, i: number) => {
        if (!isObj(c)) return;
        const index = typeof c.index === 'number' ? c.index : i;
        for (const p of Array.isArray(c.content?.parts) ? c.content.parts : []) {
          if (!isObj(p)) continue;
          if (isObj(p.functionCall)) {
            const toolIndex = toolCount.get(index) ?? 0;
            toolCount.set(index, toolIndex + 1);
            const id = typeof p.functionCall.id === 'string' && p.functionCall.id ? p.functionCall.id : newToolCallId();
            const sig = p.thoughtSignature ?? p.functionCall.thoughtSignature;
            out.push({
              type: 'tool_call_start',
              index,
              toolIndex,
              id,
              name: String(p.functionCall.name ?? ''),
              ...(typeof sig === 'string' && sig ? { thoughtSignature: sig } : {}),
            });
            out.push({ type: 'tool_call_args', index, toolIndex, delta: argsText(p.functionCall.args ?? {}) });
          } else if (typeof p.text === 'string' && p.thought === true) {
            out.push({
              type: 'thinking',
              index,
              text: p.text,
              from: 'gemini',
              ...(p.thoughtSignature ? { signature: p.thoughtSignature } : {}),
            });
          } else if (typeof p.text === 'string') {
            if (p.text) out.push({ type: 'text', index, text: p.text });
            if (p.thoughtSignature) out.push({ type: 'thinking', index, text: '', signature: p.thoughtSignature, from: 'gemini' });
          } else if (p.thought === true && p.thoughtSignature) {
            out.push({ type: 'thinking', index, text: '', signature: p.thoughtSignature, from: 'gemini' });
          } else if (isObj(p.inlineData) && String(p.inlineData.mimeType ?? '').startsWith('image/')) {
            out.push({ type: 'text', index, text: `![image](data:${p.inlineData.mimeType};base64,${p.inlineData.data})` });
          }
        }
        if (c.finishReason) out.push({ type: 'finish', index, reason: finishFromGemini(c.finishReason, (toolCount.get(index) ?? 0) > 0) });
      });
      if (!cands.length && j.promptFeedback?.blockReason) out.push({ type: 'finish', index: 0, reason: 'content_filter' });
      const u = usageFromGemini(j.usageMetadata);
      if (u) out.push({ type: 'usage', usage: u });
      return out;
    },
    end() {
      return [];
    },
  };
}

/**
 * Gemini streams whole GenerateContentResponse objects. Text and thoughts go out as they come; a
 * function call is sent whole once its arguments are complete; the final chunk carries the finish
 * reasons and usageMetadata.
 */
export function createStreamEncoder(opts: StreamEncoderOptions): StreamEncoder {
  interface Pending {
    call: ToolCall;
    sent: boolean;
  }
  const tools = new Map<number, Pending[]>();
  const byKey = new Map<string, Pending>();
  const finished = new Map<number, FinishReason>();
  let usage: Usage | null = null;
  let ended = false;
  const chunk = (candidates: unknown[], withUsage = false): string => {
    const c: Record<string, unknown> = { candidates };
    if (withUsage) c.usageMetadata = usageToGemini(usage ?? emptyUsage());
    c.modelVersion = opts.model;
    c.responseId = opts.requestId;
    return sse(c);
  };
  const cand = (index: number, parts: unknown[], finish?: FinishReason): Record<string, unknown> => {
    const c: Record<string, unknown> = { content: { role: 'model', parts }, index };
    if (finish) c.finishReason = FINISH_OUT[finish];
    return c;
  };
  const flushTools = (index: number): Record<string, unknown>[] => {
    const list = tools.get(index) ?? [];
    const parts: Record<string, unknown>[] = [];
    for (const t of list)
      if (!t.sent) {
        t.sent = true;
        parts.push(functionCallPart(t.call));
      }
    return parts;
  };
  return {
    push(ev) {
      if (ended) return '';
      switch (ev.type) {
        case 'start':
          return '';
        case 'text':
          return ev.text ? chunk([cand(ev.index, [{ text: ev.text }])]) : '';
        case 'thinking':
          if (ev.redacted || (!ev.text && !(ev.signature && ev.from === 'gemini'))) return '';
          return chunk([
            cand(ev.index, [
              { text: ev.text ?? '', thought: true, ...(ev.signature && ev.from === 'gemini' ? { thoughtSignature: ev.signature } : {}) },
            ]),
          ]);
        case 'tool_call_start': {
          // a new call completes the previous ones of this choice
          const prev = flushTools(ev.index);
          const list = tools.get(ev.index) ?? [];
          const pending: Pending = {
            call: { id: ev.id, name: ev.name, arguments: '', ...(ev.thoughtSignature ? { thoughtSignature: ev.thoughtSignature } : {}) },
            sent: false,
          };
          list.push(pending);
          tools.set(ev.index, list);
          byKey.set(`${ev.index}:${ev.toolIndex}`, pending);
          return prev.length ? chunk([cand(ev.index, prev)]) : '';
        }
        case 'tool_call_args': {
          const t = byKey.get(`${ev.index}:${ev.toolIndex}`);
          if (t && !t.sent) t.call.arguments += ev.delta;
          return '';
        }
        case 'finish':
          finished.set(ev.index, ev.reason);
          return '';
        case 'usage':
          usage = ev.usage;
          return '';
        case 'error':
          return sse({ error: { code: 500, message: ev.message, status: ev.code ?? 'INTERNAL' } });
      }
      return '';
    },
    end() {
      if (ended) return '';
      ended = true;
      const indexes = new Set<number>([...tools.keys(), ...finished.keys()]);
      if (!indexes.size) indexes.add(0);
      const cands = [...indexes].sort((a, b) => a - b).map((i) => cand(i, flushTools(i), finished.get(i) ?? 'stop'));
      return chunk(cands, true);
    },
  };
}

export function errorMessage(j: unknown): string | undefined {
  const e = Array.isArray(j) ? j[0] : j;
  if (isObj(e) && isObj(e.error) && typeof e.error.message === 'string') return e.error.message;
  return undefined;
}
