/** Canonical events → the Responses API's event stream, in OpenAI's order: the codec's stream section (codec.ts). */
import type { FinishReason, StreamEncoder, StreamEncoderOptions, Usage } from '../canonical.ts';
import { emptyUsage } from '../canonical.ts';
import { HOLE, jsonString, sseTemplate } from '../sse-template.ts';
import { type ResponseEcho, callItem, responseObject, responseId, customInput } from './response.ts';

interface OpenItem {
  kind: 'message' | 'reasoning' | 'call';
  index: number;
  id: string;
  text: string;
  callId?: string;
  name?: string;
  custom?: boolean;
  /** Its delta event's template (sequence number and delta spliced in), made at its first delta. */
  deltaT?: string[];
}

/** The delta events of an item, written once per upstream event: the same bytes as the stream's `ev`. */
const deltaTemplate = (type: string, o: OpenItem): string[] => {
  const fields =
    o.kind === 'message'
      ? { item_id: o.id, output_index: o.index, content_index: 0, delta: HOLE, logprobs: [] }
      : o.kind === 'reasoning'
        ? { item_id: o.id, output_index: o.index, summary_index: 0, delta: HOLE }
        : { item_id: o.id, output_index: o.index, delta: HOLE };
  return sseTemplate({ type, sequence_number: HOLE, ...fields }, type, 2);
};

/**
 * Canonical stream events → the Responses event stream (`event: <type>` + JSON with `sequence_number`).
 * `echo` carries what the final Response repeats; `onDone` receives the output items and the usage.
 */
export function createStreamEncoder(
  opts: StreamEncoderOptions,
  echo: ResponseEcho = {},
  onDone?: (output: unknown[], usage: Usage) => void,
): StreamEncoder {
  const id = responseId(opts.requestId);
  const created = opts.created ?? Math.floor(Date.now() / 1000);
  let seq = 0;
  let started = false;
  let ended = false;
  let usage: Usage | null = null;
  let reason: FinishReason | null = null;
  const output: unknown[] = [];
  let open: OpenItem | null = null;
  const toolItems = new Map<number, OpenItem>();
  const ev = (type: string, data: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`;
  /** An item's delta event (`type` is the item's kind's). */
  const delta = (o: OpenItem, type: string, text: string): string => {
    const t = (o.deltaT ??= deltaTemplate(type, o));
    return t[0] + seq++ + t[1] + jsonString(text) + t[2];
  };
  const start = (): string => {
    if (started) return '';
    started = true;
    const r = responseObject(id, created, opts.model, [], null, null, echo, 'in_progress');
    return ev('response.created', { response: r }) + ev('response.in_progress', { response: r });
  };
  const close = (): string => {
    const o = open;
    if (!o) return '';
    open = null;
    let s = '';
    if (o.kind === 'message') {
      const part = { type: 'output_text', text: o.text, annotations: [], logprobs: [] };
      s += ev('response.output_text.done', { item_id: o.id, output_index: o.index, content_index: 0, text: o.text, logprobs: [] });
      s += ev('response.content_part.done', { item_id: o.id, output_index: o.index, content_index: 0, part });
      const item = { type: 'message', id: o.id, status: 'completed', role: 'assistant', content: [part] };
      output[o.index] = item;
      s += ev('response.output_item.done', { output_index: o.index, item });
    } else if (o.kind === 'reasoning') {
      const part = { type: 'summary_text', text: o.text };
      s += ev('response.reasoning_summary_text.done', { item_id: o.id, output_index: o.index, summary_index: 0, text: o.text });
      s += ev('response.reasoning_summary_part.done', { item_id: o.id, output_index: o.index, summary_index: 0, part });
      const item = { type: 'reasoning', id: o.id, summary: [part] };
      output[o.index] = item;
      s += ev('response.output_item.done', { output_index: o.index, item });
    } else {
      if (o.custom) s += ev('response.custom_tool_call_input.done', { item_id: o.id, output_index: o.index, input: customInput(o.text) });
      else s += ev('response.function_call_arguments.done', { item_id: o.id, output_index: o.index, arguments: o.text });
      const item = callItem(o.id, o.callId!, o.name!, o.text, !!o.custom, 'completed', echo.namespacedTools?.get(o.name!));
      output[o.index] = item;
      s += ev('response.output_item.done', { output_index: o.index, item });
    }
    return s;
  };
  const openMessage = (): string => {
    if (open?.kind === 'message') return '';
    let s = close();
    open = { kind: 'message', index: output.length, id: `msg_${opts.requestId}_${output.length}`, text: '' };
    output.push(null);
    s += ev('response.output_item.added', {
      output_index: open.index,
      item: { type: 'message', id: open.id, status: 'in_progress', role: 'assistant', content: [] },
    });
    s += ev('response.content_part.added', {
      item_id: open.id,
      output_index: open.index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
    });
    return s;
  };
  const openReasoning = (): string => {
    if (open?.kind === 'reasoning') return '';
    let s = close();
    open = { kind: 'reasoning', index: output.length, id: `rs_${opts.requestId}_${output.length}`, text: '' };
    output.push(null);
    s += ev('response.output_item.added', { output_index: open.index, item: { type: 'reasoning', id: open.id, summary: [] } });
    s += ev('response.reasoning_summary_part.added', {
      item_id: open.id,
      output_index: open.index,
      summary_index: 0,
      part: { type: 'summary_text', text: '' },
    });
    return s;
  };
  return {
    push(e) {
      if (ended) return '';
      let s = start();
      switch (e.type) {
        case 'start':
          return s;
        case 'text':
          if (e.index !== 0 || !e.text) return s;
          s += openMessage();
          open!.text += e.text;
          return s + delta(open!, 'response.output_text.delta', e.text);
        case 'thinking':
          if (e.index !== 0 || !e.text) return s;
          s += openReasoning();
          open!.text += e.text;
          return s + delta(open!, 'response.reasoning_summary_text.delta', e.text);
        case 'tool_call_start': {
          if (e.index !== 0) return s;
          s += close();
          const custom = !!echo.customTools?.has(e.name);
          const item: OpenItem = {
            kind: 'call',
            index: output.length,
            id: `fc_${opts.requestId}_${output.length}`,
            text: '',
            callId: e.id,
            name: e.name,
            custom,
          };
          output.push(null);
          open = item;
          toolItems.set(e.toolIndex, item);
          return (
            s +
            ev('response.output_item.added', {
              output_index: item.index,
              item: callItem(item.id, e.id, e.name, '', custom, 'in_progress', echo.namespacedTools?.get(e.name)),
            })
          );
        }
        case 'tool_call_args': {
          const item = toolItems.get(e.toolIndex);
          if (e.index !== 0 || !item || !e.delta) return s;
          item.text += e.delta;
          // Arguments of a call that is no longer the open item (interleaved calls) are kept for its done event only.
          if (open !== item) return s;
          return item.custom ? s : s + delta(item, 'response.function_call_arguments.delta', e.delta);
        }
        case 'finish':
          if (e.index === 0) reason = e.reason;
          return s;
        case 'usage':
          usage = e.usage;
          return s;
        case 'error':
          ended = true;
          return (
            s +
            ev('error', { code: e.code ?? 'upstream_error', message: e.message, param: null }) +
            ev('response.failed', {
              response: {
                ...responseObject(id, created, opts.model, output.filter(Boolean), usage, null, echo, 'failed'),
                error: { code: 'server_error', message: e.message },
              },
            })
          );
      }
      return s;
    },
    end() {
      if (ended) return '';
      ended = true;
      let s = start() + close();
      // Calls that were interleaved and not closed in order.
      for (const item of toolItems.values())
        if (output[item.index] === null)
          output[item.index] = callItem(
            item.id,
            item.callId!,
            item.name!,
            item.text,
            !!item.custom,
            'completed',
            echo.namespacedTools?.get(item.name!),
          );
      const items = output.filter(Boolean);
      const u = usage ?? emptyUsage();
      onDone?.(items, u);
      const final = responseObject(id, created, opts.model, items, u, reason ?? 'stop', echo);
      s += ev(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final });
      return s;
    },
  };
}

/** The stream's error event in the Responses family (a balance that ran out mid-stream, an upstream failure). */
export function streamError(code: string, message: string): string {
  return `event: error\ndata: ${JSON.stringify({ type: 'error', code, message, param: null, sequence_number: 0 })}\n\n`;
}
