/**
 * Amazon Bedrock Converse / ConverseStream ⇄ canonical. Bedrock is an upstream format only: no caller
 * speaks it. A Converse body is `{messages, system, inferenceConfig, toolConfig,
 * additionalModelRequestFields}`; content blocks are `{text}`, `{image}`, `{document}`, `{toolUse}`,
 * `{toolResult}`, `{reasoningContent}` and `{cachePoint}` (a prompt-cache breakpoint after the block
 * before it). ConverseStream events arrive as AWS event-stream messages (endpoint.ts frames them)
 * named by their `:event-type`: `messageStart`, `contentBlockStart`, `contentBlockDelta`,
 * `contentBlockStop`, `messageStop` (the stop reason) and `metadata` (the usage); an exception
 * (`:exception-type`, e.g. `throttlingException`) carries `{message}`.
 *
 * Anthropic models on Bedrock (`anthropic.claude-…`, `us.anthropic.claude-…`) take Anthropic's own
 * request fields through `additionalModelRequestFields`: `thinking`, `top_k` and `anthropic_beta`.
 */
import type {
  CanonicalChoice,
  CanonicalRequest,
  CanonicalResponse,
  CanonicalStreamEvent,
  ContentPart,
  FinishReason,
  StreamDecoder,
  ToolCall,
  Usage,
} from '../canonical.ts';
import { createHash } from 'node:crypto';
import { argsObject, argsText, bad, budgetForEffort, emptyUsage, eventJson, isObj, n0, newToolCallId, pushTurn } from '../canonical.ts';
import { encodeOutputConfig } from './structured-output.ts';

/** Anthropic's models on Bedrock: `anthropic.claude-…`, with a cross-region prefix (`us.`, `eu.`, `global.` …) or in an ARN. */
export const isBedrockAnthropic = (model: string): boolean => /(?:^|[.:/])anthropic\.claude/i.test(model);

export interface BedrockEncodeOptions {
  /** Anthropic betas (the caller's `anthropic-beta` header), for Anthropic models. */
  anthropicBeta?: string[];
}

type Block = Record<string, unknown>;

/** The cache point of a breakpoint: Bedrock's default TTL (five minutes), or the hour a `cache_control` asks for. */
const cachePoint = (cc: unknown): Block => ({
  cachePoint: isObj(cc) && cc.ttl === '1h' ? { type: 'default', ttl: '1h' } : { type: 'default' },
});
/** max_tokens Anthropic models get with thinking when the caller named none (as the Anthropic encoder does). */
const THINKING_HEADROOM = 4096;

const IMAGE_FORMATS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
const DOCUMENT_FORMATS: Record<string, string> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

// ---------- request ----------

/** A document name Bedrock accepts (letters, digits, single spaces, hyphens, parentheses, brackets), unique in the request. */
function documentName(filename: string | undefined, n: number): string {
  const base = (filename ?? '')
    .replace(/\.[A-Za-z0-9]+$/, '')
    .replace(/[^A-Za-z0-9 ()[\]-]+/g, '-')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100);
  return `${base || 'document'}-${n}`;
}

interface EncodeState {
  dropped: string[];
  documents: number;
}

function encodeParts(parts: ContentPart[], st: EncodeState, where: string, role: 'user' | 'assistant'): Block[] {
  const out: Block[] = [];
  for (const p of parts) {
    let b: Block | null = null;
    switch (p.type) {
      case 'text':
        if (!p.text) continue; // Bedrock refuses blank text blocks
        b = { text: p.text };
        break;
      case 'image': {
        if (p.source.kind === 'url') {
          st.dropped.push(`${where}: image URL (Bedrock takes inline images)`);
          continue;
        }
        const format = IMAGE_FORMATS[p.source.mediaType.toLowerCase()];
        if (!format) {
          st.dropped.push(`${where}: image of type ${p.source.mediaType}`);
          continue;
        }
        if (p.detail) st.dropped.push(`${where}: image detail`);
        b = { image: { format, source: { bytes: p.source.data } } };
        break;
      }
      case 'file': {
        const format = DOCUMENT_FORMATS[(p.mediaType ?? 'application/pdf').toLowerCase()];
        if (!p.data || !format) {
          st.dropped.push(`${where}: file (${p.data ? (p.mediaType ?? 'unknown type') : 'by URL'})`);
          continue;
        }
        b = { document: { format, name: documentName(p.filename, ++st.documents), source: { bytes: p.data } } };
        break;
      }
      case 'audio':
        st.dropped.push(`${where}: audio input`);
        continue;
      case 'thinking':
        if (role !== 'assistant') continue;
        if (p.redacted) b = { reasoningContent: { redactedContent: p.redacted } };
        else if (p.signature && p.from !== 'gemini') b = { reasoningContent: { reasoningText: { text: p.text, signature: p.signature } } };
        else {
          if (p.text) st.dropped.push(`${where}: thinking without a signature`);
          continue;
        }
        break;
    }
    if (!b) continue;
    out.push(b);
    if ('cacheControl' in p && p.cacheControl) out.push(cachePoint(p.cacheControl));
  }
  return out;
}

/** The betas of an `anthropic-beta` header value or an `anthropic_beta` body field. */
export function betaList(v: unknown): string[] {
  const list = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : [];
  return list
    .filter((x): x is string => typeof x === 'string')
    .map((x) => x.trim())
    .filter(Boolean);
}

/**
 * Betas that name the client or its sign-in rather than a model feature (Claude Code sends them on
 * every call): Bedrock refuses a request that names them, so they are not passed on.
 */
const CLIENT_BETAS = /^(claude-code|oauth)-/;

/** A tool-use id as Converse takes it (`[A-Za-z0-9_-]{1,64}`): others are rewritten, the same way every time. */
export function toolUseId(id: string): string {
  if (/^[A-Za-z0-9_-]{1,64}$/.test(id)) return id;
  const clean = id.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 40);
  return `${clean}_${createHash('sha256').update(id).digest('hex').slice(0, 23)}`;
}

export function encodeRequest(req: CanonicalRequest, upstreamModel: string, opts: BedrockEncodeOptions = {}): Record<string, unknown> {
  // First: JSON without a schema is asked for through a forced tool, which the toolConfig below then carries.
  const outputConfig = encodeOutputConfig(req);
  const anthropic = isBedrockAnthropic(upstreamModel);
  const st: EncodeState = { dropped: req.dropped, documents: 0 };
  const system: Block[] = [];
  const messages: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  /** Tool names used in the conversation: Bedrock wants a toolConfig whenever toolUse or toolResult blocks appear. */
  const usedTools = new Set<string>();
  // A cache point after tool results stays with them.
  const push = (role: 'user' | 'assistant', blocks: Block[]) =>
    pushTurn(
      messages,
      role,
      blocks,
      (b) => 'toolResult' in b,
      (b) => 'toolResult' in b || 'cachePoint' in b,
    );
  req.messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    switch (m.role) {
      case 'system':
        for (const b of encodeParts(m.parts, st, where, 'user')) if ('text' in b || 'cachePoint' in b) system.push(b);
        break;
      case 'user':
        push('user', encodeParts(m.parts, st, where, 'user'));
        break;
      case 'assistant': {
        const blocks = encodeParts(m.parts, st, where, 'assistant');
        for (const c of m.toolCalls) {
          usedTools.add(c.name);
          blocks.push({ toolUse: { toolUseId: toolUseId(c.id), name: c.name, input: argsObject(c.arguments, req.dropped, where) } });
          if (c.cacheControl) blocks.push(cachePoint(c.cacheControl));
        }
        push('assistant', blocks);
        break;
      }
      case 'tool': {
        if (m.name) usedTools.add(m.name);
        const content: Block[] = [];
        for (const b of encodeParts(m.parts, st, where, 'user')) {
          if ('text' in b || 'image' in b || 'document' in b) content.push(b);
        }
        const result: Block = { toolUseId: toolUseId(m.toolCallId), content: content.length ? content : [{ text: '(empty)' }] };
        if (m.isError) result.status = 'error';
        push('user', m.cacheControl ? [{ toolResult: result }, cachePoint(m.cacheControl)] : [{ toolResult: result }]);
        break;
      }
    }
  });
  const body: Record<string, unknown> = { messages };
  if (system.length) body.system = system;
  const inference: Record<string, unknown> = {};
  if (req.maxTokens !== undefined) inference.maxTokens = req.maxTokens;
  if (req.temperature !== undefined) inference.temperature = anthropic ? Math.min(1, req.temperature) : req.temperature;
  if (req.topP !== undefined) inference.topP = req.topP;
  if (req.stop?.length) inference.stopSequences = req.stop;
  const extra: Record<string, unknown> = {};
  if (req.topK !== undefined) {
    if (anthropic) extra.top_k = req.topK;
    else req.dropped.push('top_k');
  }
  if (req.n !== undefined && req.n > 1) req.dropped.push('n (Bedrock returns one choice)');
  if (req.seed !== undefined) req.dropped.push('seed');
  if (req.presencePenalty !== undefined) req.dropped.push('presence_penalty');
  if (req.frequencyPenalty !== undefined) req.dropped.push('frequency_penalty');
  if (req.reasoning) {
    const r = req.reasoning;
    if (!anthropic) req.dropped.push('reasoning (only Anthropic models on Bedrock take a thinking budget here)');
    else if (r.enabled === false) {
      if (req.sourceFormat === 'anthropic') extra.thinking = { type: 'disabled' };
    } else {
      // As on Anthropic's API: budget_tokens is at least 1024 and below max_tokens.
      let budget = Math.max(1024, r.budgetTokens ?? budgetForEffort(r.effort) ?? 2048);
      let max = inference.maxTokens as number | undefined;
      if (max === undefined) inference.maxTokens = max = budget + THINKING_HEADROOM;
      else if (budget >= max) budget = max - 1;
      if (budget >= 1024) {
        extra.thinking = { type: 'enabled', budget_tokens: budget };
        // Thinking refuses changed sampling; a native caller's body is left as sent.
        if (req.sourceFormat !== 'anthropic') {
          if (inference.temperature !== undefined && inference.temperature !== 1) {
            delete inference.temperature;
            req.dropped.push('temperature (not allowed with thinking)');
          }
          if (extra.top_k !== undefined) {
            delete extra.top_k;
            req.dropped.push('top_k (not allowed with thinking)');
          }
        }
      } else req.dropped.push('reasoning (max_tokens too small for a thinking budget)');
    }
  }
  if (Object.keys(inference).length) body.inferenceConfig = inference;
  if (outputConfig) body.outputConfig = outputConfig;
  const betas = [...new Set([...(opts.anthropicBeta ?? []), ...betaList(req.extra.anthropic_beta)])].filter((b) => !CLIENT_BETAS.test(b));
  if (betas.length) {
    if (anthropic) extra.anthropic_beta = betas;
    else req.dropped.push('anthropic_beta (not an Anthropic model)');
  }
  if (Object.keys(extra).length) body.additionalModelRequestFields = extra;
  const tools: Block[] = [];
  for (const t of req.tools ?? []) {
    if (t.native) {
      req.dropped.push(`tools.${t.name} (native ${t.native.format} tool)`);
      continue;
    }
    const spec: Record<string, unknown> = { name: t.name };
    if (t.description) spec.description = t.description;
    spec.inputSchema = { json: t.parameters ?? { type: 'object', properties: {} } };
    tools.push({ toolSpec: spec });
    if (t.cacheControl) tools.push(cachePoint(t.cacheControl));
    usedTools.delete(t.name);
  }
  // A conversation with tool calls but no tool list (or one that no longer names them): the missing tools are declared without a schema.
  if (tools.length || usedTools.size) {
    for (const name of usedTools) tools.push({ toolSpec: { name, inputSchema: { json: { type: 'object', properties: {} } } } });
    const toolConfig: Record<string, unknown> = { tools };
    const tc = req.toolChoice;
    if (tc === 'required') toolConfig.toolChoice = { any: {} };
    else if (tc === 'auto') toolConfig.toolChoice = { auto: {} };
    else if (tc === 'none') req.dropped.push('tool_choice none (Bedrock has no equivalent)');
    else if (tc) toolConfig.toolChoice = { tool: { name: tc.name } };
    if (req.parallelToolCalls === false) req.dropped.push('parallel_tool_calls');
    body.toolConfig = toolConfig;
  }
  for (const k of Object.keys(req.extra)) if (k !== 'anthropic_beta') req.dropped.push(k);
  if (req.geminiGenerationConfig) {
    for (const k of Object.keys(req.geminiGenerationConfig))
      if (k !== 'thinkingConfig' && k !== 'responseSchema') req.dropped.push(`generationConfig.${k}`);
  }
  return body;
}

// ---------- usage ----------

/** Bedrock's usage: `inputTokens` excludes the cache reads and writes, reported on their own. */
export function usageFromBedrock(u: unknown): Usage | null {
  if (!isObj(u)) return null;
  const read = n0(u.cacheReadInputTokens);
  const write = n0(u.cacheWriteInputTokens);
  return {
    inputTokens: n0(u.inputTokens) + read + write,
    outputTokens: n0(u.outputTokens),
    cachedInputTokens: read,
    cacheWriteTokens: write,
    reasoningTokens: 0,
  };
}

export function usageFromResponse(body: unknown): Usage | null {
  return isObj(body) ? usageFromBedrock(body.usage) : null;
}

export function usageFromStreamEvent(ev: { event?: string; data: string }): Partial<Usage> | null {
  if (ev.event !== 'metadata') return null;
  const j = eventJson(ev.data);
  return j ? usageFromBedrock(j.usage) : null;
}

// ---------- response ----------

const STOP_IN: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};
export const finishFromBedrock = (r: unknown): FinishReason => (typeof r === 'string' && STOP_IN[r]) || 'stop';

export function decodeResponse(body: unknown): CanonicalResponse {
  if (!isObj(body)) throw bad('upstream response', 'is not a JSON object');
  const msg = isObj(body.output) && isObj(body.output.message) ? body.output.message : null;
  if (!msg) throw bad('upstream response', 'has no output.message');
  const parts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  const dropped: string[] = [];
  for (const b of Array.isArray(msg.content) ? msg.content : []) {
    if (!isObj(b)) continue;
    if (typeof b.text === 'string') parts.push({ type: 'text', text: b.text });
    else if (isObj(b.toolUse)) {
      toolCalls.push({
        id: String(b.toolUse.toolUseId ?? newToolCallId()),
        name: String(b.toolUse.name ?? ''),
        arguments: argsText(b.toolUse.input ?? {}),
      });
    } else if (isObj(b.reasoningContent)) {
      const rc = b.reasoningContent;
      if (isObj(rc.reasoningText)) {
        parts.push({
          type: 'thinking',
          text: String(rc.reasoningText.text ?? ''),
          ...(rc.reasoningText.signature ? { signature: String(rc.reasoningText.signature) } : {}),
          from: 'bedrock',
        });
      } else if (typeof rc.redactedContent === 'string')
        parts.push({ type: 'thinking', text: '', redacted: rc.redactedContent, from: 'bedrock' });
    } else dropped.push(`content block ${Object.keys(b).join(',')}`);
  }
  const choice: CanonicalChoice = { index: 0, parts, toolCalls, finishReason: finishFromBedrock(body.stopReason) };
  return { id: '', choices: [choice], usage: usageFromBedrock(body.usage) ?? emptyUsage(), dropped };
}

// ---------- streams ----------

const STREAM_EVENTS = new Set(['messageStart', 'contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata']);

/** Decodes ConverseStream events (`event` is the message's `:event-type`, or its `:exception-type` for an exception). */
export function createStreamDecoder(): StreamDecoder {
  const blockTool = new Map<number, number>(); // content block index → tool index
  let tools = 0;
  let started = false;
  const start = (out: CanonicalStreamEvent[]) => {
    if (!started) {
      started = true;
      out.push({ type: 'start' });
    }
  };
  return {
    push(ev) {
      const j = eventJson(ev.data);
      if (!j) return [];
      const out: CanonicalStreamEvent[] = [];
      const name = ev.event ?? '';
      if (!STREAM_EVENTS.has(name)) {
        const message = typeof j.message === 'string' ? j.message : typeof j.Message === 'string' ? j.Message : '';
        if (message || /exception|error/i.test(name))
          out.push({ type: 'error', message: message || 'upstream error', ...(name ? { code: name } : {}) });
        return out;
      }
      start(out);
      switch (name) {
        case 'contentBlockStart': {
          const s = isObj(j.start) ? j.start : {};
          if (isObj(s.toolUse)) {
            const toolIndex = tools++;
            blockTool.set(n0(j.contentBlockIndex), toolIndex);
            out.push({
              type: 'tool_call_start',
              index: 0,
              toolIndex,
              id: String(s.toolUse.toolUseId ?? newToolCallId()),
              name: String(s.toolUse.name ?? ''),
            });
          }
          break;
        }
        case 'contentBlockDelta': {
          const d = isObj(j.delta) ? j.delta : {};
          if (typeof d.text === 'string') {
            if (d.text) out.push({ type: 'text', index: 0, text: d.text });
          } else if (isObj(d.toolUse)) {
            const toolIndex = blockTool.get(n0(j.contentBlockIndex));
            if (toolIndex !== undefined && typeof d.toolUse.input === 'string' && d.toolUse.input)
              out.push({ type: 'tool_call_args', index: 0, toolIndex, delta: d.toolUse.input });
          } else if (isObj(d.reasoningContent)) {
            const rc = d.reasoningContent;
            if (typeof rc.text === 'string' && rc.text) out.push({ type: 'thinking', index: 0, text: rc.text, from: 'bedrock' });
            if (typeof rc.signature === 'string' && rc.signature)
              out.push({ type: 'thinking', index: 0, signature: rc.signature, from: 'bedrock' });
            if (typeof rc.redactedContent === 'string' && rc.redactedContent)
              out.push({ type: 'thinking', index: 0, redacted: rc.redactedContent, from: 'bedrock' });
          }
          break;
        }
        case 'messageStop':
          out.push({ type: 'finish', index: 0, reason: finishFromBedrock(j.stopReason) });
          break;
        case 'metadata': {
          const u = usageFromBedrock(j.usage);
          if (u) out.push({ type: 'usage', usage: u });
          break;
        }
        default:
          break; // messageStart, contentBlockStop
      }
      return out;
    },
    end() {
      return [];
    },
  };
}

// ---------- errors ----------

/** The message of a Bedrock error body: `{message}` (some services write `Message`). */
export function errorMessage(j: unknown): string | undefined {
  if (!isObj(j)) return undefined;
  if (typeof j.message === 'string') return j.message;
  if (typeof j.Message === 'string') return j.Message;
  return undefined;
}

/** The error type of an `x-amzn-errortype` header (`ThrottlingException:http://…` → `ThrottlingException`). */
export function errorType(header: string | string[] | undefined): string {
  const h = Array.isArray(header) ? header[0] : header;
  return h ? h.split(':')[0].trim().slice(0, 100) : '';
}
