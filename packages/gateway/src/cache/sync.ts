/**
 * Keeps in-memory snapshots (keys, channels, prices, plugins, ...) true across nodes.
 *
 * A change bumps a counter in the `revisions` table (inside the writer's transaction when it has one)
 * and, when Redis is configured, publishes the name so other nodes reload at once. Every node also
 * reads the small revisions table on an interval, so a lost message or a node without Redis only
 * delays a reload, never misses it.
 *
 * With Redis, nodes also tell each other of short-lived state that is not worth a database write
 * (`broadcast` / `onEvent`: a channel key's cooldown). Without Redis such state stays on its node.
 * The Redis channels carry this deployment's id (a random number kept in `revisions` under
 * `instance`), so deployments sharing one Redis server do not hear each other.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { DbOrTx, DbHandle } from '../store/db.ts';
import type { Logger } from '../platform/logger.ts';

type Reload = () => Promise<void>;

export class CacheSync {
  private readonly seen = new Map<string, number>();
  private readonly reloaders = new Map<string, Reload[]>();
  private timer: NodeJS.Timeout | null = null;
  private sub: Redis | null = null;
  private pub: Redis | null = null;
  private checking: Promise<void> | null = null;
  private revisionsChannel = '';
  private eventsChannel = '';
  /** This process, so that it skips its own events. */
  private readonly origin = randomBytes(6).toString('hex');
  private readonly handlers = new Map<string, (payload: unknown) => void>();

  constructor(
    private readonly h: DbHandle,
    private readonly log: Logger,
    private readonly intervalMs: number,
  ) {}

  /** Registers a loader for a named snapshot and runs it once now. */
  async register(name: string, reload: Reload): Promise<void> {
    const list = this.reloaders.get(name) ?? [];
    list.push(reload);
    this.reloaders.set(name, list);
    if (!this.seen.has(name)) this.seen.set(name, await this.read(name));
    await reload();
  }

  /** Marks `name` as changed: in `tx` when given, so the bump commits with the change. Reloads locally. */
  async bump(name: string, tx?: DbOrTx): Promise<void> {
    const db = tx ?? this.h.db;
    const upd = await db
      .updateTable('revisions')
      .set({ value: sql`value + 1` })
      .where('name', '=', name)
      .executeTakeFirst();
    if (Number(upd.numUpdatedRows) === 0) {
      try {
        await db.insertInto('revisions').values({ name, value: 1 }).execute();
      } catch {
        await db
          .updateTable('revisions')
          .set({ value: sql`value + 1` })
          .where('name', '=', name)
          .execute();
      }
    }
    if (!tx) await this.afterCommit(name);
  }

  /** Call after the transaction that bumped `name` committed. */
  async afterCommit(name: string): Promise<void> {
    await this.reloadIfChanged(name, true);
    if (this.pub) this.pub.publish(this.revisionsChannel, name).catch((e) => this.log.warn({ err: e.message }, 'revision publish failed'));
  }

  /** With Redis: the prefix of this deployment's Redis keys and channels (`gatehouse:<instance id>:`). */
  redisPrefix: string | null = null;

  /** Tells the other nodes' `onEvent(topic)` handlers (with Redis; without it, nothing is sent). */
  broadcast(topic: string, payload: unknown): void {
    if (!this.pub) return;
    this.pub
      .publish(this.eventsChannel, JSON.stringify({ o: this.origin, t: topic, p: payload }))
      .catch((e) => this.log.warn({ err: e.message, topic }, 'event publish failed'));
  }

  /** Handles what other nodes broadcast under `topic` (one handler per topic). */
  onEvent(topic: string, handler: (payload: unknown) => void): void {
    this.handlers.set(topic, handler);
  }

  async start(redis?: { sub: Redis; pub: Redis }): Promise<void> {
    if (redis) {
      const id = await this.instanceId();
      this.redisPrefix = `gatehouse:${id}:`;
      this.revisionsChannel = `gatehouse:${id}:revisions`;
      this.eventsChannel = `gatehouse:${id}:events`;
      this.sub = redis.sub;
      this.pub = redis.pub;
      await this.sub.subscribe(this.revisionsChannel, this.eventsChannel);
      this.sub.on('message', (ch: string, msg: string) => {
        if (ch === this.revisionsChannel) {
          this.reloadIfChanged(msg, false).catch((e) => this.log.warn({ err: e.message, name: msg }, 'cache reload failed'));
        } else if (ch === this.eventsChannel) {
          this.event(msg);
        }
      });
    }
    this.timer = setInterval(() => {
      this.checkAll().catch((e) => this.log.warn({ err: e.message }, 'revision check failed'));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.checking;
  }

  private event(msg: string): void {
    let m: { o?: unknown; t?: unknown; p?: unknown };
    try {
      m = JSON.parse(msg);
    } catch {
      return;
    }
    if (m.o === this.origin || typeof m.t !== 'string') return;
    const h = this.handlers.get(m.t);
    if (!h) return;
    try {
      h(m.p);
    } catch (e) {
      this.log.warn({ err: (e as Error).message, topic: m.t }, 'event handler failed');
    }
  }

  /** This deployment's id, the same for every node of the database (made by the first node). */
  private async instanceId(): Promise<string> {
    let v = await this.read('instance');
    if (v === 0) {
      try {
        await this.h.db
          .insertInto('revisions')
          .values({ name: 'instance', value: randomInt(1, 2 ** 47) })
          .execute();
      } catch {
        // another node made it first
      }
      v = await this.read('instance');
    }
    return v.toString(36);
  }

  /** The stored value of counter `name` (0 when it was never bumped). */
  async read(name: string): Promise<number> {
    const row = await this.h.db.selectFrom('revisions').select('value').where('name', '=', name).executeTakeFirst();
    return row ? Number(row.value) : 0;
  }

  private checkAll(): Promise<void> {
    if (this.checking) return this.checking;
    this.checking = (async () => {
      const rows = await this.h.db.selectFrom('revisions').selectAll().execute();
      for (const r of rows) {
        if (!this.reloaders.has(r.name)) continue;
        if (Number(r.value) !== this.seen.get(r.name)) await this.runReload(r.name, Number(r.value));
      }
    })().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async reloadIfChanged(name: string, force: boolean): Promise<void> {
    if (!this.reloaders.has(name)) return;
    const v = await this.read(name);
    if (force || v !== this.seen.get(name)) await this.runReload(name, v);
  }

  private async runReload(name: string, value: number): Promise<void> {
    this.seen.set(name, value);
    for (const r of this.reloaders.get(name) ?? []) await r();
  }
}
