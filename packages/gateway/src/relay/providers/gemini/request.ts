/** Gemini generateContent requests ⇄ canonical: the codec's request section (codec.ts). */
import type { AssistantMessage, CanonicalRequest, ContentPart, Message, Tool, ToolCall } from '../canonical.ts';
import {
  applyExtra,
  choiceCount,
  tokenCount,
  argsObject,
  argsText,
  bad,
  budgetForEffort,
  effortForBudget,
  guessMime,
  int,
  isObj,
  num,
  safeJsonParse,
  str,
  textOf,
} from '../canonical.ts';
import { decodeResponseFormat, encodeResponseFormat, openApiToJsonSchema } from './structured-output.ts';

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

export function decodePart(p: Record<string, any>, f: string): ContentPart | null {
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
        if (isObj(params)) tool.parameters = d.parametersJsonSchema ? params : openApiToJsonSchema(params);
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
    const rf = decodeResponseFormat(g);
    if (rf) req.responseFormat = rf;
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
  if (req.responseFormat) encodeResponseFormat(req.responseFormat, gen);
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
