/**
 * Writes of the run-time options (options/options.ts): each value checked against its key's type and
 * normalised, stored, its revision bumped and the change audited.
 */
import type { Core } from '../core.ts';
import type { Changes } from './changes.ts';
import type { Actor } from './users.ts';
import type { AuditLog } from '../logs/audit.ts';
import { fieldError } from '../platform/validate.ts';
import { parseGroupCounts, parseGroupModelLimits, parseModelLimits } from '../accounts/rate-limits.ts';
import { aliasWarning, KNOWN_OPTIONS, Options, SECRET_SET, type OptionType } from '../options/options.ts';
import { OptionStore } from '../options/store.ts';
import { parseGuardrailBindings } from '../relay/guardrail-types.ts';
import { parseFallbacks, parseRouting } from '../relay/routing.ts';

/** Options whose value is JSON text. */
const JSON_TYPES: ReadonlySet<OptionType> = new Set([
  'group_counts',
  'model_limits',
  'group_model_limits',
  'guardrails',
  'routing',
  'model_fallbacks',
]);

const KEY_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,127}$/;

export class OptionsAdmin extends Options {
  constructor(
    core: Core,
    private readonly changes: Changes,
    private readonly audit: AuditLog | null = null,
  ) {
    super(core);
  }

  /** Checks and normalises a value to its stored text. */
  normalise(key: string, value: unknown, field = key): string {
    if (!KEY_RE.test(key)) throw fieldError(field, 'option keys are letters, digits, _ . - (starting with a letter)');
    if (value === null || value === undefined) throw fieldError(field, 'needs a value');
    const spec = KNOWN_OPTIONS[key];
    // JSON options may be given as a mapping (the configuration file).
    if (typeof value === 'object' && spec && JSON_TYPES.has(spec.type)) value = JSON.stringify(value);
    if (typeof value === 'object') throw fieldError(field, 'must be text, a number or true/false');
    const text = String(value).trim();
    if (!spec) return text;
    switch (spec.type) {
      case 'int':
        if (!/^-?\d+$/.test(text) || Number(text) < 0) throw fieldError(field, 'must be a whole number ≥ 0');
        return String(Number(text));
      case 'number':
        if (!Number.isFinite(Number(text)) || text === '') throw fieldError(field, 'must be a number');
        return String(Number(text));
      case 'bool':
        if (/^(1|true|yes|on)$/i.test(text)) return 'true';
        if (/^(0|false|no|off)$/i.test(text)) return 'false';
        throw fieldError(field, 'must be true or false');
      case 'int_list': {
        const parts = text.split(/[,\s]+/).filter(Boolean);
        if (parts.some((p) => !/^\d{3}$/.test(p))) throw fieldError(field, 'must be HTTP status codes separated by commas');
        return parts.join(',');
      }
      case 'group_counts':
        try {
          parseGroupCounts(text);
        } catch (e) {
          throw fieldError(field, (e as Error).message);
        }
        return text;
      case 'model_limits':
        try {
          parseModelLimits(text);
        } catch (e) {
          throw fieldError(field, (e as Error).message);
        }
        return text;
      case 'group_model_limits':
        try {
          parseGroupModelLimits(text);
        } catch (e) {
          throw fieldError(field, (e as Error).message);
        }
        return text;
      case 'guardrails':
        try {
          return text ? JSON.stringify(parseGuardrailBindings(text)) : '';
        } catch (e) {
          throw fieldError(field, (e as Error).message);
        }
      case 'routing':
      case 'model_fallbacks':
        try {
          (spec.type === 'routing' ? parseRouting : parseFallbacks)(text);
        } catch (e) {
          throw fieldError(field, (e as Error).message);
        }
        return text;
      case 'url':
        if (text !== '' && !/^https?:\/\/[^\s/]+/.test(text)) throw fieldError(field, 'must be an http(s) URL');
        return text.replace(/\/+$/, '');
      default:
        return text;
    }
  }

  /** Stores a value (normalised); returns whether it changed. */
  async set(key: string, value: unknown, field = key, actor: Actor = null): Promise<boolean> {
    const text = this.normalise(key, value, field);
    if (KNOWN_OPTIONS[key]?.type === 'secret' && text === SECRET_SET) return false;
    const store = new OptionStore(this.core.h);
    const cur = await store.value(key);
    if (cur === text) return false;
    const older = aliasWarning(key);
    if (older) this.core.log.warn({ option: key }, older);
    const before = cur !== undefined ? cur : (this.get(key) ?? null);
    if (cur !== undefined) await store.update(key, text);
    else await store.insert(key, text);
    await this.changes.changed('options');
    // Keyed by the option's name, so the value of a secret option (…Secret, …Token) is redacted.
    await this.audit?.record(actor, 'option.set', { type: 'option', id: key }, { [key]: before }, { [key]: text });
    return true;
  }

  /** Removes a stored value, so the default applies again. */
  async reset(key: string, actor: Actor = null): Promise<boolean> {
    const store = new OptionStore(this.core.h);
    const cur = await store.value(key);
    if ((await store.remove(key)) === 0) return false;
    await this.changes.changed('options');
    const spec = KNOWN_OPTIONS[key];
    const dflt = spec ? (typeof spec.default === 'function' ? spec.default(this.core) : spec.default) : null;
    await this.audit?.record(actor, 'option.reset', { type: 'option', id: key }, { [key]: cur ?? null }, { [key]: dflt });
    return true;
  }
}
