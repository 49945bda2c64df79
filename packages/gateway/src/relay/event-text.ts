/**
 * The output text of the usual streamed text deltas, read without JSON.parse. A same-format stream
 * reads every event for its text (metered against the call's reserve, and counted when the upstream
 * reports no usage), and almost all of its events are one text delta of a fixed shape; parsing each
 * one is a good part of what relaying it costs. Each reader answers only when the event's data holds no
 * escape, nothing that carries usage or a response id, and its text at the one place the format puts
 * it, so that what it reads is exactly what parsing the event would give; otherwise it answers null
 * and the caller parses the event.
 */

/** Whether `data` holds `key` (with its quotes) anywhere. */
function has(data: string, key: string): boolean {
  return data.indexOf(key) >= 0;
}

/**
 * The text of an OpenAI chat chunk whose one choice's delta is `{"content":"…"}` or
 * `{"role":"assistant","content":"…"}` (and that reports no usage); null: parse it.
 */
export function chatDeltaText(data: string): string | null {
  if (has(data, '\\') || has(data, '"usage"') || has(data, '"text"')) return null;
  const c = data.indexOf('"choices":[{');
  // The choices are the chunk's own (no object opens before them) and the delta is the first choice's.
  if (c < 0 || data.indexOf('{', 1) !== c + 11) return null;
  const d = data.indexOf('"delta":{', c);
  if (d < 0 || data.indexOf('{', c + 12) !== d + 8 || data.lastIndexOf('"delta"') !== d) return null;
  let at = d + 9;
  if (data.startsWith('"role":"assistant",', at)) at += 19;
  if (!data.startsWith('"content":"', at)) return null;
  at += 11;
  // No backslash: the next quote ends the string, and the delta must end right after it.
  const end = data.indexOf('"', at);
  if (end < 0 || data.charCodeAt(end + 1) !== 125 /* } */) return null;
  return data.slice(at, end);
}

/**
 * The text of a Responses (or other pass-through) `*.delta` event whose data is
 * `{"type":"<type>",…,"delta":"…",…}` with `delta` a key of the event itself (no object opens before
 * it); null: parse it. `type` is the event's SSE `event:` name, which the data's `type` must repeat.
 */
export function typedDeltaText(type: string, data: string): string | null {
  if (!data.startsWith('{"type":"') || !data.startsWith(type, 9) || data.charCodeAt(9 + type.length) !== 34 /* " */) return null;
  if (has(data, '\\') || has(data, '"usage"') || has(data, '"response"')) return null;
  const k = data.indexOf('"delta":"');
  if (k < 0 || data.lastIndexOf('"delta"') !== k) return null;
  const brace = data.indexOf('{', 1);
  if (brace >= 0 && brace < k) return null;
  const at = k + 9;
  const end = data.indexOf('"', at);
  const next = end < 0 ? -1 : data.charCodeAt(end + 1);
  if (next !== 44 /* , */ && next !== 125 /* } */) return null;
  return data.slice(at, end);
}
