/** Anthropic Messages event streams ⇄ canonical events: the codec's stream section (codec.ts). */
import type { CanonicalStreamEvent, FinishReason, StreamDecoder, StreamEncoder, StreamEncoderOptions, Usage } from '../canonical.ts';
import {
  GEMINI_SIG_PREFIX,
  emptyUsage,
  eventJson,
  idWithSignature,
  isObj,
  newToolCallId,
  splitSignedId,
  sse,
  upstreamError,
} from '../canonical.ts';
import { HOLE, jsonString, sseTemplate } from '../sse-template.ts';
import { EventTemplate } from '../event-template.ts';
import { usageToAnthropic, partialUsage, finishFromAnthropic, STOP_OUT } from './response.ts';

/** The deltas of a block (its index and the delta's text spliced in): written once per upstream event. */
const deltaTemplate = (type: string, key: string): string[] =>
  sseTemplate({ type: 'content_block_delta', index: HOLE, delta: { type, [key]: HOLE } }, 'content_block_delta', 2);
const TEXT_DELTA = deltaTemplate('text_delta', 'text');
const THINKING_DELTA = deltaTemplate('thinking_delta', 'thinking');
const JSON_DELTA = deltaTemplate('input_json_delta', 'partial_json');
/** A block's delta event from its template. */
const deltaEvent = (t: string[], index: number, text: string): string => t[0] + index + t[1] + jsonString(text) + t[2];

export function createStreamDecoder(): StreamDecoder {
  const usage = emptyUsage();
  const blockTool = new Map<number, number>(); // content block index → tool index
  let tools = 0;
  /**
   * Block deltas read from a template (event-template.ts): the delta's type and the block's index (for
   * a tool's arguments, looked up as the whole event's reading does).
   */
  const tpl = new EventTemplate();
  let tplType = '';
  let tplBlock: unknown = 0;
  return {
    push(ev) {
      const t = tpl.match(ev.data);
      if (t !== undefined) {
        if (tplType === 'text_delta') return [{ type: 'text', index: 0, text: t }];
        if (tplType === 'thinking_delta') return [{ type: 'thinking', index: 0, text: t, from: 'anthropic' }];
        const toolIndex = blockTool.get(tplBlock as number);
        return toolIndex !== undefined && t ? [{ type: 'tool_call_args', index: 0, toolIndex, delta: t }] : [];
      }
      const j = eventJson(ev.data);
      if (!j) return [];
      const out: CanonicalStreamEvent[] = [];
      switch (j.type) {
        case 'message_start': {
          const m = isObj(j.message) ? j.message : {};
          const u = partialUsage(m.usage);
          if (u) Object.assign(usage, u);
          out.push({ type: 'start', id: m.id, model: m.model, ...(u ? { usage: u } : {}) });
          if (u) out.push({ type: 'usage', usage: { ...usage } });
          break;
        }
        case 'content_block_start': {
          const b = isObj(j.content_block) ? j.content_block : {};
          if (b.type === 'text' && b.text) out.push({ type: 'text', index: 0, text: b.text });
          else if (b.type === 'tool_use') {
            const toolIndex = tools++;
            blockTool.set(j.index, toolIndex);
            const { id, signature } = splitSignedId(String(b.id ?? newToolCallId()));
            out.push({
              type: 'tool_call_start',
              index: 0,
              toolIndex,
              id,
              name: String(b.name ?? ''),
              ...(signature ? { thoughtSignature: signature } : {}),
            });
            if (isObj(b.input) && Object.keys(b.input).length)
              out.push({ type: 'tool_call_args', index: 0, toolIndex, delta: JSON.stringify(b.input) });
          } else if (b.type === 'thinking') {
            out.push({
              type: 'thinking',
              index: 0,
              text: String(b.thinking ?? ''),
              from: 'anthropic',
              ...(b.signature ? { signature: b.signature } : {}),
            });
          } else if (b.type === 'redacted_thinking')
            out.push({ type: 'thinking', index: 0, redacted: String(b.data ?? ''), from: 'anthropic' });
          break;
        }
        case 'content_block_delta': {
          const d = isObj(j.delta) ? j.delta : {};
          if (d.type === 'text_delta') out.push({ type: 'text', index: 0, text: String(d.text ?? '') });
          else if (d.type === 'input_json_delta') {
            const toolIndex = blockTool.get(j.index);
            if (toolIndex !== undefined && d.partial_json)
              out.push({ type: 'tool_call_args', index: 0, toolIndex, delta: String(d.partial_json) });
          } else if (d.type === 'thinking_delta')
            out.push({ type: 'thinking', index: 0, text: String(d.thinking ?? ''), from: 'anthropic' });
          else if (d.type === 'signature_delta')
            out.push({ type: 'thinking', index: 0, signature: String(d.signature ?? ''), from: 'anthropic' });
          // A text, thinking or argument delta whose string is read as it is: later ones from the template.
          const key =
            d.type === 'text_delta'
              ? 'text'
              : d.type === 'thinking_delta'
                ? 'thinking'
                : d.type === 'input_json_delta'
                  ? 'partial_json'
                  : '';
          if (key && typeof d[key] === 'string') {
            tpl.learn(ev.data, d[key], (o) => o?.delta?.[key]);
            tplType = d.type;
            tplBlock = j.index;
          }
          break;
        }
        case 'message_delta': {
          const u = partialUsage(j.usage);
          if (u) Object.assign(usage, u);
          if (j.delta?.stop_reason) out.push({ type: 'finish', index: 0, reason: finishFromAnthropic(j.delta.stop_reason) });
          if (u) out.push({ type: 'usage', usage: { ...usage } });
          break;
        }
        case 'error':
          out.push(upstreamError(j.error?.message, j.error?.type));
          break;
        default:
          break; // ping, content_block_stop, message_stop
      }
      return out;
    },
    end() {
      return [];
    },
  };
}

export function createStreamEncoder(opts: StreamEncoderOptions): StreamEncoder {
  let started = false;
  let ended = false;
  let block = -1; // index of the open block, -1 when none
  let blockKind: 'text' | 'thinking' | 'tool' | null = null;
  let nextBlock = 0;
  let stopReason: FinishReason | null = null;
  let usage: Usage = emptyUsage();
  let startUsage: Partial<Usage> | undefined;
  const toolBlocks = new Map<number, number>();

  const start = (): string => {
    if (started) return '';
    started = true;
    const u = { ...emptyUsage(), ...startUsage };
    return sse(
      {
        type: 'message_start',
        message: {
          id: `msg_${opts.requestId}`,
          type: 'message',
          role: 'assistant',
          model: opts.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usageToAnthropic(u), output_tokens: Math.max(1, u.outputTokens) },
        },
      },
      'message_start',
    );
  };
  const close = (): string => {
    if (block < 0) return '';
    const s = sse({ type: 'content_block_stop', index: block }, 'content_block_stop');
    block = -1;
    blockKind = null;
    return s;
  };
  const open = (kind: 'text' | 'thinking' | 'tool', contentBlock: Record<string, unknown>): string => {
    let s = close();
    block = nextBlock++;
    blockKind = kind;
    s += sse({ type: 'content_block_start', index: block, content_block: contentBlock }, 'content_block_start');
    return s;
  };
  const delta = (d: Record<string, unknown>): string => sse({ type: 'content_block_delta', index: block, delta: d }, 'content_block_delta');

  return {
    push(ev) {
      if (ended) return '';
      if (ev.type === 'start') {
        if (ev.usage) startUsage = ev.usage;
        return start();
      }
      if (ev.type === 'usage') {
        usage = ev.usage;
        return '';
      }
      if (ev.type === 'error') {
        return (
          start() +
          sse({ type: 'error', error: { type: ev.code && /_error$/.test(ev.code) ? ev.code : 'api_error', message: ev.message } }, 'error')
        );
      }
      if (ev.index !== 0) return ''; // Anthropic has one choice
      let s = start();
      switch (ev.type) {
        case 'text':
          if (!ev.text) return s;
          if (blockKind !== 'text') s += open('text', { type: 'text', text: '' });
          return s + deltaEvent(TEXT_DELTA, block, ev.text);
        case 'thinking':
          if (ev.redacted) return s + open('thinking', { type: 'redacted_thinking', data: ev.redacted }) + close();
          if (blockKind !== 'thinking') s += open('thinking', { type: 'thinking', thinking: '', signature: '' });
          if (ev.text) s += deltaEvent(THINKING_DELTA, block, ev.text);
          if (ev.signature)
            s += delta({ type: 'signature_delta', signature: ev.from === 'gemini' ? GEMINI_SIG_PREFIX + ev.signature : ev.signature });
          return s;
        case 'tool_call_start':
          s += open('tool', { type: 'tool_use', id: idWithSignature(ev.id, ev.thoughtSignature), name: ev.name, input: {} });
          toolBlocks.set(ev.toolIndex, block);
          return s;
        case 'tool_call_args': {
          const bi = toolBlocks.get(ev.toolIndex);
          if (bi === undefined || !ev.delta) return s;
          // arguments of a call whose block is no longer open still go to that block's index rather than being lost
          return s + deltaEvent(JSON_DELTA, bi, ev.delta);
        }
        case 'finish':
          stopReason = ev.reason;
          return s + close();
      }
      return s;
    },
    end() {
      if (ended) return '';
      let s = start() + close();
      ended = true;
      s += sse(
        {
          type: 'message_delta',
          delta: { stop_reason: STOP_OUT[stopReason ?? 'stop'], stop_sequence: null },
          usage: usageToAnthropic(usage),
        },
        'message_delta',
      );
      s += sse({ type: 'message_stop' }, 'message_stop');
      return s;
    },
  };
}
