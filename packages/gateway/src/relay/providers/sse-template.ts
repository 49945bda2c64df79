/**
 * SSE events written from templates: the stream encoders' events that recur once per upstream event (a
 * text delta, a tool call's argument delta) are written as fixed text made once per stream or per block,
 * with only their varying values spliced in (a string escaped by `JSON.stringify` of the string alone, a
 * number as its digits), instead of building and stringifying a whole event object per event. The
 * template is made from the same object the event would be stringified from, so the bytes are the same.
 */
import { sse } from './canonical.ts';

/**
 * Where a template's value goes: put it in the object given to `sseTemplate` in place of the value. Only
 * a string value equal to it is written as its JSON text (quotes and backslashes in a longer value are
 * escaped), and no ordinary event has one.
 */
export const HOLE = '\u0000\u0001gatehouse-hole\u0001\u0000';
const HOLE_JSON = JSON.stringify(HOLE);

/**
 * The text of `sse(data, event)` cut at each `HOLE` of `data` (in the order `JSON.stringify` writes
 * them): `holes` + 1 pieces, to be joined with the JSON of the values (`jsonString` for strings).
 * Throws when another value of `data` is the placeholder (a template's other values are the gateway's
 * own: ids, the model's name, indexes).
 */
export function sseTemplate(data: Record<string, unknown>, event: string | undefined, holes: number): string[] {
  const parts = sse(data, event).split(HOLE_JSON);
  if (parts.length !== holes + 1) throw new Error(`an SSE template has ${parts.length - 1} placeholders, not ${holes}`);
  return parts;
}

/** A string as a JSON value (quoted and escaped). */
export const jsonString = (s: string): string => JSON.stringify(s);
