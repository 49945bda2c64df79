/** Native route paths: parsing, reserved namespaces, and the per-generation route index. */
import { RESERVED_ROUTE_PREFIXES } from '@gatehouse/plugin-sdk';

export interface RouteSegment {
  kind: 'static' | 'param' | 'catchall';
  value: string;
}

export interface ParsedPath {
  segments: RouteSegment[];
  trailingSlash: boolean;
  shape: string;
  params: string[];
}

const STATIC_RE = /^[A-Za-z0-9._~-]+$/;
const PARAM_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses a route path; throws an Error whose message states the rule broken. */
export function parsePath(path: string): ParsedPath {
  if (!path.startsWith('/')) throw new Error('must start with "/"');
  if (path === '/') throw new Error('must not be "/" alone');
  if (/[?#%]/.test(path)) throw new Error('must not contain "?", "#" or "%"');
  if (path.includes('//')) throw new Error('must not contain "//"');
  const trailingSlash = path.endsWith('/');
  const raw = path.slice(1, trailingSlash ? -1 : undefined).split('/');
  const segments: RouteSegment[] = [];
  const params: string[] = [];
  raw.forEach((s, i) => {
    if (s === '.' || s === '..') throw new Error('must not contain "." or ".." segments');
    if (s.startsWith(':') || s.startsWith('*')) {
      const name = s.slice(1);
      if (!PARAM_RE.test(name)) throw new Error(`parameter "${s}" must be named like [A-Za-z_][A-Za-z0-9_]*`);
      if (params.includes(name)) throw new Error(`parameter "${name}" appears twice`);
      if (s.startsWith('*') && (i !== raw.length - 1 || trailingSlash)) throw new Error(`catch-all "${s}" must be the last segment`);
      params.push(name);
      segments.push({ kind: s.startsWith(':') ? 'param' : 'catchall', value: name });
    } else {
      if (!STATIC_RE.test(s)) throw new Error(`segment "${s}" may only contain A-Z a-z 0-9 . _ ~ -`);
      segments.push({ kind: 'static', value: s });
    }
  });
  const shape =
    '/' + segments.map((s) => (s.kind === 'static' ? s.value : s.kind === 'param' ? ':' : '*')).join('/') + (trailingSlash ? '/' : '');
  return { segments, trailingSlash, shape, params };
}

/** The reserved prefix a parsed path intersects, or null. A parameter or catch-all at a reserved segment intersects. */
export function reservedIntersection(p: ParsedPath): string | null {
  for (const prefix of RESERVED_ROUTE_PREFIXES) {
    const ps = prefix.slice(1).split('/');
    let hit = true;
    for (let i = 0; i < ps.length; i++) {
      const s = p.segments[i];
      if (!s) {
        hit = false;
        break;
      }
      if (s.kind === 'catchall') break;
      if (s.kind === 'static' && s.value.toLowerCase() !== ps[i].toLowerCase()) {
        hit = false;
        break;
      }
    }
    if (hit) return prefix;
  }
  return null;
}

export interface RouteEntry<P, R> {
  plugin: P;
  route: R;
  parsed: ParsedPath;
  method: string;
}
export interface RouteMatch<P, R> {
  plugin: P;
  route: R;
  params: Record<string, string>;
}

/** Method + path → plugin route. Static segments win over parameters, parameters over catch-alls. */
export class NativeRouteIndex<P = unknown, R = unknown> {
  private readonly byMethod = new Map<string, RouteEntry<P, R>[]>();
  readonly entries: RouteEntry<P, R>[] = [];

  add(e: RouteEntry<P, R>): void {
    const list = this.byMethod.get(e.method) ?? [];
    list.push(e);
    const rank = (x: RouteEntry<P, R>) =>
      x.parsed.segments.map((s) => (s.kind === 'static' ? '0' : s.kind === 'param' ? '1' : '2')).join('');
    list.sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
    this.byMethod.set(e.method, list);
    this.entries.push(e);
  }

  /** The entry with the same method and shape, if any. */
  conflict(method: string, shape: string): RouteEntry<P, R> | undefined {
    return this.byMethod.get(method)?.find((e) => e.parsed.shape === shape);
  }

  match(method: string, path: string): RouteMatch<P, R> | null {
    const list = this.byMethod.get(method.toUpperCase());
    if (!list) return null;
    const clean = path.split('?')[0];
    const trailing = clean.length > 1 && clean.endsWith('/');
    const parts = clean.slice(1, trailing ? -1 : undefined).split('/');
    for (const e of list) {
      const params: Record<string, string> = {};
      const segs = e.parsed.segments;
      let ok = true;
      let i = 0;
      for (; i < segs.length; i++) {
        const s = segs[i];
        if (s.kind === 'catchall') {
          const rest = parts.slice(i).join('/') + (trailing ? '/' : '');
          if (!rest) {
            ok = false;
            break;
          }
          params[s.value] = safeDecode(rest);
          i = parts.length;
          break;
        }
        const part = parts[i];
        if (part === undefined || part === '') {
          ok = false;
          break;
        }
        if (s.kind === 'static') {
          if (part !== s.value) {
            ok = false;
            break;
          }
        } else params[s.value] = safeDecode(part);
      }
      if (!ok) continue;
      const endsWithCatchAll = segs.length > 0 && segs[segs.length - 1].kind === 'catchall';
      if (!endsWithCatchAll && (i !== parts.length || trailing !== e.parsed.trailingSlash)) continue;
      return { plugin: e.plugin, route: e.route, params };
    }
    return null;
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
