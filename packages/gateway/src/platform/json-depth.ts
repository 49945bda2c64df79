/**
 * The deepest nesting of objects and arrays a request body may have, and its check. JSON.parse takes
 * any depth, but much of what runs after it recurses (JSON.stringify, structuredClone, the codecs,
 * copies into plugin isolates) and would run out of stack on a deep body: every JSON body is checked
 * right after it is parsed, before any route sees it (http/app.ts; the relay's parser does it in the
 * one walk it makes anyway, relay/body-scan.ts).
 */
import { fail } from './errors.ts';

/** Deepest nesting of objects and arrays a request body may have. */
export const MAX_JSON_DEPTH = 128;

export const tooDeep = () => fail('invalid_request', `invalid request: the body nests deeper than ${MAX_JSON_DEPTH} levels`);

/** Throws 400 `invalid_request` when `value` nests deeper than MAX_JSON_DEPTH. Iterative: no recursion of its own. */
export function checkJsonDepth(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const vals: object[] = [value];
  const depths: number[] = [1];
  while (vals.length) {
    const v = vals.pop()!;
    const depth = depths.pop()!;
    if (depth > MAX_JSON_DEPTH) throw tooDeep();
    if (Array.isArray(v)) {
      for (const x of v)
        if (typeof x === 'object' && x !== null) {
          vals.push(x as object);
          depths.push(depth + 1);
        }
      continue;
    }
    for (const k in v) {
      const x = (v as Record<string, unknown>)[k];
      if (typeof x === 'object' && x !== null) {
        vals.push(x);
        depths.push(depth + 1);
      }
    }
  }
}
