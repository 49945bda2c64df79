/** Gemini streamGenerateContent event streams ⇄ canonical events: the codec's stream section (codec.ts). */
import type {
  CanonicalStreamEvent,
  FinishReason,
  StreamDecoder,
  StreamEncoder,
  StreamEncoderOptions,
  ToolCall,
  Usage,
} from '../canonical.ts';
import { argsText, emptyUsage, eventJson, isObj, newToolCallId, sse, streamStart, upstreamError } from '../canonical.ts';
import { usageFromResponse, usageToGemini, finishFromGemini, FINISH_OUT, functionCallPart } from './usage.ts';

export function createStreamDecoder(): StreamDecoder {
  let started = false;
  const toolCount = new Map<number, number>();
  return {
    push(ev) {
      const j = eventJson(ev.data);
      if (!j) return [];
      if (isObj(j.error)) return [upstreamError(j.error.message, j.error.status)];
      const out: CanonicalStreamEvent[] = [];
      if (!started) {
        started = true;
        out.push(streamStart(j.responseId, j.modelVersion));
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
      // The chunk's usage with the searches its grounding reports (billing/price-rules.ts).
      const u = usageFromResponse(j);
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
