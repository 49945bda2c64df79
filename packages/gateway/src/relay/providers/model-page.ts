/** The page size of a paged model list query (`limit`, `pageSize`): 1–1000, its default when absent or 0. */
import { fail } from '../../platform/errors.ts';

export function pageSize(v: unknown, dflt: number, name: string): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw fail('invalid_request', `${name} must be a non-negative integer`);
  return n === 0 ? dflt : Math.min(n, 1000);
}
