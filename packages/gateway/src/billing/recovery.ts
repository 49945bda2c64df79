/**
 * Recovery of relay reserves stranded by a node that died.
 *
 * A relay reserve (chat and the other model calls, pass-through endpoints, realtime sessions) is
 * recorded in `open_reserves` with the node process that holds it, in the reserve's own transaction;
 * the settle or refund deletes the row in theirs (billing/ledger.ts). Every node process keeps a
 * liveness lease (`node_leases` row `node:<Ledger.node>`), renewed every third of `NODE_LEASE_SECONDS`.
 * Every `RELAY_RECOVERY_INTERVAL_SECONDS` each node tries the recovery lease; its holder looks for open
 * reserves whose node's lease has lapsed (or is gone) and closes each of them:
 *  - settled at what the call's `consume` log rows charged (or, when a row records usage but no
 *    charge, at that usage's current price) — what the log proves was produced;
 *  - refunded otherwise (a call cut off before its log row was written is not charged).
 * The ledger's `close` row makes this happen once, whoever gets there first (the node itself, had it
 * lived, or two recovering nodes). Streams that run long on a live node are never touched: its lease
 * is renewed independently of its calls. A node restarted with the same NODE_ID is a new process with
 * a new lease; the reserves of its previous process are recovered once that process's lease lapses.
 */
import type { Core } from '../core.ts';
import { dropExpiredLeases, liveLeases, releaseLease, takeLease } from '../store/leases.ts';
import type { Ledger, Payer } from './ledger.ts';
import type { PriceBook } from './prices.ts';
import { consumeRowsOf } from '../logs/writer.ts';

/** The lease of the node that runs recovery rounds (one at a time in a deployment). */
const RECOVERY_LEASE = 'relay-reserve-recovery';
/** Open reserves closed per dead node and round. */
const BATCH = 200;

export const nodeLeaseName = (node: string): string => `node:${node}`;

export interface RecoveredReserve {
  ref: string;
  outcome: 'settled' | 'refunded' | 'already closed';
  charged: number;
}

export class ReserveRecovery {
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private roundTimer: NodeJS.Timeout | null = null;
  /** The timers stop re-arming. */
  private stopped = false;
  /** Shutting down: a round under way stops between reserves. */
  private closing = false;
  private holdsRecoveryLease = false;
  /** Rounds run and reserves closed by this node (tests, diagnostics). */
  readonly stats = { rounds: 0, closed: 0 };

  constructor(
    private readonly core: Core,
    private readonly ledger: Ledger,
    private readonly prices: PriceBook,
  ) {}

  private get node(): string {
    return this.ledger.node;
  }

  /** Takes this process's liveness lease (before it serves anything) and keeps renewing it. */
  async startHeartbeat(): Promise<void> {
    await this.heartbeat();
    const every = Math.max(50, Math.floor(this.core.config.nodeLeaseMs / 3));
    const tick = () => {
      void this.heartbeat()
        .catch((e) => this.core.log.warn({ err: (e as Error).message }, 'node lease renewal failed'))
        .finally(() => {
          if (this.stopped) return;
          this.heartbeatTimer = setTimeout(tick, every);
          this.heartbeatTimer.unref();
        });
    };
    this.heartbeatTimer = setTimeout(tick, every);
    this.heartbeatTimer.unref();
  }

  private async heartbeat(): Promise<void> {
    await takeLease(this.core.h.db, nodeLeaseName(this.node), this.node, this.core.config.nodeLeaseMs);
  }

  /** Starts the recovery rounds. */
  startRounds(): void {
    const every = this.core.config.relayRecoveryIntervalMs;
    const tick = () => {
      void this.round()
        .catch((e) => this.core.log.warn({ err: (e as Error).message }, 'relay reserve recovery failed'))
        .finally(() => {
          if (this.stopped) return;
          this.roundTimer = setTimeout(tick, every);
          this.roundTimer.unref();
        });
    };
    this.roundTimer = setTimeout(tick, every);
    this.roundTimer.unref();
  }

  /** Stops the timed rounds (the node's lease stays until `release`; `round` can still be called). */
  stopRounds(): void {
    this.stopped = true;
    if (this.roundTimer) clearTimeout(this.roundTimer);
    this.roundTimer = null;
  }

  /**
   * Gives up this process's leases, after its calls have settled: an open reserve it still has
   * (a settle that failed) is then recovered by the next round of any node.
   */
  async release(): Promise<void> {
    this.closing = true;
    this.stopRounds();
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = null;
    const db = this.core.h.db;
    if (this.holdsRecoveryLease) await releaseLease(db, RECOVERY_LEASE, this.node).catch(() => {});
    await releaseLease(db, nodeLeaseName(this.node), this.node).catch(() => {});
  }

  /** One round: on the holder of the recovery lease, closes the open reserves of every dead node. */
  async round(now = Date.now()): Promise<RecoveredReserve[]> {
    this.holdsRecoveryLease = await takeLease(this.core.h.db, RECOVERY_LEASE, this.node, 2 * this.core.config.relayRecoveryIntervalMs, now);
    if (!this.holdsRecoveryLease || this.closing) return [];
    this.stats.rounds++;
    const out: RecoveredReserve[] = [];
    for (const node of await this.deadNodes(now)) {
      const rows = await this.ledger.openReserves(node, BATCH);
      for (const r of rows) {
        if (this.closing) return out;
        // Budget rows its reserve took (if any) are found by the ref.
        const payer: Payer = {
          userId: Number(r.user_id),
          keyId: r.key_id === null ? null : Number(r.key_id),
          unlimitedKey: Number(r.key_capped) !== 1,
          teamId: r.team_id === null ? null : Number(r.team_id),
          budgets: 'recorded',
        };
        const done = await this.close(r.ref, payer);
        this.core.log.info(
          { requestId: r.ref, node, outcome: done.outcome, charged: done.charged },
          'open relay reserve of a stopped node closed',
        );
        out.push(done);
      }
    }
    this.stats.closed += out.length;
    // Leases of node processes that stopped long ago (nothing left to recover: no row means dead too).
    await dropExpiredLeases(this.core.h.db, 'node:', now - Math.max(this.core.config.nodeLeaseMs, 3_600_000));
    return out;
  }

  /** Nodes other than this one with open reserves whose lease lapsed or is gone. */
  private async deadNodes(now: number): Promise<string[]> {
    const nodes = await this.ledger.openReserveNodes();
    if (nodes.length === 0) return [];
    const live = await liveLeases(this.core.h.db, nodes.map(nodeLeaseName), now);
    return nodes.filter((n) => !live.has(nodeLeaseName(n)));
  }

  /** Closes one open reserve: settled at what its log rows prove, else refunded; once, whoever closes it. */
  private async close(ref: string, payer: Payer): Promise<RecoveredReserve> {
    const moved = await this.ledger.rows(ref);
    const reserved = moved.filter((m) => m.kind === 'reserve' || m.kind.startsWith('extend:')).reduce((s, m) => s + Number(m.amount), 0);
    const produced = await this.produced(ref);
    let done: RecoveredReserve;
    if (produced > 0) {
      const r = await this.ledger.settle(payer, ref, reserved, produced);
      done = r ? { ref, outcome: 'settled', charged: r.charged } : { ref, outcome: 'already closed', charged: 0 };
    } else {
      const ok = await this.ledger.refund(payer, ref, reserved);
      done = { ref, outcome: ok ? 'refunded' : 'already closed', charged: 0 };
    }
    // Closed before (the row outlived its close): nothing moves, the row goes.
    if (done.outcome === 'already closed') await this.ledger.dropOpenReserve(ref);
    return done;
  }

  /** What the call's `consume` log rows prove was produced, in quota units (0: nothing). */
  private async produced(ref: string): Promise<number> {
    const rows = await consumeRowsOf(this.core.h, ref);
    let sum = 0;
    for (const r of rows) {
      const q = Number(r.quota);
      if (q > 0) {
        sum += q;
        continue;
      }
      // A row with usage but no charge (its settle failed): the usage at the model's price.
      const usage = {
        inputTokens: Number(r.prompt_tokens),
        outputTokens: Number(r.completion_tokens),
        cachedInputTokens: Number(r.cached_tokens),
      };
      if (usage.inputTokens + usage.outputTokens <= 0) continue;
      const price = r.model ? this.prices.get(r.model) : null;
      if (!price) continue;
      const cost = this.prices.cost(price, usage, r.group_name ?? 'default');
      if (Number.isFinite(cost) && cost > 0) sum += cost;
    }
    return sum;
  }
}
