/**
 * The relay's run-time policy, read from the run-time options (options/options.ts: held in memory,
 * reloaded on the `options` revision) at call time: retries, auto-disable, 429 cooldown, the recovery
 * probe and which log rows are written. Lists are parsed once per distinct stored text, not per request.
 *
 * Auto-disable: an upstream failure *qualifies* when its status is in `AutoDisableStatusCodes` or its
 * error text contains one of `AutoDisableKeywords` (case-insensitive). Qualifying failures are counted
 * per channel key in memory (with Redis, every node counts every node's failures); the key is
 * disabled (the channel too when no key is left) at the `AutoDisableFailureThreshold`-th one within
 * `AutoDisableWindowSeconds`, by the node that meets it. A success of the key resets its count. With auto-disable off a qualifying failure cools the key down instead
 * (`CooldownOn429Seconds`). A 429 always cools the key down (Retry-After, else `CooldownOn429Seconds`).
 */
import type { Core } from '../core.ts';
import { KNOWN_OPTIONS } from '../options/options.ts';
import { parseGroupCounts } from '../accounts/rate-limits.ts';
import type { ChannelIndex, RuntimeChannel } from './channels.ts';
import type { AllowanceSettings } from '../billing/allowance.ts';

/** What the relay needs of the run-time options (options/options.ts). */
export interface OptionSource {
  get(key: string): string | undefined;
}

/** Cooldown after a connection failure or timeout. */
export const CONNECT_FAIL_COOLDOWN_MS = 5_000;
/** Shortest time between two probe rounds, whatever the option says. */
const MIN_PROBE_MS = 100;

function memo<T>(parse: (raw: string) => T): (raw: string) => T {
  let last: string | null = null;
  let value: T;
  return (raw) => {
    if (raw !== last) {
      value = parse(raw);
      last = raw;
    }
    return value;
  };
}

const parseCodes = memo(
  (raw) =>
    new Set(
      raw
        .split(/[,\s]+/)
        .filter(Boolean)
        .map(Number)
        .filter(Number.isInteger),
    ),
);
const parseKeywords = memo((raw) =>
  raw
    .split(/[\n,]/)
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean),
);
const truthy = (v: string): boolean => /^(1|true|yes|on)$/i.test(v.trim());
/** `enabled\nleaseSeconds` → settings (read on every model call: parsed once per distinct text). */
const parseAllowance = memo((raw): AllowanceSettings => {
  const [enabled, lease] = raw.split('\n');
  const n = Number(lease);
  return { enabled: truthy(enabled), leaseMs: Math.max(1, lease.trim() !== '' && Number.isFinite(n) && n >= 0 ? n : 60) * 1000 };
});

export type FailureOutcome = 'disabled' | 'counted' | 'cooled' | 'none';

/** Cluster events (with Redis): a qualifying failure of a key, and a success that resets its count. */
const FAILURE_EVENT = 'key_failure';
const RESET_EVENT = 'key_reset';

export class RelayPolicy {
  /** `${channelId}:${keyIndex}` → times (unix ms) of recent qualifying failures, oldest first. */
  private readonly failures = new Map<string, number[]>();
  /** ModelMaxOutputTokens as last parsed. */
  private limitsText = '';
  private limits = new Map<string, number>();

  constructor(
    private readonly core: Core,
    private readonly channels: ChannelIndex,
    private readonly options: OptionSource,
  ) {
    core.cache.onEvent(FAILURE_EVENT, (p) => {
      const e = p as { k?: unknown; t?: unknown };
      if (typeof e.k !== 'string' || typeof e.t !== 'number') return;
      const at = e.t;
      const threshold = Math.max(1, Math.floor(this.num('AutoDisableFailureThreshold', 3)));
      const windowMs = this.num('AutoDisableWindowSeconds', 300) * 1000;
      const times = (this.failures.get(e.k) ?? []).filter((t) => at - t < windowMs);
      times.push(at);
      this.failures.set(e.k, times.slice(-threshold));
    });
    core.cache.onEvent(RESET_EVENT, (p) => {
      const e = p as { k?: unknown };
      if (typeof e.k === 'string') this.failures.delete(e.k);
    });
  }

  /** The current text of an option: stored, else its default. */
  private raw(key: string): string {
    const v = this.options.get(key);
    if (v !== undefined) return v;
    const d = KNOWN_OPTIONS[key]?.default;
    return typeof d === 'function' ? d(this.core) : (d ?? '');
  }

  private num(key: string, fallback: number): number {
    const s = this.raw(key);
    const n = Number(s);
    return s.trim() !== '' && Number.isFinite(n) && n >= 0 ? n : fallback;
  }

  /** Attempts allowed for one request: the first plus `RetryTimes` more. */
  maxAttempts(): number {
    return 1 + Math.floor(this.num('RetryTimes', this.core.config.relayMaxRetries));
  }

  cooldown429Ms(): number {
    return this.num('CooldownOn429Seconds', 60) * 1000;
  }

  autoEnabled(): boolean {
    return truthy(this.raw('AutoEnableEnabled'));
  }

  probeIntervalMs(): number {
    return Math.max(MIN_PROBE_MS, this.num('AutoEnableProbeSeconds', this.core.config.relayProbeIntervalMs / 1000) * 1000);
  }

  /** The longest wait between two probes of one auto-disabled key (the back-off doubles up to it). */
  probeMaxBackoffMs(): number {
    return Math.max(this.probeIntervalMs(), this.num('AutoEnableMaxBackoffSeconds', 3600) * 1000);
  }

  /** An upstream balance below this raises the low-balance alert (0: never). */
  channelBalanceThreshold(): number {
    return this.num('ChannelBalanceAlertThreshold', 0);
  }

  /** Node-local quota allowances (billing/allowance.ts). */
  allowance(): AllowanceSettings {
    return parseAllowance(`${this.raw('QuotaAllowanceEnabled')}\n${this.raw('QuotaAllowanceLeaseSeconds')}`);
  }

  /** max_tokens sent (and reserved) for `model` when the caller names none. */
  defaultMaxOutput(model: string): number {
    const d = Math.max(1, Math.floor(this.num('RelayMaxOutputTokens', 4096)));
    const limit = this.modelMaxOutput(model);
    return limit !== undefined ? Math.min(d, limit) : d;
  }

  /** The output limit set for `model` (ModelMaxOutputTokens), if any. */
  modelMaxOutput(model: string): number | undefined {
    const text = this.raw('ModelMaxOutputTokens');
    if (text !== this.limitsText) {
      this.limitsText = text;
      try {
        this.limits = parseGroupCounts(text);
      } catch {
        this.limits = new Map();
      }
    }
    const n = this.limits.get(model);
    return n !== undefined && n >= 1 ? n : undefined;
  }

  /** Whether a log row of this type is written (`consume` and `error` can be switched off). */
  logs(type: string): boolean {
    if (type === 'consume') return truthy(this.raw('LogConsumeEnabled'));
    if (type === 'error') return truthy(this.raw('LogErrorEnabled'));
    return true;
  }

  /** Whether an upstream failure counts towards auto-disable (by status or error text). */
  qualifies(status: number, message: string): boolean {
    if (status <= 0) return false;
    if (parseCodes(this.raw('AutoDisableStatusCodes')).has(status)) return true;
    const words = parseKeywords(this.raw('AutoDisableKeywords'));
    if (words.length === 0) return false;
    const m = message.toLowerCase();
    return words.some((w) => m.includes(w));
  }

  /**
   * Applies the policy to a failed attempt with an upstream status (0: no answer). Returns whether the
   * key itself was at fault (the request should try another key of the same channel).
   */
  async failed(
    ch: RuntimeChannel,
    keyIndex: number,
    status: number,
    message: string,
    retryAfterMs?: number,
  ): Promise<{ keyFault: boolean; outcome: FailureOutcome }> {
    if (status === 0) {
      this.channels.cooldown(ch.id, keyIndex, CONNECT_FAIL_COOLDOWN_MS);
      return { keyFault: false, outcome: 'cooled' };
    }
    const qualifies = this.qualifies(status, message);
    if (status === 429) this.channels.cooldown(ch.id, keyIndex, retryAfterMs ?? this.cooldown429Ms());
    if (!qualifies) return { keyFault: false, outcome: status === 429 ? 'cooled' : 'none' };
    if (!truthy(this.raw('AutoDisableEnabled'))) {
      if (status !== 429) this.channels.cooldown(ch.id, keyIndex, this.cooldown429Ms());
      return { keyFault: true, outcome: 'cooled' };
    }
    const threshold = Math.max(1, Math.floor(this.num('AutoDisableFailureThreshold', 3)));
    const windowMs = this.num('AutoDisableWindowSeconds', 300) * 1000;
    const k = `${ch.id}:${keyIndex}`;
    const now = Date.now();
    const times = (this.failures.get(k) ?? []).filter((t) => now - t < windowMs);
    times.push(now);
    this.core.cache.broadcast(FAILURE_EVENT, { k, t: now });
    if (times.length >= threshold) {
      this.failures.delete(k);
      await this.channels.disableKey(ch.id, keyIndex, `upstream ${status}: ${message}`);
      return { keyFault: true, outcome: 'disabled' };
    }
    this.failures.set(k, times.slice(-threshold));
    if (this.failures.size > 10_000) this.prune(now, windowMs);
    return { keyFault: true, outcome: 'counted' };
  }

  /** A key answered: its count of qualifying failures starts again. */
  succeeded(channelId: number, keyIndex: number): void {
    if (this.failures.size !== 0 && this.failures.delete(`${channelId}:${keyIndex}`)) {
      this.core.cache.broadcast(RESET_EVENT, { k: `${channelId}:${keyIndex}` });
    }
  }

  /** Qualifying failures counted for a key within the window (for tests and the admin view). */
  failureCount(channelId: number, keyIndex: number): number {
    const windowMs = this.num('AutoDisableWindowSeconds', 300) * 1000;
    const now = Date.now();
    return (this.failures.get(`${channelId}:${keyIndex}`) ?? []).filter((t) => now - t < windowMs).length;
  }

  private prune(now: number, windowMs: number): void {
    for (const [k, times] of this.failures) if (!times.some((t) => now - t < windowMs)) this.failures.delete(k);
  }
}
