/**
 * Field validation shared by the admin API and the configuration file. Every error names the field
 * by its path (`models`, `channels[2].type`), so a 400 answer or a failed start says what to fix.
 */
import emailAddresses from 'email-addresses';
import { GatewayError, catalogArgs, fail } from './errors.ts';

export class FieldError extends GatewayError {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(...catalogArgs('invalid_field', `${field}: ${problem}`, { field }));
    this.name = 'FieldError';
  }
}

export const fieldError = (field: string, problem: string) => new FieldError(field, problem);

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function join(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

/** Reads fields of an input object; `at` prefixes the field names in errors. */
export class Reader {
  constructor(
    readonly obj: Obj,
    readonly at = '',
  ) {}

  static of(v: unknown, at = ''): Reader {
    if (!isObj(v)) throw fieldError(at || 'body', 'must be a JSON object');
    return new Reader(v, at);
  }

  path(k: string): string {
    return join(this.at, k);
  }

  has(k: string): boolean {
    return this.obj[k] !== undefined;
  }

  /** Throws when the object has a field not in `allowed`. */
  only(allowed: readonly string[]): this {
    for (const k of Object.keys(this.obj)) {
      if (!allowed.includes(k)) throw fieldError(this.path(k), `unknown field (allowed: ${allowed.join(', ')})`);
    }
    return this;
  }

  str(k: string, o: { required?: boolean; max?: number; min?: number; pattern?: RegExp; hint?: string } = {}): string | undefined {
    const v = this.obj[k];
    if (v === undefined || v === null) {
      if (o.required) throw fieldError(this.path(k), 'is required');
      return undefined;
    }
    if (typeof v !== 'string') throw fieldError(this.path(k), 'must be a string');
    const s = v.trim();
    if (o.required && s === '') throw fieldError(this.path(k), 'must not be empty');
    if (o.min !== undefined && s.length < o.min) throw fieldError(this.path(k), `must be at least ${o.min} characters`);
    if (o.max !== undefined && s.length > o.max) throw fieldError(this.path(k), `must be at most ${o.max} characters`);
    if (o.pattern && s !== '' && !o.pattern.test(s)) throw fieldError(this.path(k), o.hint ?? `must match ${o.pattern}`);
    return s;
  }

  /** A string that may be null (to clear). undefined when absent. */
  nullableStr(k: string, o: { max?: number } = {}): string | null | undefined {
    if (this.obj[k] === null) return null;
    const s = this.str(k, o);
    return s === '' ? null : s;
  }

  num(k: string, o: { required?: boolean; min?: number; max?: number; int?: boolean } = {}): number | undefined {
    let v = this.obj[k];
    if (v === undefined || v === null) {
      if (o.required) throw fieldError(this.path(k), 'is required');
      return undefined;
    }
    if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) v = Number(v);
    if (typeof v !== 'number' || !Number.isFinite(v)) throw fieldError(this.path(k), 'must be a number');
    if (o.int && !Number.isInteger(v)) throw fieldError(this.path(k), 'must be an integer');
    if (o.min !== undefined && v < o.min) throw fieldError(this.path(k), `must be at least ${o.min}`);
    if (o.max !== undefined && v > o.max) throw fieldError(this.path(k), `must be at most ${o.max}`);
    return v;
  }

  nullableNum(k: string, o: { min?: number; max?: number; int?: boolean } = {}): number | null | undefined {
    if (this.obj[k] === null) return null;
    return this.num(k, o);
  }

  bool(k: string): boolean | undefined {
    const v = this.obj[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'boolean') return v;
    if (v === 1 || v === 'true') return true;
    if (v === 0 || v === 'false') return false;
    throw fieldError(this.path(k), 'must be true or false');
  }

  /** A list of non-empty strings: a JSON array, or a comma/newline separated string. */
  list(
    k: string,
    o: { required?: boolean; nonEmpty?: boolean; max?: number; item?: (s: string, path: string) => void } = {},
  ): string[] | undefined {
    const v = this.obj[k];
    if (v === undefined || v === null) {
      if (o.required) throw fieldError(this.path(k), 'is required');
      return undefined;
    }
    let arr: unknown[];
    if (typeof v === 'string') arr = v.split(/[,\n]/);
    else if (Array.isArray(v)) arr = v;
    else throw fieldError(this.path(k), 'must be a list of strings');
    const out: string[] = [];
    arr.forEach((x, i) => {
      if (typeof x !== 'string' && typeof x !== 'number') throw fieldError(join(this.path(k), i), 'must be a string');
      const s = String(x).trim();
      if (s === '') {
        if (Array.isArray(v)) throw fieldError(join(this.path(k), i), 'must not be empty');
        return;
      }
      if (o.max !== undefined && s.length > o.max) throw fieldError(join(this.path(k), i), `must be at most ${o.max} characters`);
      o.item?.(s, join(this.path(k), i));
      if (!out.includes(s)) out.push(s);
    });
    if ((o.nonEmpty || o.required) && out.length === 0) throw fieldError(this.path(k), 'must list at least one entry');
    return out;
  }

  /** A JSON object (given as an object or as JSON text). */
  object(k: string, o: { values?: 'string' | 'any' } = {}): Obj | undefined {
    let v = this.obj[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') {
      if (v.trim() === '') return {};
      try {
        v = JSON.parse(v);
      } catch {
        throw fieldError(this.path(k), 'must be a JSON object');
      }
    }
    if (!isObj(v)) throw fieldError(this.path(k), 'must be a JSON object');
    if (o.values === 'string') {
      for (const [kk, vv] of Object.entries(v)) {
        if (typeof vv !== 'string') throw fieldError(join(this.path(k), kk), 'must be a string');
      }
    }
    return v;
  }

  /** Unix ms from a number (ms, or seconds when < 1e11) or an ISO date string; null = never. */
  time(k: string): number | null | undefined {
    const v = this.obj[k];
    if (v === undefined) return undefined;
    if (v === null || v === '' || v === -1 || v === 0) return null;
    if (v instanceof Date) return v.getTime();
    if (typeof v === 'number' && Number.isFinite(v)) return v < 1e11 ? Math.round(v * 1000) : Math.round(v);
    if (typeof v === 'string') {
      if (/^\d+$/.test(v)) {
        const n = Number(v);
        return n < 1e11 ? n * 1000 : n;
      }
      const t = Date.parse(v);
      if (Number.isFinite(t)) return t;
    }
    throw fieldError(this.path(k), 'must be a date (ISO 8601 text or unix time)');
  }

  /** A value out of a fixed set. */
  oneOf<T extends string>(k: string, allowed: readonly T[], o: { required?: boolean } = {}): T | undefined {
    const v = this.obj[k];
    if (v === undefined || v === null) {
      if (o.required) throw fieldError(this.path(k), 'is required');
      return undefined;
    }
    if (!allowed.includes(v as T)) throw fieldError(this.path(k), `must be one of ${allowed.join(', ')}`);
    return v as T;
  }
}

/** An http(s) URL without trailing slash; '' stays ''. */
export function checkUrl(v: string, field: string): string {
  if (v === '') return '';
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw fieldError(field, 'must be an http(s) URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw fieldError(field, 'must be an http(s) URL');
  if (u.username || u.password) throw fieldError(field, 'must not carry credentials');
  return v.replace(/\/+$/, '');
}

/** Paging parameters from a query string: page ≥ 1, 1 ≤ page_size ≤ 100 (default 20). */
export function paging(q: Obj): { page: number; pageSize: number; offset: number } {
  const r = new Reader(q);
  const page = r.num('page', { int: true, min: 1 }) ?? 1;
  const pageSize = r.num('page_size', { int: true, min: 1, max: 100 }) ?? 20;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

/**
 * An e-mail address as people type it into a form, normalised (NFC, lower case) or null when it is
 * not one bare address: parsed as RFC 5322 by `email-addresses`, and only an address that is its own
 * whole `local@domain` passes — angle brackets, a display name, comments, quoted local parts, address
 * lists, domain literals and one-label domains do not. Surrounding spaces are dropped.
 */
export function parseEmailAddress(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim().normalize('NFC');
  if (s.length === 0 || s.length > 254) return null;
  const m = emailAddresses.parseOneAddress({ input: s, rfc6532: true, rejectTLD: true });
  if (!m || m.type !== 'mailbox' || m.name !== null || m.address !== s || m.domain.startsWith('[')) return null;
  if (m.local.length > 64) return null;
  return s.toLowerCase();
}

/** `parseEmailAddress` for a request field: 400 `invalid_email` naming `field` when it is not one bare address. */
export function emailAddress(v: unknown, field = 'email'): string {
  const e = parseEmailAddress(v);
  if (e === null) throw fail('invalid_email', `${field}: must be one e-mail address, as name@example.com`, { details: { field } });
  return e;
}

export const usdToQuota = (usd: number, perUsd: number) => Math.round(usd * perUsd);
export const quotaToUsd = (q: number, perUsd: number) => Math.round((q / perUsd) * 1e6) / 1e6;

export function parseId(v: unknown, field = 'id'): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw fieldError(field, 'must be a positive integer');
  return n;
}

export function jsonList(v: string | null | undefined): string[] {
  if (!v) return [];
  try {
    const a = JSON.parse(v);
    return Array.isArray(a) ? a.map(String) : [];
  } catch {
    return [];
  }
}

export function jsonObj(v: string | null | undefined): Obj {
  if (!v) return {};
  try {
    const o = JSON.parse(v);
    return isObj(o) ? o : {};
  } catch {
    return {};
  }
}

/** Stable JSON text (sorted keys), so equal objects compare equal as text. */
export function stableJson(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isObj(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys(v[k])]),
    );
  return v;
}
