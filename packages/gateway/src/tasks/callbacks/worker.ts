/**
 * The callback worker: on the one node that holds the `task-callbacks` lease (store/leases.ts), each
 * pass arms the callbacks of tasks that became terminal without it (a node that stopped in between),
 * claims due deliveries with a compare-and-swap that sets a per-row lease, and POSTs them through the
 * outbound `content` client, whose every connection must reach a public address unless
 * CONTENT_ALLOW_PRIVATE_ADDRESSES=true (platform/ssrf.ts). An attempt is recorded by a compare-and-swap
 * on the row's lease and attempt count, so a delivery whose lease passed to another node while it
 * waited cannot overwrite a newer record. A 2xx answer delivers it; anything else is retried with
 * doubling back-off until TASK_CALLBACK_GIVE_UP_SECONDS after the first attempt.
 *
 * Delivery is at least once: a receiver that answered but whose answer was lost (the node stopped)
 * gets the same delivery again, with the same `X-Delivery-Id` and the same body.
 */
import { request } from 'undici';
import type { Core } from '../../core.ts';
import { releaseLease, takeLease } from '../../store/leases.ts';
import { publicTask } from '../lifecycle/states.ts';
import type { TaskStore } from '../lifecycle/store.ts';
import { HISTORY_MAX, parseHistory, retryDelay, signBody, type CallbackRow, type TaskCallbacks } from './service.ts';

export const CALLBACK_LEASE = 'task-callbacks';
const CLAIM_BATCH = 32;
const MAX_IN_FLIGHT = 16;
const ERROR_MAX = 500;

export interface CallbackWorkerStats {
  passes: number;
  attempts: number;
  delivered: number;
  failed: number;
}

export class CallbackWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private holding = false;
  private kicked = false;
  private readonly inFlight = new Set<Promise<void>>();
  readonly stats: CallbackWorkerStats = { passes: 0, attempts: 0, delivered: 0, failed: 0 };

  /** `tasks` reads the tasks the deliveries belong to; `now` is the worker's clock (tests may inject one). */
  constructor(
    private readonly core: Core,
    private readonly callbacks: TaskCallbacks,
    private readonly tasks: Pick<TaskStore, 'byId'>,
    private readonly now: () => number = Date.now,
  ) {}

  private get db() {
    return this.core.h.db;
  }
  private get node() {
    return this.core.config.nodeId;
  }
  private get cfg() {
    return this.core.config;
  }

  start(): void {
    this.stopped = false;
    this.callbacks.onArmed = () => this.kick();
    this.schedule(Math.min(200, this.cfg.taskCallbackIntervalMs));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.callbacks.onArmed = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    // Deliveries still waiting on a receiver keep their row lease and are taken up again after it.
    await Promise.race([Promise.all([...this.inFlight]), new Promise((r) => setTimeout(r, 2000).unref())]);
    if (this.holding) await releaseLease(this.db, CALLBACK_LEASE, this.node).catch(() => {});
    this.holding = false;
  }

  /** Runs a pass soon (a callback was armed on this node). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.kicked = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.pass()
        .then(() => undefined)
        .catch((e) => this.core.log.warn({ err: (e as Error).message }, 'task callback pass failed'))
        .finally(() => {
          this.running = null;
          const again = this.kicked;
          this.kicked = false;
          this.schedule(again ? 0 : this.cfg.taskCallbackIntervalMs);
        });
    }, ms);
    this.timer.unref();
  }

  /** Whether this node holds the delivery lease (after its last pass). */
  get holdsLease(): boolean {
    return this.holding;
  }

  /** One pass; returns how many deliveries it started (0 on a node without the lease). */
  async pass(): Promise<number> {
    const now = this.now();
    const ttl = Math.max(3 * this.cfg.taskCallbackIntervalMs, 5000);
    this.holding = await takeLease(this.db, CALLBACK_LEASE, this.node, ttl, now);
    if (!this.holding) return 0;
    this.stats.passes++;
    await this.armLeftovers(now);
    const free = MAX_IN_FLIGHT - this.inFlight.size;
    if (free <= 0) return 0;
    const claimed = await this.claim(Math.min(free, CLAIM_BATCH), now);
    for (const row of claimed) {
      const p: Promise<void> = this.deliver(row)
        .catch((e) =>
          this.core.log.warn({ task: row.public_task_id, err: (e as Error).message }, 'task callback delivery failed unexpectedly'),
        )
        .finally(() => {
          this.inFlight.delete(p);
        });
      this.inFlight.add(p);
    }
    return claimed.length;
  }

  /** Waits for the deliveries started so far (tests). */
  async drain(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  /** Callbacks still waiting although their task is terminal (the node that finished it stopped first). */
  private async armLeftovers(now: number): Promise<void> {
    for (const r of await this.callbacks.terminalWithWaitingCallback(100)) await this.callbacks.arm(r, now);
  }

  private async claim(limit: number, now: number): Promise<CallbackRow[]> {
    return this.callbacks.claimDue(this.node, limit, now, now + this.cfg.taskCallbackTimeoutMs + 30_000);
  }

  /** The body of a delivery: the caller's task view, fixed at the first attempt. */
  private async payload(row: CallbackRow): Promise<string | null> {
    if (row.payload) return row.payload;
    const t = await this.tasks.byId(row.task_id);
    if (!t) return null;
    return JSON.stringify(publicTask(t));
  }

  /** One attempt of one claimed delivery, then its record. */
  async deliver(row: CallbackRow): Promise<void> {
    const started = this.now();
    const body = await this.payload(row);
    const secret = await this.callbacks.secretOf(row.key_id === null ? null : Number(row.key_id));
    let status: number | null = null;
    let error: string | null = null;
    let giveUp = false;
    if (body === null) {
      error = 'the task is gone';
      giveUp = true;
    } else if (secret === null) {
      error = 'the API key or its callback secret was removed';
      giveUp = true;
    } else {
      this.stats.attempts++;
      try {
        const res = await request(row.url, {
          method: 'POST',
          dispatcher: this.core.outbound.content,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Gatehouse-Callback/1',
            'x-delivery-id': row.delivery_id,
            'x-delivery-attempt': String(Number(row.attempts) + 1),
            'x-task-id': row.public_task_id,
            'x-signature': signBody(secret, body),
          },
          body,
          headersTimeout: this.cfg.taskCallbackTimeoutMs,
          bodyTimeout: this.cfg.taskCallbackTimeoutMs,
          signal: AbortSignal.timeout(this.cfg.taskCallbackTimeoutMs),
        });
        status = res.statusCode;
        await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
        if (status < 200 || status >= 300) error = `the receiver answered HTTP ${status}`;
      } catch (e) {
        error = describe(e);
      }
    }
    await this.record(row, body, { at: started, status, error, ms: Math.max(0, this.now() - started) }, giveUp);
  }

  private async record(
    row: CallbackRow,
    body: string | null,
    a: { at: number; status: number | null; error: string | null; ms: number },
    giveUp: boolean,
  ): Promise<void> {
    const now = this.now();
    const seen = Number(row.attempts);
    const attempts = seen + 1;
    const first = row.first_attempt_at === null ? a.at : Number(row.first_attempt_at);
    const history = [...parseHistory(row.history), a].slice(-HISTORY_MAX);
    const set: Record<string, unknown> = {
      attempts,
      first_attempt_at: first,
      last_attempt_at: a.at,
      last_status: a.status,
      last_error: a.error,
      history: JSON.stringify(history),
      lease_owner: null,
      lease_until: null,
    };
    if (body !== null && row.payload === null) set.payload = body;
    if (a.error === null) {
      Object.assign(set, { status: 'delivered', delivered_at: now, next_attempt_at: null });
    } else {
      const next = now + retryDelay(attempts, this.cfg.taskCallbackRetryBaseMs, this.cfg.taskCallbackRetryMaxMs);
      if (giveUp || next > first + this.cfg.taskCallbackGiveUpMs) Object.assign(set, { status: 'failed', next_attempt_at: null });
      else set.next_attempt_at = next;
    }
    if (!(await this.callbacks.recordAttempt(row.id, this.node, seen, set))) return;
    if (set.status === 'delivered') this.stats.delivered++;
    else if (set.status === 'failed') {
      this.stats.failed++;
      this.core.log.warn({ task: row.public_task_id, deliveryId: row.delivery_id, attempts, err: a.error }, 'task callback given up');
    }
  }
}

/** A transport error as a short text: the cause's message (a refused address, a time-out, a reset). */
function describe(e: unknown): string {
  const err = e as Error & { cause?: Error & { code?: string }; code?: string };
  const inner = err.cause ?? err;
  let m = inner?.message || err?.message || String(e);
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError' || inner?.code === 'UND_ERR_HEADERS_TIMEOUT')
    m = 'the receiver did not answer in time';
  // eslint-disable-next-line no-control-regex
  return m.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, ERROR_MAX);
}
