/**
 * Structured outputs in Bedrock Converse's form: a JSON schema asked in any caller's format goes as
 * `outputConfig.textFormat` (`{type: 'json_schema', structure: {jsonSchema: {schema, name, description}}}`,
 * the schema as JSON text, as Converse takes it). JSON without a schema has no native form: it goes
 * as a forced tool (structured-output.ts), whose call comes back as the answer's text.
 */
import type { CanonicalRequest } from '../canonical.ts';
import { isObj } from '../canonical.ts';
import { closedObjects, useOutputTool } from '../structured-output.ts';

/** The body's `outputConfig` for the request's response format, or nothing (JSON without a schema becomes the forced answer tool). */
export function encodeOutputConfig(req: CanonicalRequest): Record<string, unknown> | undefined {
  const rf = req.responseFormat;
  if (!rf || rf.type === 'text') return undefined;
  if (rf.type === 'json_schema' && isObj(rf.schema)) {
    const def: Record<string, unknown> = {
      schema: JSON.stringify(closedObjects(rf.schema)),
      name: (rf.name ?? 'response').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'response',
    };
    if (rf.description) def.description = rf.description;
    return { textFormat: { type: 'json_schema', structure: { jsonSchema: def } } };
  }
  useOutputTool(req);
  return undefined;
}
