/** Gemini generateContent answers ⇄ canonical: the codec's response section (codec.ts); an array body is read as the stream it was. */
import type { CanonicalChoice, CanonicalResponse, CanonicalStreamEvent, ContentPart, ToolCall } from '../canonical.ts';
import { argsText, bad, emptyUsage, isObj, newToolCallId } from '../canonical.ts';
import { decodePart } from './request.ts';
import { usageFromGemini, usageToGemini, finishFromGemini, FINISH_OUT, functionCallPart } from './usage.ts';
import { createStreamDecoder } from './stream.ts';

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
