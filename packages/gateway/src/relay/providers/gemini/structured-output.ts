/**
 * Structured outputs in Gemini's form: `generationConfig.responseMimeType: 'application/json'` with
 * `responseJsonSchema` (JSON Schema) or `responseSchema` (Gemini's OpenAPI 3.0 subset: upper-case
 * types, `nullable`, `propertyOrdering`, `format: 'enum'`), read from callers and turned into JSON
 * Schema; a response format of another caller goes to Gemini as `responseJsonSchema`.
 */
import type { ResponseFormat } from '../canonical.ts';
import { bad, isObj } from '../canonical.ts';

/**
 * A Gemini (OpenAPI 3.0) schema as JSON Schema: types in lower case, `nullable: true` as a `'null'`
 * type beside the others, Gemini's own `propertyOrdering` and `format: 'enum'` (which `enum` says)
 * left out; every other keyword kept.
 */
export function openApiToJsonSchema(s: unknown): any {
  if (Array.isArray(s)) return s.map(openApiToJsonSchema);
  if (!isObj(s)) return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'type' && typeof v === 'string') out.type = v.toLowerCase();
    else if (k === 'type' && Array.isArray(v)) out.type = v.map((t) => (typeof t === 'string' ? t.toLowerCase() : t));
    else if (k === 'properties' && isObj(v))
      out.properties = Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, openApiToJsonSchema(pv)]));
    else if (k === 'items' || k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'prefixItems') out[k] = openApiToJsonSchema(v);
    else if (k === 'nullable' || k === 'propertyOrdering' || (k === 'format' && v === 'enum')) continue;
    else out[k] = v;
  }
  if (s.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
    else if (out.type === undefined && Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: 'null' }];
  }
  return out;
}

/** The response format a Gemini `generationConfig` asks for: JSON with its schema (JSON Schema either way), bare JSON, text, or nothing. */
export function decodeResponseFormat(g: Record<string, any>): ResponseFormat | undefined {
  const mime = g.responseMimeType;
  if (mime === 'text/plain') return { type: 'text' };
  if (mime !== 'application/json') return undefined;
  const js = g.responseJsonSchema;
  if (js !== undefined && js !== null && !isObj(js)) throw bad('generationConfig.responseJsonSchema', 'must be an object');
  const os = g.responseSchema;
  if (os !== undefined && os !== null && !isObj(os)) throw bad('generationConfig.responseSchema', 'must be an object');
  const schema = isObj(js) ? js : isObj(os) ? openApiToJsonSchema(os) : undefined;
  return schema ? { type: 'json_schema', name: 'response', schema } : { type: 'json_object' };
}

/** Writes a response format into a Gemini `generationConfig`. */
export function encodeResponseFormat(rf: ResponseFormat, gen: Record<string, unknown>): void {
  if (rf.type === 'text') {
    gen.responseMimeType = 'text/plain';
    return;
  }
  gen.responseMimeType = 'application/json';
  if (rf.type === 'json_schema' && isObj(rf.schema)) gen.responseJsonSchema = rf.schema;
}
