/**
 * Structured outputs in Anthropic's form: `output_config.format: {type: 'json_schema', schema}` (and the
 * earlier beta's `output_format`) read from callers, and written for a JSON schema asked in another
 * format. JSON without a schema (OpenAI's `json_object`) has no native form here: it goes as a forced
 * tool (structured-output.ts), whose call comes back as the answer's text.
 */
import type { CanonicalRequest, ResponseFormat } from '../canonical.ts';
import { bad, isObj } from '../canonical.ts';
import { closedObjects, useOutputTool } from '../structured-output.ts';

/**
 * The response format an Anthropic request asks for, and the request's `extra` without what was read:
 * `output_config` keeps only keys other than `format` and `effort` (the codec reads `effort`), so a
 * conversion records as dropped only what it leaves out.
 */
export function decodeOutputFormat(body: Record<string, any>, extra: Record<string, unknown>): ResponseFormat | undefined {
  const oc = body.output_config;
  const f = isObj(oc) && oc.format !== undefined && oc.format !== null ? oc.format : body.output_format;
  if (isObj(oc)) {
    const rest = Object.fromEntries(Object.entries(oc).filter(([k]) => k !== 'format' && k !== 'effort'));
    if (Object.keys(rest).length) extra.output_config = rest;
    else delete extra.output_config;
  }
  delete extra.output_format;
  if (f === undefined || f === null) return undefined;
  const field = isObj(oc) && oc.format !== undefined ? 'output_config.format' : 'output_format';
  if (!isObj(f)) throw bad(field, 'must be an object');
  if (f.type !== 'json_schema') throw bad(`${field}.type`, 'must be json_schema');
  if (!isObj(f.schema)) throw bad(`${field}.schema`, 'is required and must be an object');
  return { type: 'json_schema', schema: f.schema };
}

/**
 * What goes in `output_config.format` for the request's response format, or nothing. JSON without a
 * schema becomes the forced answer tool (before the codec writes the tools).
 */
export function encodeOutputFormat(req: CanonicalRequest): Record<string, unknown> | undefined {
  const rf = req.responseFormat;
  if (!rf || rf.type === 'text') return undefined;
  if (rf.type === 'json_schema' && isObj(rf.schema)) return { type: 'json_schema', schema: closedObjects(rf.schema) };
  useOutputTool(req);
  return undefined;
}
