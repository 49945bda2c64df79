/**
 * Usage facts from plugins: validated against the plugin's usage schema before they price anything.
 * Plugins report quantities, never prices.
 */
import { fail as failCode } from '../../platform/errors.ts';
import { UNIT_CEILING, type Facts, type SchemaField } from '../../billing/expr.ts';

const CANON_COUNT = new Set(['n', 'count', 'imagecount', 'samplecount', 'batchcount', 'numimages']);
const CANON_SECONDS = new Set(['duration', 'durationseconds', 'second', 'seconds']);

/** Validates facts; throws 400 `plugin_usage_invalid` (or returns null when `lenient`). */
export function validateFacts(raw: unknown, schema: Record<string, SchemaField> | null | undefined, lenient = false): Facts | null {
  if (raw === null || raw === undefined) return null;
  const fail = (msg: string): never => {
    throw failCode('plugin_usage_invalid', msg);
  };
  try {
    if (typeof raw !== 'object' || Array.isArray(raw)) fail('usage facts must be an object');
    const out: Facts = {};
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      const f = schema?.[k];
      if (f) {
        if (f.enum) {
          if (typeof v !== 'string' || !f.enum.includes(v)) fail(`usage fact "${k}" must be one of ${f.enum.join(', ')}`);
          out[k] = v as string;
        } else if (f.type === 'boolean') {
          if (typeof v !== 'boolean') fail(`usage fact "${k}" must be a boolean`);
          out[k] = v as boolean;
        } else {
          if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(`usage fact "${k}" must be a non-negative number`);
          const ceil = UNIT_CEILING[f.unit ?? 'second'] ?? 3600;
          if ((v as number) > ceil) {
            if (f.unit === 'token' || f.unit === 'credit') out[k] = ceil;
            else fail(`usage fact "${k}" is above ${ceil}`);
          } else out[k] = v as number;
        }
        continue;
      }
      if (typeof v !== 'number') continue; // undeclared non-numeric facts are ignored
      if (!Number.isFinite(v) || v < 0) fail(`usage fact "${k}" must be a non-negative number`);
      const canon = k.toLowerCase().replace(/[_-]/g, '');
      const ceil = CANON_COUNT.has(canon)
        ? 128
        : CANON_SECONDS.has(canon)
          ? 3600
          : ['upstreamunits', 'completiontokens', 'totaltokens'].includes(canon)
            ? UNIT_CEILING.token
            : 3600;
      if (v > ceil) fail(`usage fact "${k}" is above ${ceil}`);
      out[k] = v;
    }
    return out;
  } catch (e) {
    if (lenient) return null;
    throw e;
  }
}
