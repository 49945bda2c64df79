/**
 * Keeps in-memory snapshots (keys, channels, prices, plugins, ...) true across nodes.
 *
 * A change bumps a counter in the `revisions` table (inside the writer's transaction when it has one)
 * and, when Redis is configured, publishes the name so other nodes reload at once. Every node also
 * reads the small revisions table on an interval, so a lost message or a node without Redis only
 * delays a reload, never misses it.
 */
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { DbOrTx, DbHandle } from '../store/db.ts';
import type { Logger } from '../platform/logger.ts';

type Reload = () => Promise<void>;
const CHANNEL = 'gatehouse:revisions';

export class CacheSync {
  private readonly seen = new Map<string, number>();
  private readonly reloaders = new Map<string, Reload[]>();
  private timer: NodeJS.Timeout | null = null;
  private sub: Redis | null = null;
  private pub: Redis | null = null;
  private checking: Promise<void> | null = null;

  constructor(private readonly h: DbHandle, private readonly log: Logger, private readonly intervalMs: number) {}

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
    const upd = await db.updateTable('revisions').set({ value: sql`value + 1` }).where('name', '=', name).executeTakeFirst();
    if (Number(upd.numUpdatedRows) === 0) {
      try {
        await db.insertInto('revisions').values({ name, value: 1 }).execute();
      } catch {
        await db.updateTable('revisions').set({ value: sql`value + 1` }).where('name', '=', name).execute();
      }
    }
    if (!tx) await this.afterCommit(name);
  }

  /** Call after the transaction that bumped `name` committed. */
  async afterCommit(name: string): Promise<void> {
    await this.reloadIfChanged(name, true);
    if (this.pub) this.pub.publish(CHANNEL, name).catch((e) => this.log.warn({ err: e.message }, 'revision publish failed'));
  }

  async start(redis?: { sub: Redis; pub: Redis }): Promise<void> {
    if (redis) {
      this.sub = redis.sub;
      this.pub = redis.pub;
      await this.sub.subscribe(CHANNEL);
      this.sub.on('message', (_ch, name: string) => {
        this.reloadIfChanged(name, false).catch((e) => this.log.warn({ err: e.message, name }, 'cache reload failed'));
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

  private async read(name: string): Promise<number> {
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
    })().finally(() => { this.checking = null; });
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
