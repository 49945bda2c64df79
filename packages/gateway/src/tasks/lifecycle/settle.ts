/**
 * Task money: the price at submit, the final cost of a finished task, and the settlement that closes
 * the reserve. A task reserves once at submit (ref `task:<public id>`), and exactly one of settle or
 * refund closes it; the final cost is written together with the terminal transition, so whichever
 * node (or restart) performs the settlement afterwards moves the same amount, and the ledger refuses
 * a second movement. The money itself moves in `billing/ledger.ts`.
 */
import { insertLogs } from '../../logs/writer.ts';
import type { Payer } from '../../billing/ledger.ts';
import { echo, fail } from '../../platform/errors.ts';
import { compile, type Facts } from '../../billing/expr.ts';
import { validateFacts } from '../billing/facts.ts';
import type { Task } from './context.ts';
import { hookMessage, type TaskEnv } from './env.ts';
import type { LoadedPlugin } from '../../plugins/runtime/loader.ts';
import type { UsageSchemaN } from '../../plugins/runtime/manifest.ts';
import { TERMINAL } from './states.ts';

export interface BillingInfo {
  mode: 'expr' | 'per_call';
  priceKey: string;
  expression?: string;
  perCallUsd?: number;
  groupRatio: number;
  facts: Facts;
}

export function ledgerRef(publicId: string): string {
  return `task:${publicId}`;
}

export function usageSchema(plugin: LoadedPlugin, model: string, upstreamModel: string): UsageSchemaN | null {
  try {
    return plugin.usageSchemaFor(model, upstreamModel).schema;
  } catch {
    return null;
  }
}

export class Settlement {
  constructor(private readonly env: TaskEnv) {}

  private get log() {
    return this.env.log;
  }

  /** The billing snapshot of a submission: its price entry, group ratio and the plugin's usage facts. */
  async price(
    plugin: LoadedPlugin,
    ctx: Record<string, unknown>,
    model: string,
    upstreamModel: string,
    group: string,
  ): Promise<BillingInfo> {
    const found = this.env.catalog.price(plugin.key, model, upstreamModel);
    if (!found) throw fail('model_price_error', `no price is set for model "${echo(model)}" of plugin "${plugin.key}"`);
    const groupRatio = this.env.catalog.groupRatio(group);
    const schema = usageSchema(plugin, model, upstreamModel);
    let facts: Facts = {};
    if (plugin.has('extractUsage')) {
      let raw: unknown;
      try {
        raw = await plugin.call('extractUsage', { ...ctx, usagePurpose: 'facts' });
      } catch (e) {
        throw fail('plugin_usage_invalid', hookMessage(e));
      }
      facts = validateFacts(raw, schema) ?? {};
    }
    if (found.price.expression) {
      const b: BillingInfo = { mode: 'expr', priceKey: found.key, expression: found.price.expression, groupRatio, facts };
      try {
        this.quotaOf(b);
      } catch (e) {
        throw fail('model_price_error', { model: found.key, reason: (e as Error).message });
      }
      return b;
    }
    return { mode: 'per_call', priceKey: found.key, perCallUsd: found.price.perRequest ?? 0, groupRatio, facts };
  }

  /** Quota units for a billing snapshot (throws when the expression cannot be evaluated). */
  quotaOf(b: BillingInfo): number {
    const usd = b.mode === 'expr' ? compile(b.expression!).eval(b.facts) : (b.perCallUsd ?? 0);
    const q = Math.round(usd * this.env.config.quotaPerUsd * b.groupRatio);
    if (!Number.isFinite(q) || q < 0) throw new Error('price is not a finite non-negative amount');
    return q;
  }

  /** The cost of a successful task: completion facts overlaid on the frozen ones, re-evaluated. */
  async finalQuota(plugin: LoadedPlugin, t: Task, billing: BillingInfo, result: unknown, data: unknown): Promise<number> {
    if (billing.mode !== 'expr') return Number(t.quota_reserved);
    let facts = billing.facts;
    if (plugin.has('extractUsageOnComplete')) {
      try {
        const { ctx } = await this.env.pollContext(plugin, t);
        const raw = await plugin.call('extractUsageOnComplete', ctx, result, data);
        const f = validateFacts(raw, usageSchema(plugin, t.model, t.upstream_model), true);
        if (f) facts = { ...facts, ...f };
      } catch (e) {
        this.log.warn({ task: t.public_id, err: hookMessage(e) }, 'extractUsageOnComplete failed; reservation kept');
        return Number(t.quota_reserved);
      }
    }
    try {
      return this.quotaOf({ ...billing, facts });
    } catch (e) {
      this.log.warn({ task: t.public_id, err: (e as Error).message }, 'final price could not be computed; reservation kept');
      return Number(t.quota_reserved);
    }
  }

  /**
   * Closes the money of a terminal task: settle at `quota_final` on SUCCESS, refund on FAILURE —
   * unless a FAILURE carries a positive `quota_final` (an administrator charged a task the upstream
   * worked on), which settles at that amount. Safe to call any number of times from any node.
   */
  async settle(publicId: string): Promise<void> {
    const { store, ledger, callbacks } = this.env;
    const t = await store.byPublicId(publicId);
    // Every terminal transition comes through here: its callback (if any) becomes due at this step.
    if (t && TERMINAL.has(t.status) && callbacks) {
      await callbacks
        .arm(t)
        .catch((e) =>
          this.log.warn({ task: t.public_id, err: (e as Error).message }, 'arming the task callback failed; the callback worker will'),
        );
    }
    if (!t || !TERMINAL.has(t.status) || t.billing_status !== 'reserved') return;
    // Budget rows its reserve took (if any) are found by the ref: the settle corrects them.
    const payer: Payer = {
      userId: Number(t.user_id),
      keyId: t.key_id === null ? null : Number(t.key_id),
      unlimitedKey: t.key_unlimited === 1,
      teamId: t.team_id === null || t.team_id === undefined ? null : Number(t.team_id),
      budgets: 'recorded',
    };
    const ref = ledgerRef(t.public_id);
    const reserved = Number(t.quota_reserved);
    let outcome: 'settled' | 'refunded';
    const charged = t.status === 'SUCCESS' || (t.quota_final !== null && Number(t.quota_final) > 0);
    if (charged) {
      const final = t.quota_final === null ? reserved : Number(t.quota_final);
      const r = await ledger.settle(payer, ref, reserved, final);
      if (r) await this.logMovement(t, 'settle', r.charged, undefined, r.shortfall ? { shortfall: r.shortfall } : undefined);
      outcome = 'settled';
    } else {
      const ok = await ledger.refund(payer, ref, reserved);
      if (ok) await this.logMovement(t, 'refund', -reserved);
      outcome = 'refunded';
    }
    const moved = await ledger.movements(ref);
    const status = moved.settle !== undefined ? 'settled' : moved.refund !== undefined ? 'refunded' : outcome;
    await store.closeBilling(t.id, status);
  }

  /** Counts a money movement of a task in the metrics and writes its log row (a failed write is only logged). */
  async logMovement(t: Task, movement: string, quota: number, endpoint?: string, extra?: Record<string, unknown>): Promise<void> {
    this.env.core.metrics.task(t.plugin_key, movement, quota);
    try {
      await insertLogs(this.env.core.h, [
        {
          created_at: Date.now(),
          type: 'task',
          request_id: t.public_id,
          user_id: t.user_id,
          username: null,
          key_id: t.key_id,
          key_name: null,
          group_name: t.group_name,
          model: t.model,
          upstream_model: t.upstream_model,
          channel_id: t.channel_id,
          endpoint: endpoint ?? `/v1/tasks/${t.plugin_key}`,
          status_code: null,
          prompt_tokens: 0,
          completion_tokens: 0,
          cached_tokens: 0,
          quota,
          latency_ms: 0,
          first_byte_ms: null,
          is_stream: 0,
          attempts: 1,
          content: `task ${movement}`,
          other: JSON.stringify({ movement, plugin: t.plugin_key, status: t.status, ...extra }),
        },
      ]);
    } catch (e) {
      this.log.warn({ task: t.public_id, err: (e as Error).message }, 'task log write failed');
    }
  }
}
