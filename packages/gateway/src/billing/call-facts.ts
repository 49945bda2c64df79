/**
 * What a model call's price rules read of its request (billing/price-rules.ts): the body's parameters,
 * the headers (never its credentials), the UTC hour it arrived, and how many calls of each server tool
 * the request allows — a declared `max_uses`, else SERVER_TOOL_CALLS_BOUND for a declared tool, else
 * none — which bounds the reserve of a price per tool call.
 */
import { isObj } from '../platform/validate.ts';
import { SERVER_TOOL_CALLS_BOUND, type CallFacts, type RuleSet } from './price-rules.ts';

/** Headers a price never reads: they carry credentials. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'x-goog-api-key', 'api-key', 'cookie']);

/** Whether a price's rules read anything of the request (otherwise a call builds no facts). */
export function readsCall(rules: RuleSet | undefined): boolean {
  return !!rules && (rules.expression !== null || Object.keys(rules.serverTools).length > 0);
}

/** The name a declared tool is billed under: `web_search_20250305` → `web_search`, Gemini's `googleSearch` → `web_search`. */
function toolName(t: Record<string, unknown>): string | null {
  if (typeof t.type === 'string') {
    const name = t.type.replace(/_\d{8}$/, '').replace(/_preview$/, '');
    return name === 'function' || name === 'custom' ? null : name;
  }
  if ('googleSearch' in t || 'google_search' in t || 'googleSearchRetrieval' in t || 'google_search_retrieval' in t) return 'web_search';
  return null;
}

/** The most calls of each server tool a request body allows. */
export function serverToolBounds(body: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (name: string, n: number) => (out[name] = Math.min(SERVER_TOOL_CALLS_BOUND, Math.max(out[name] ?? 0, n)));
  if (body.web_search_options !== undefined) add('web_search', SERVER_TOOL_CALLS_BOUND);
  if (Array.isArray(body.tools)) {
    for (const t of body.tools) {
      if (!isObj(t)) continue;
      const name = toolName(t);
      if (!name) continue;
      const max = t.max_uses;
      add(name, typeof max === 'number' && Number.isInteger(max) && max >= 0 ? max : SERVER_TOOL_CALLS_BOUND);
    }
  }
  return out;
}

/** The facts of a call: its body, its headers without credentials, the hour (UTC) of `now`, its tools' bounds. */
export function callFacts(
  body: Record<string, unknown>,
  headers: Record<string, string | string[] | undefined> | undefined,
  now: number,
): CallFacts {
  const h: Record<string, string> = {};
  if (headers) {
    for (const [k, v] of Object.entries(headers)) {
      const name = k.toLowerCase();
      if (v === undefined || SECRET_HEADERS.has(name)) continue;
      h[name] = Array.isArray(v) ? v.join(',') : v;
    }
  }
  return { params: body, headers: h, hour: new Date(now).getUTCHours(), toolBounds: serverToolBounds(body) };
}
