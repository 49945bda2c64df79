/**
 * Key/value settings changed at run time (the `options` table), held in memory and reloaded on every
 * node when the `options` revision moves. Known keys have a type, a default and a check; other keys
 * (used by other areas) are stored as given.
 */
import type { Core } from '../core.ts';
import type { Changes } from './changes.ts';
import type { Actor } from './users.ts';
import type { AuditLog } from './audit.ts';
import { fieldError } from './validate.ts';
import { parseGroupCounts } from '../accounts/request-limit.ts';
import { parseGroupModelLimits, parseModelLimits } from '../accounts/rate-limits.ts';

type OptionType = 'string' | 'int' | 'number' | 'bool' | 'int_list' | 'text_list' | 'url' | 'group_counts' | 'secret' | 'model_limits' | 'group_model_limits';

export interface OptionSpec {
  type: OptionType;
  /** Default as text; a function reads it from the process configuration. */
  default: string | ((core: Core) => string);
  doc: string;
}

export const KNOWN_OPTIONS: Record<string, OptionSpec> = {
  ServerAddress: { type: 'url', default: (c) => c.config.serverAddress ?? '', doc: 'Public address of this gateway (links, OpenAPI servers). Default: SERVER_ADDRESS.' },
  TaskPublicAddress: { type: 'url', default: (c) => c.config.taskPublicAddress ?? '', doc: 'Public address used in signed task artifact links; falls back to ServerAddress. Default: TASK_PUBLIC_ADDRESS.' },
  RetryTimes: { type: 'int', default: (c) => String(c.config.relayMaxRetries), doc: 'Further channels tried after a failed attempt. Default: RELAY_MAX_RETRIES.' },
  AutoDisableEnabled: { type: 'bool', default: 'true', doc: 'Disable a channel (or one key of it) automatically after repeated failures.' },
  AutoDisableStatusCodes: { type: 'int_list', default: '401,403', doc: 'Upstream HTTP statuses that count towards auto-disable.' },
  AutoDisableKeywords: { type: 'text_list', default: 'invalid api key\nincorrect api key\naccount deactivated\ninsufficient_quota\nbilling', doc: 'Upstream error texts (one per line, case-insensitive) that count towards auto-disable.' },
  AutoDisableFailureThreshold: { type: 'int', default: '3', doc: 'Qualifying failures within AutoDisableWindowSeconds before a key or channel is disabled.' },
  AutoDisableWindowSeconds: { type: 'int', default: '300', doc: 'Window for counting qualifying failures.' },
  AutoEnableEnabled: { type: 'bool', default: 'true', doc: 'Probe auto-disabled channels and keys and enable them again when a probe succeeds.' },
  AutoEnableProbeSeconds: { type: 'int', default: (c) => String(c.config.relayProbeIntervalMs / 1000), doc: 'Seconds between probe rounds over auto-disabled channels and keys. Default: RELAY_PROBE_INTERVAL_SECONDS.' },
  CooldownOn429Seconds: { type: 'int', default: '60', doc: 'A 429 from upstream without Retry-After pauses the key for this long (a 429 never disables unless its text matches AutoDisableKeywords).' },
  LogConsumeEnabled: { type: 'bool', default: 'true', doc: 'Write a log row for each successful model call.' },
  LogErrorEnabled: { type: 'bool', default: 'true', doc: 'Write a log row for each failed model call.' },
  DefaultModerationModel: { type: 'string', default: 'omni-moderation-latest', doc: 'Model used for POST /v1/moderations when the request names none.' },
  QuotaAllowanceEnabled: { type: 'bool', default: 'false', doc: 'Serve model calls from node-local quota holds written in batches instead of two ledger movements per call (docs/architecture.md#money).' },
  QuotaAllowanceLeaseSeconds: { type: 'int', default: '60', doc: 'Lease of a quota hold: a hold its node has not renewed for this long is closed by any node and its remainder given back.' },
  LoginAttemptLimit: { type: 'int', default: '10', doc: 'Failed logins allowed from one client address within LoginAttemptWindowSeconds; further logins from it get 429 until the window ends. 0 turns the limit off.' },
  LoginAttemptWindowSeconds: { type: 'int', default: '600', doc: 'Window of LoginAttemptLimit, starting with the first failure. Shared by all nodes with Redis.' },
  AdminRequireTwoFactor: { type: 'bool', default: 'false', doc: 'Admins and root must use a second factor (authenticator app or passkey). One without is sent to enrol: until then its console session reaches only its profile, and its access token and command-line sessions are refused (docs/two-factor.md).' },
  ModelRequestRateLimitEnabled: { type: 'bool', default: 'false', doc: 'Limit model requests (calls and task submissions) per user to ModelRequestRateLimitCount per ModelRequestRateLimitDurationMinutes; 429 rate_limit_exceeded beyond.' },
  ModelRequestRateLimitDurationMinutes: { type: 'int', default: '1', doc: 'Window of the model request limit, in minutes, from a user\'s first request in it.' },
  ModelRequestRateLimitCount: { type: 'int', default: '0', doc: 'Model requests per user and window; 0 = no limit (groups in ModelRequestRateLimitGroup still apply).' },
  ModelRequestRateLimitGroup: { type: 'group_counts', default: '', doc: 'Per-group counts replacing ModelRequestRateLimitCount, as JSON: {"vip": 600, "free": 20}.' },
  RateLimitModels: { type: 'model_limits', default: '', doc: 'Rate limits per model, counted for each user on its own (docs/limits.md): JSON {"gpt-4o": {"rpm": 60, "tpm": 200000, "max_concurrency": 4}}; "*" is every model without an entry of its own. 429 rate_limit_exceeded beyond.' },
  RateLimitGroups: { type: 'group_model_limits', default: '', doc: 'Per-group replacements of RateLimitModels entries for the users of a group, as JSON {"vip": {"gpt-4o": {"rpm": 600}, "*": {}}} (an empty entry lifts the limit).' },
  BudgetUtcOffsetMinutes: { type: 'number', default: '0', doc: 'Where the days, weeks (from Monday) and months of key and user budgets begin, in minutes from UTC (480 for UTC+8). Changing it starts new periods.' },
  RelayMaxOutputTokens: { type: 'int', default: '4096', doc: 'max_tokens the gateway sends (and reserves) for a chat or completions call that names none, at most the model\'s limit in ModelMaxOutputTokens (docs/relay.md#billing).' },
  ModelMaxOutputTokens: { type: 'group_counts', default: '', doc: 'Output limit per model as JSON, {"gpt-4o": 16384}: a larger max_tokens asked for is lowered to it before the call is sent and reserved.' },
  QuotaForNewUser: { type: 'int', default: '0', doc: 'Starting balance (quota units) of a user who signs up on their own, credited once: at sign-up, or when the address is verified if SignupEmailVerification is on (docs/signup.md).' },
  SignupEnabled: { type: 'bool', default: 'false', doc: 'Let people create their own account (POST /api/user/register, the console\'s sign-up page). Off: sign-up is refused with 403 signup_disabled.' },
  SignupInvitationCode: { type: 'secret', default: '', doc: 'When set, sign-up needs this invitation code. Never shown: lists give [set] when one is stored.' },
  SignupEmailVerification: { type: 'bool', default: 'false', doc: 'Sign-up needs an e-mail address; a verification link is mailed and the starting balance is credited when it is followed. Needs SMTP_URL and ServerAddress.' },
  SignupAttemptLimit: { type: 'int', default: '10', doc: 'Sign-ups, password-reset and verification mails asked for from one client address within SignupAttemptWindowSeconds; further ones get 429 until the window ends. 0 turns the limit off.' },
  SignupAttemptWindowSeconds: { type: 'int', default: '3600', doc: 'Window of SignupAttemptLimit, starting with the first attempt. Shared by all nodes with Redis.' },
  EmailVerificationTtlHours: { type: 'int', default: '24', doc: 'How long an e-mail verification link stays valid.' },
  PasswordResetTtlMinutes: { type: 'int', default: '30', doc: 'How long a password reset link stays valid.' },
  RedemptionAttemptLimit: { type: 'int', default: '10', doc: 'Redemptions of codes that do not exist allowed per user and per client address within RedemptionAttemptWindowSeconds; further redemptions get 429 until the window ends. 0 turns the limit off.' },
  RedemptionAttemptWindowSeconds: { type: 'int', default: '600', doc: 'Window of RedemptionAttemptLimit, starting with the first failure. Shared by all nodes with Redis.' },
  TopupCurrency: { type: 'string', default: 'usd', doc: 'Currency of online top-up (ISO code, e.g. usd, eur, cny).' },
  TopupQuotaPerUnit: { type: 'number', default: (c) => String(c.config.quotaPerUsd), doc: 'Quota units credited per unit of TopupCurrency paid online. Default: QUOTA_PER_USD (1 USD buys 1 USD of quota).' },
  TopupMinAmount: { type: 'number', default: '1', doc: 'Smallest online top-up, in TopupCurrency.' },
  TopupMaxAmount: { type: 'number', default: '10000', doc: 'Largest online top-up, in TopupCurrency.' },
  AlertWebhookUrl: { type: 'url', default: '', doc: 'Operator alerts (channels or keys auto-disabled or enabled again, tasks ending in an unknown outcome) are POSTed here as JSON, signed with AlertWebhookSecret (docs/alerts.md). Empty: no operator webhook.' },
  AlertWebhookSecret: { type: 'secret', default: '', doc: 'Key of the HMAC-SHA256 signature of operator alert webhooks (header X-Gatehouse-Signature: sha256=<hex>). Never shown: lists give [set] when one is stored.' },
  AlertEmailTo: { type: 'text_list', default: '', doc: 'E-mail addresses (comma- or newline-separated) that receive operator alerts; needs SMTP_URL.' },
  AlertDeliveryIntervalSeconds: { type: 'int', default: '5', doc: 'Seconds between rounds of the alert delivery worker (one node of a deployment sends: the lease holder).' },
  AlertRetryBaseSeconds: { type: 'int', default: '30', doc: 'Wait before the second attempt of a failed alert delivery; doubled after each further failure, at most an hour.' },
  AlertMaxAttempts: { type: 'int', default: '8', doc: 'Attempts of one alert delivery before it is marked failed.' },
};

/** Options whose value is JSON text. */
const JSON_TYPES: ReadonlySet<OptionType> = new Set(['group_counts', 'model_limits', 'group_model_limits']);

const KEY_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,127}$/;
/** What lists show for a stored secret option; setting it back to this text keeps the secret. */
export const SECRET_SET = '[set]';

export interface OptionView {
  key: string;
  value: string;
  /** True when the value comes from the default, not the options table. */
  default: boolean;
  doc?: string;
}

export class Options {
  private values = new Map<string, string>();
  /** Moves with every reload: settings derived from options can be kept until it moves. */
  revision = 0;

  constructor(private readonly core: Core, private readonly changes: Changes, private readonly audit: AuditLog | null = null) {}

  async load(): Promise<void> {
    const rows = await this.core.h.db.selectFrom('options').selectAll().execute();
    this.values = new Map(rows.map((r) => [r.key, r.value]));
    this.revision++;
  }

  /** The current value as text: the stored one, else the default of a known key, else undefined. */
  get(key: string): string | undefined {
    const v = this.values.get(key);
    if (v !== undefined) return v;
    const spec = KNOWN_OPTIONS[key];
    if (!spec) return undefined;
    return typeof spec.default === 'function' ? spec.default(this.core) : spec.default;
  }

  getNumber(key: string, fallback = 0): number {
    const n = Number(this.get(key));
    return Number.isFinite(n) && this.get(key) !== '' ? n : fallback;
  }

  getBool(key: string, fallback = false): boolean {
    const v = this.get(key);
    return v === undefined || v === '' ? fallback : /^(1|true|yes|on)$/i.test(v);
  }

  /** A list option: comma- or newline-separated entries. */
  getList(key: string): string[] {
    return (this.get(key) ?? '').split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
  }

  list(): OptionView[] {
    const keys = new Set([...Object.keys(KNOWN_OPTIONS), ...this.values.keys()]);
    return [...keys].sort().map((key) => ({
      key,
      // A secret option is never shown: `[set]` tells that one is stored.
      value: KNOWN_OPTIONS[key]?.type === 'secret' ? (this.get(key) ? SECRET_SET : '') : this.get(key) ?? '',
      default: !this.values.has(key),
      ...(KNOWN_OPTIONS[key] ? { doc: KNOWN_OPTIONS[key].doc } : {}),
    }));
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
        try { parseGroupCounts(text); } catch (e) { throw fieldError(field, (e as Error).message); }
        return text;
      case 'model_limits':
        try { parseModelLimits(text); } catch (e) { throw fieldError(field, (e as Error).message); }
        return text;
      case 'group_model_limits':
        try { parseGroupModelLimits(text); } catch (e) { throw fieldError(field, (e as Error).message); }
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
    const db = this.core.h.db;
    const cur = await db.selectFrom('options').select('value').where('key', '=', key).executeTakeFirst();
    if (cur && cur.value === text) return false;
    const before = cur ? cur.value : this.get(key) ?? null;
    if (cur) await db.updateTable('options').set({ value: text }).where('key', '=', key).execute();
    else await db.insertInto('options').values({ key, value: text }).execute();
    await this.changes.changed('options');
    // Keyed by the option's name, so the value of a secret option (…Secret, …Token) is redacted.
    await this.audit?.record(actor, 'option.set', { type: 'option', id: key }, { [key]: before }, { [key]: text });
    return true;
  }

  /** Removes a stored value, so the default applies again. */
  async reset(key: string, actor: Actor = null): Promise<boolean> {
    const cur = await this.core.h.db.selectFrom('options').select('value').where('key', '=', key).executeTakeFirst();
    const res = await this.core.h.db.deleteFrom('options').where('key', '=', key).executeTakeFirst();
    if (Number(res.numDeletedRows) === 0) return false;
    await this.changes.changed('options');
    const spec = KNOWN_OPTIONS[key];
    const dflt = spec ? (typeof spec.default === 'function' ? spec.default(this.core) : spec.default) : null;
    await this.audit?.record(actor, 'option.reset', { type: 'option', id: key }, { [key]: cur?.value ?? null }, { [key]: dflt });
    return true;
  }
}
