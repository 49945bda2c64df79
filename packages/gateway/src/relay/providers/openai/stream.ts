/** OpenAI Chat Completions chunk streams ⇄ canonical events: the codec's stream section (codec.ts). */
import type { CanonicalStreamEvent, StreamDecoder, StreamEncoder, StreamEncoderOptions, Usage } from '../canonical.ts';
import { emptyUsage, eventJson, isObj, newToolCallId, splitSignedId, sse, streamStart, upstreamError } from '../canonical.ts';
import { HOLE, jsonString, sseTemplate } from '../sse-template.ts';
import { EventTemplate } from '../event-template.ts';
import { decodeThinkingBlocks } from './thinking.ts';
import { usageFromResponse, usageToOpenAI, finishFromOpenAI, finishToOpenAI, toolCallOut } from './response.ts';

export function createStreamDecoder(): StreamDecoder {
  let started = false;
  const seenTools = new Map<string, string>(); // `${choice}:${toolIndex}` → id
  /** Content or reasoning chunks read from a template (event-template.ts): their kind and choice. */
  const tpl = new EventTemplate();
  let tplThinking = false;
  let tplIndex = 0;
  return {
    push(ev) {
      const t = tpl.match(ev.data);
      if (t !== undefined) {
        if (!t) return [];
        return [tplThinking ? { type: 'thinking', index: tplIndex, text: t } : { type: 'text', index: tplIndex, text: t }];
      }
      const j = eventJson(ev.data);
      if (!j) return [];
      if (isObj(j.error)) return [upstreamError(j.error.message, j.error.code)];
      const out: CanonicalStreamEvent[] = [];
      if (!started) {
        started = true;
        out.push(streamStart(j.id, j.model));
      }
      for (const c of Array.isArray(j.choices) ? j.choices : []) {
        const index = typeof c?.index === 'number' ? c.index : 0;
        const d = isObj(c?.delta) ? c.delta : {};
        const reasoning =
          typeof d.reasoning_content === 'string' ? d.reasoning_content : typeof d.reasoning === 'string' ? d.reasoning : '';
        if (reasoning) out.push({ type: 'thinking', index, text: reasoning });
        // The text of a block came as reasoning_content; the block adds its signature or redacted data.
        if (d.thinking_blocks !== undefined)
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
      // The chunk's usage with the service tier it names (billing/price-rules.ts).
      const u = usageFromResponse(j);
      if (u) out.push({ type: 'usage', usage: u });
      if (out.length === 1 && Array.isArray(j.choices) && j.choices.length === 1 && isObj(j.choices[0]?.delta))
        learn(ev.data, j.choices[0].delta, out[0]);
      return out;
    },
    end() {
      return [];
    },
  };
  /**
   * Learns the template of a chunk that gave one text or reasoning event and nothing else (no start,
   * tool call, finish or usage, which stay the same for any text in its place): its content (not a
   * refusal), its `reasoning_content`, or its `reasoning` when it has no `reasoning_content`.
   */
  function learn(data: string, d: Record<string, any>, e: CanonicalStreamEvent): void {
    let key: string;
    if (e.type === 'text') {
      if (d.content !== e.text) return;
      key = 'content';
    } else if (e.type === 'thinking' && e.text !== undefined && e.signature === undefined && e.redacted === undefined) {
      key = typeof d.reasoning_content === 'string' ? 'reasoning_content' : 'reasoning';
      if (d[key] !== e.text) return;
    } else return;
    tpl.learn(data, d[key], (j) => j?.choices?.[0]?.delta?.[key]);
    tplThinking = e.type === 'thinking';
    tplIndex = e.index;
  }
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
  /**
   * The chunks of every upstream event once a choice's role is sent, from templates made once per stream
   * (the choice's index and the text spliced in): the same bytes as `delta`.
   */
  const template = (d: Record<string, unknown>, holes: number): string[] => {
    const c: Record<string, unknown> = {
      id,
      object: 'chat.completion.chunk',
      created,
      model: opts.model,
      choices: [{ index: HOLE, delta: d, logprobs: null, finish_reason: null }],
    };
    if (opts.includeUsage) c.usage = null;
    return sseTemplate(c, undefined, holes);
  };
  const textT = template({ content: HOLE }, 2);
  let reasoningT: string[] | undefined;
  let argsT: string[] | undefined;
  const textDelta = (t: string[], index: number, text: string): string => t[0] + index + t[1] + jsonString(text) + t[2];
  return {
    push(ev) {
      switch (ev.type) {
        case 'start':
          return '';
        case 'text':
          if (!ev.text) return '';
          return roleSent.has(ev.index) ? textDelta(textT, ev.index, ev.text) : delta(ev.index, { content: ev.text });
        case 'thinking': {
          if (ev.text && !ev.redacted && !ev.signature && roleSent.has(ev.index)) {
            if (ev.from !== 'gemini') thought.set(ev.index, (thought.get(ev.index) ?? '') + ev.text);
            return textDelta((reasoningT ??= template({ reasoning_content: HOLE }, 2)), ev.index, ev.text);
          }
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
          if (!ev.delta) return '';
          if (roleSent.has(ev.index)) {
            const t = (argsT ??= template({ tool_calls: [{ index: HOLE, function: { arguments: HOLE } }] }, 3));
            return t[0] + ev.index + t[1] + ev.toolIndex + t[2] + jsonString(ev.delta) + t[3];
          }
          return delta(ev.index, { tool_calls: [{ index: ev.toolIndex, function: { arguments: ev.delta } }] });
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
