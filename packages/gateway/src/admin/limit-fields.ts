/**
 * The limit fields a key and a user share in the admin API and the configuration file
 * (docs/limits.md): `rpm`, `tpm`, `max_concurrency` (null or 0 = no limit).
 */
import type { Reader } from './validate.ts';

export const LIMIT_FIELDS = ['rpm', 'tpm', 'max_concurrency'];

/** Limits as given (0 = none). */
export interface LimitInput {
  rpm?: number;
  tpm?: number;
  max_concurrency?: number;
}

export interface LimitView {
  /** Requests per minute; null = no limit. */
  rpm: number | null;
  /** Tokens (input + output) per minute; null = no limit. */
  tpm: number | null;
  /** Calls in flight at once (a stream until it ends); null = no limit. */
  max_concurrency: number | null;
}

/** The columns a row stores its limits in. */
export interface LimitColumns {
  rpm: number;
  tpm: number;
  max_concurrency: number;
}

const MAX: Record<keyof LimitColumns, number> = { rpm: 1e9, tpm: 1e12, max_concurrency: 1e6 };

/** Reads the limit fields present in `r` into `out` (null and 0 both mean "no limit"). */
export function parseLimits(r: Reader, out: LimitInput): void {
  for (const k of ['rpm', 'tpm', 'max_concurrency'] as const) {
    if (r.obj[k] === null) out[k] = 0;
    else if (r.has(k)) out[k] = r.num(k, { int: true, min: 0, max: MAX[k] });
  }
}

export function limitView(r: { rpm?: number | null; tpm?: number | null; max_concurrency?: number | null }): LimitView {
  const v = (n: unknown) => (Number(n ?? 0) > 0 ? Number(n) : null);
  return { rpm: v(r.rpm), tpm: v(r.tpm), max_concurrency: v(r.max_concurrency) };
}

/** The columns of the limits given (for an insert, absent ones are 0). */
export function limitColumns(input: LimitInput, all: boolean): Partial<LimitColumns> {
  const out: Partial<LimitColumns> = {};
  for (const k of ['rpm', 'tpm', 'max_concurrency'] as const) {
    if (input[k] !== undefined) out[k] = input[k];
    else if (all) out[k] = 0;
  }
  return out;
}
