/**
 * Key/value settings changed at run time (the `options` table), held in memory and reloaded on every
 * node when the `options` revision moves. Known keys have a type, a default and a doc; other keys
 * (used by other areas) are stored as given. Every area reads them here; the administration area
 * (admin/options.ts) checks and writes them.
 *
 * Some known keys are older names of another setting (`aliasOf`): they still work — a canonical key
 * that is not stored reads its alias's stored value, converted by `factor` when the unit changed — and
 * a warning names the setting to use instead, once per process when one is stored and at every write.
 * Durations are in seconds (`…Seconds`).
 */
import type { Core } from '../core.ts';
import { OptionStore } from './store.ts';

export type OptionType =
  | 'string'
  | 'int'
  | 'number'
  | 'bool'
  | 'int_list'
  | 'text_list'
  | 'url'
  | 'group_counts'
  | 'secret'
  | 'model_limits'
  | 'group_model_limits'
  | 'guardrails'
  | 'routing'
  | 'model_fallbacks';

export interface OptionSpec {
  type: OptionType;
  /** Default as text; a function reads it from the process configuration. */
  default: string | ((core: Core) => string);
  doc: string;
  /** The setting this key is an older name of (an option, or an environment variable such as PUBLIC_URL). */
  aliasOf?: string;
  /** Its value times `factor` is the value of `aliasOf` (a unit that changed, e.g. 60 for minutes → seconds). */
  factor?: number;
}

export const KNOWN_OPTIONS: Record<string, OptionSpec> = {
  ServerAddress: {
    type: 'url',
    default: (c) => c.config.publicUrl ?? '',
    doc: 'Older name of PUBLIC_URL, the public address of this gateway: used where PUBLIC_URL is not set (links in mail and artifact links, checkout return addresses, OpenAPI servers).',
    aliasOf: 'PUBLIC_URL',
  },
  TaskPublicAddress: {
    type: 'url',
    default: (c) => c.config.taskPublicAddress ?? '',
    doc: 'Older setting of the address in signed task artifact links (default TASK_PUBLIC_ADDRESS); unset, links use PUBLIC_URL.',
    aliasOf: 'PUBLIC_URL',
  },
  RetryTimes: {
    type: 'int',
    default: (c) => String(c.config.relayMaxRetries),
    doc: 'Further channels tried after a failed attempt. Default: RELAY_MAX_RETRIES.',
  },
  AutoDisableEnabled: { type: 'bool', default: 'true', doc: 'Disable a channel (or one key of it) automatically after repeated failures.' },
  AutoDisableStatusCodes: { type: 'int_list', default: '401,403', doc: 'Upstream HTTP statuses that count towards auto-disable.' },
  AutoDisableKeywords: {
    type: 'text_list',
    default: 'invalid api key\nincorrect api key\naccount deactivated\ninsufficient_quota\nbilling',
    doc: 'Upstream error texts (one per line, case-insensitive) that count towards auto-disable.',
  },
  AutoDisableFailureThreshold: {
    type: 'int',
    default: '3',
    doc: 'Qualifying failures within AutoDisableWindowSeconds before a key or channel is disabled.',
  },
  AutoDisableWindowSeconds: { type: 'int', default: '300', doc: 'Window for counting qualifying failures.' },
  AutoEnableEnabled: {
    type: 'bool',
    default: 'true',
    doc: 'Probe auto-disabled channels and keys and enable them again when a probe succeeds.',
  },
  AutoEnableProbeSeconds: {
    type: 'int',
    default: (c) => String(c.config.relayProbeIntervalMs / 1000),
    doc: 'Seconds between probe rounds over auto-disabled channels and keys. Default: RELAY_PROBE_INTERVAL_SECONDS.',
  },
  CooldownOn429Seconds: {
    type: 'int',
    default: '60',
    doc: 'A 429 from upstream without Retry-After pauses the key for this long (a 429 never disables unless its text matches AutoDisableKeywords).',
  },
  LogConsumeEnabled: { type: 'bool', default: 'true', doc: 'Write a log row for each successful model call.' },
  LogErrorEnabled: { type: 'bool', default: 'true', doc: 'Write a log row for each failed model call.' },
  DefaultModerationModel: {
    type: 'string',
    default: 'omni-moderation-latest',
    doc: 'Model used for POST /v1/moderations when the request names none.',
  },
  QuotaAllowanceEnabled: {
    type: 'bool',
    default: 'false',
    doc: 'Serve model calls from node-local quota holds written in batches instead of two ledger movements per call (docs/architecture.md#money).',
  },
  QuotaAllowanceLeaseSeconds: {
    type: 'int',
    default: '60',
    doc: 'Lease of a quota hold: a hold its node has not renewed for this long is closed by any node and its remainder given back.',
  },
  LoginAttemptLimit: {
    type: 'int',
    default: '10',
    doc: 'Failed logins allowed from one client address within LoginAttemptWindowSeconds; further logins from it get 429 until the window ends. 0 turns the limit off.',
  },
  LoginAttemptWindowSeconds: {
    type: 'int',
    default: '600',
    doc: 'Window of LoginAttemptLimit, starting with the first failure. Shared by all nodes with Redis.',
  },
  AdminRequireTwoFactor: {
    type: 'bool',
    default: 'false',
    doc: 'Admins and root must use a second factor (authenticator app or passkey). One without is sent to enrol: until then its console session reaches only its profile, and its access token and command-line sessions are refused (docs/two-factor.md).',
  },
  RateLimitRequests: {
    type: 'group_counts',
    default: '',
    doc: 'Model requests (calls, task submissions, realtime sessions, playground calls) of each user per RateLimitRequestsWindowSeconds, by group, as JSON: {"*": 60, "vip": 600} ("*" is every group without its own count; 0 = no limit). 429 rate_limit_exceeded beyond.',
  },
  RateLimitRequestsWindowSeconds: {
    type: 'int',
    default: '60',
    doc: "The window of RateLimitRequests, from a user's first request in it.",
  },
  ModelRequestRateLimitEnabled: {
    type: 'bool',
    default: 'false',
    doc: 'Older name of RateLimitRequests (read when it is not stored): turns ModelRequestRateLimitCount and ModelRequestRateLimitGroup on.',
    aliasOf: 'RateLimitRequests',
  },
  ModelRequestRateLimitDurationMinutes: {
    type: 'int',
    default: '1',
    doc: 'Older name of RateLimitRequestsWindowSeconds, in minutes.',
    aliasOf: 'RateLimitRequestsWindowSeconds',
    factor: 60,
  },
  ModelRequestRateLimitCount: {
    type: 'int',
    default: '0',
    doc: 'Older form of RateLimitRequests\'s "*" count (with ModelRequestRateLimitEnabled).',
    aliasOf: 'RateLimitRequests',
  },
  ModelRequestRateLimitGroup: {
    type: 'group_counts',
    default: '',
    doc: 'Older form of RateLimitRequests\'s per-group counts, as JSON {"vip": 600} (with ModelRequestRateLimitEnabled).',
    aliasOf: 'RateLimitRequests',
  },
  RateLimitModels: {
    type: 'model_limits',
    default: '',
    doc: 'Rate limits per model, counted for each user on its own (docs/limits.md): JSON {"gpt-4o": {"rpm": 60, "tpm": 200000, "max_concurrency": 4}}; "*" is every model without an entry of its own. 429 rate_limit_exceeded beyond.',
  },
  RateLimitGroups: {
    type: 'group_model_limits',
    default: '',
    doc: 'Per-group replacements of RateLimitModels entries for the users of a group, as JSON {"vip": {"gpt-4o": {"rpm": 600}, "*": {}}} (an empty entry lifts the limit).',
  },
  Guardrails: {
    type: 'guardrails',
    default: '',
    doc: 'Guardrail plugins bound to model calls (docs/guardrails.md), as JSON [{"plugin": "pii-mask", "stage": "input|output|both", "keys|users|groups|models": [...], "on_error": "block|allow"}]; a binding without scopes checks every call. The configuration file\'s top-level `guardrails:` list sets it.',
  },
  ChannelRouting: {
    type: 'routing',
    default: '',
    doc: 'How channels are chosen per group and model (docs/relay.md#routing-policies), as JSON {"<group or *>": {"<model or *>": "priority|least_busy|latency|cost"}}; the top-level `routing:` of the configuration file. Unset: priority.',
  },
  ModelFallbacks: {
    type: 'model_fallbacks',
    default: '',
    doc: 'Other models a call falls back to by error class (docs/relay.md#fallbacks-across-models), as JSON {"<model>": [{"model": "…", "on": ["context_length", "content_policy", "rate_limit", "unavailable"]}]}; the top-level `fallbacks:` of the configuration file.',
  },
  BudgetUtcOffsetSeconds: {
    type: 'number',
    default: '0',
    doc: 'Where the days, weeks (from Monday) and months of key and user budgets begin, in seconds from UTC (28800 for UTC+8). Changing it starts new periods.',
  },
  BudgetUtcOffsetMinutes: {
    type: 'number',
    default: '0',
    doc: 'Older name of BudgetUtcOffsetSeconds, in minutes.',
    aliasOf: 'BudgetUtcOffsetSeconds',
    factor: 60,
  },
  RelayMaxOutputTokens: {
    type: 'int',
    default: '4096',
    doc: "max_tokens the gateway sends (and reserves) for a chat or completions call that names none, at most the model's limit in ModelMaxOutputTokens (docs/relay.md#billing).",
  },
  ModelMaxOutputTokens: {
    type: 'group_counts',
    default: '',
    doc: 'Output limit per model as JSON, {"gpt-4o": 16384}: a larger max_tokens asked for is lowered to it before the call is sent and reserved.',
  },
  QuotaForNewUser: {
    type: 'int',
    default: '0',
    doc: 'Starting balance (quota units) of a user who signs up on their own, credited once: at sign-up, or when the address is verified if SignupEmailVerification is on (docs/signup.md).',
  },
  SignupEnabled: {
    type: 'bool',
    default: 'false',
    doc: "Let people create their own account (POST /api/user/register, the console's sign-up page). Off: sign-up is refused with 403 signup_disabled.",
  },
  SignupInvitationCode: {
    type: 'secret',
    default: '',
    doc: 'When set, sign-up needs this invitation code. Never shown: lists give [set] when one is stored.',
  },
  SignupEmailVerification: {
    type: 'bool',
    default: 'false',
    doc: 'Sign-up needs an e-mail address; a verification link is mailed and the starting balance is credited when it is followed. Needs SMTP_URL and ServerAddress.',
  },
  SignupAttemptLimit: {
    type: 'int',
    default: '10',
    doc: 'Sign-ups, password-reset and verification mails asked for from one client address within SignupAttemptWindowSeconds; further ones get 429 until the window ends. 0 turns the limit off.',
  },
  SignupAttemptWindowSeconds: {
    type: 'int',
    default: '3600',
    doc: 'Window of SignupAttemptLimit, starting with the first attempt. Shared by all nodes with Redis.',
  },
  EmailVerificationTtlSeconds: {
    type: 'int',
    default: '86400',
    doc: 'How long an e-mail verification link stays valid (at least an hour).',
  },
  PasswordResetTtlSeconds: { type: 'int', default: '1800', doc: 'How long a password reset link stays valid (at least a minute).' },
  EmailVerificationTtlHours: {
    type: 'int',
    default: '24',
    doc: 'Older name of EmailVerificationTtlSeconds, in hours.',
    aliasOf: 'EmailVerificationTtlSeconds',
    factor: 3600,
  },
  PasswordResetTtlMinutes: {
    type: 'int',
    default: '30',
    doc: 'Older name of PasswordResetTtlSeconds, in minutes.',
    aliasOf: 'PasswordResetTtlSeconds',
    factor: 60,
  },
  RedemptionAttemptLimit: {
    type: 'int',
    default: '10',
    doc: 'Redemptions of codes that do not exist allowed per user and per client address within RedemptionAttemptWindowSeconds; further redemptions get 429 until the window ends. 0 turns the limit off.',
  },
  RedemptionAttemptWindowSeconds: {
    type: 'int',
    default: '600',
    doc: 'Window of RedemptionAttemptLimit, starting with the first failure. Shared by all nodes with Redis.',
  },
  TopupCurrency: { type: 'string', default: 'usd', doc: 'Currency of online top-up (ISO code, e.g. usd, eur, cny).' },
  TopupQuotaPerUnit: {
    type: 'number',
    default: (c) => String(c.config.quotaPerUsd),
    doc: 'Quota units credited per unit of TopupCurrency paid online. Default: QUOTA_PER_USD (1 USD buys 1 USD of quota).',
  },
  TopupMinAmount: { type: 'number', default: '1', doc: 'Smallest online top-up, in TopupCurrency.' },
  TopupMaxAmount: { type: 'number', default: '10000', doc: 'Largest online top-up, in TopupCurrency.' },
  TopupCheckoutLimit: {
    type: 'int',
    default: '10',
    doc: 'Online checkouts one user may start within TopupCheckoutWindowSeconds; further ones get 429 until the window ends. 0 turns the limit off.',
  },
  TopupCheckoutWindowSeconds: {
    type: 'int',
    default: '3600',
    doc: 'Window of TopupCheckoutLimit, starting with the first checkout. Shared by all nodes with Redis.',
  },
  AlertWebhookUrl: {
    type: 'url',
    default: '',
    doc: 'Operator alerts (channels or keys auto-disabled or enabled again, tasks ending in an unknown outcome) are POSTed here as JSON, signed with AlertWebhookSecret (docs/alerts.md). Empty: no operator webhook.',
  },
  AlertWebhookSecret: {
    type: 'secret',
    default: '',
    doc: 'Key of the HMAC-SHA256 signature of operator alert webhooks (header X-Gatehouse-Signature: sha256=<hex>). Never shown: lists give [set] when one is stored.',
  },
  AlertEmailTo: {
    type: 'text_list',
    default: '',
    doc: 'E-mail addresses (comma- or newline-separated) that receive operator alerts; needs SMTP_URL.',
  },
  AlertDeliveryIntervalSeconds: {
    type: 'int',
    default: '5',
    doc: 'Seconds between rounds of the alert delivery worker (one node of a deployment sends: the lease holder).',
  },
  AlertRetryBaseSeconds: {
    type: 'int',
    default: '30',
    doc: 'Wait before the second attempt of a failed alert delivery; doubled after each further failure, at most an hour.',
  },
  AlertMaxAttempts: { type: 'int', default: '8', doc: 'Attempts of one alert delivery before it is marked failed.' },
};

/** For each option with older names that convert (`factor`): those names and factors. */
const CONVERTED_ALIASES: ReadonlyMap<string, ReadonlyArray<{ key: string; factor: number }>> = (() => {
  const m = new Map<string, Array<{ key: string; factor: number }>>();
  for (const [key, s] of Object.entries(KNOWN_OPTIONS)) {
    if (!s.aliasOf || !s.factor) continue;
    m.set(s.aliasOf, [...(m.get(s.aliasOf) ?? []), { key, factor: s.factor }]);
  }
  return m;
})();

/** The warning for an option stored or set under an older name; null for any other key. */
export function aliasWarning(key: string): string | null {
  const s = KNOWN_OPTIONS[key];
  if (!s?.aliasOf) return null;
  return `option ${key} is an older name of ${s.aliasOf}: it still works, but set ${s.aliasOf} instead (docs/configuration.md)`;
}

/** What lists show for a stored secret option; setting it back to this text keeps the secret. */
export const SECRET_SET = '[set]';

export type OptionUnit = 'seconds' | 'minutes' | 'hours' | 'quota';

/**
 * The unit of a number option, from its name (`…Seconds`, `…Minutes`, `…Hours`) or, for an amount of money, quota
 * units (shown in USD by the console); null for a count or a ratio.
 */
export function optionUnit(key: string): OptionUnit | null {
  const spec = KNOWN_OPTIONS[key];
  if (!spec || (spec.type !== 'int' && spec.type !== 'number')) return null;
  if (/Seconds$/.test(key)) return 'seconds';
  if (/Minutes$/.test(key)) return 'minutes';
  if (/Hours$/.test(key)) return 'hours';
  if (/^Quota(For|Per)/.test(key) && key !== 'TopupQuotaPerUnit') return 'quota';
  return null;
}

export interface OptionView {
  key: string;
  value: string;
  /** True when the value comes from the default, not the options table. */
  default: boolean;
  /** How the value is read (an option of another area that is not known here: `string`). */
  type: OptionType;
  unit: OptionUnit | null;
  doc?: string;
}

export class Options {
  protected values = new Map<string, string>();
  /** Moves with every reload: settings derived from options can be kept until it moves. */
  revision = 0;
  /** Older option names found stored, warned of once per process. */
  private readonly warned = new Set<string>();

  constructor(protected readonly core: Core) {}

  async load(): Promise<void> {
    const rows = await new OptionStore(this.core.h).all();
    this.values = new Map(rows.map((r) => [r.key, r.value]));
    this.revision++;
    for (const key of this.values.keys()) {
      const w = this.warned.has(key) ? null : aliasWarning(key);
      if (!w) continue;
      this.warned.add(key);
      this.core.log.warn({ option: key }, w);
    }
  }

  /** The stored value of `key` (no default, no older name); undefined when none is stored. */
  stored(key: string): string | undefined {
    return this.values.get(key);
  }

  /**
   * The gateway's public address without a trailing slash, '' when none is known: PUBLIC_URL (or its
   * older name SERVER_ADDRESS), else the stored option ServerAddress (its older name at run time).
   */
  publicUrl(): string {
    return this.core.config.publicUrl ?? (this.values.get('ServerAddress') || '');
  }

  /** The current value as text: the stored one, else the default of a known key, else undefined. */
  get(key: string): string | undefined {
    const v = this.values.get(key);
    if (v !== undefined) return v;
    const older = CONVERTED_ALIASES.get(key);
    if (older) {
      for (const a of older) {
        const av = this.values.get(a.key);
        if (av !== undefined && av !== '' && Number.isFinite(Number(av))) return String(Number(av) * a.factor);
      }
    }
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
    return (this.get(key) ?? '')
      .split(/[,\n]/)
      .map((s) => s.trim())
      .filter(Boolean);
  }

  list(): OptionView[] {
    const keys = new Set([...Object.keys(KNOWN_OPTIONS), ...this.values.keys()]);
    return [...keys].sort().map((key) => ({
      key,
      // A secret option is never shown: `[set]` tells that one is stored.
      value: KNOWN_OPTIONS[key]?.type === 'secret' ? (this.get(key) ? SECRET_SET : '') : (this.get(key) ?? ''),
      default: !this.values.has(key),
      type: KNOWN_OPTIONS[key]?.type ?? 'string',
      unit: optionUnit(key),
      ...(KNOWN_OPTIONS[key] ? { doc: KNOWN_OPTIONS[key].doc } : {}),
    }));
  }
}
