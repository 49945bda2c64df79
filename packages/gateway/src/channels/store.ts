/**
 * The channel store: every SQL statement on the `channels` table is a named method here — the
 * administrators' pages, creates, edits and deletes, the relay's cache load and health writes, the
 * task host's channel reads and the changes a plugin's removal makes to the channels bound to it.
 * The channels layer owns the table; the relay, administration, the task host and the usage reports
 * call these methods.
 * Methods that run inside a caller's transaction take its handle.
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import { insertId, type DbHandle, type DbOrTx } from '../store/db.ts';
import type { ChannelRow } from '../store/schema-core.ts';

/** Filters of the administrators' channel list (`group` is matched inside the JSON list). */
export interface ChannelFilter {
  keyword?: string;
  type?: number;
  status?: number;
  group?: string;
  tag?: string;
}

export class ChannelStore {
  constructor(private readonly h: DbHandle) {}

  private get db() {
    return this.h.db;
  }

  /** One page of the filtered list (priority first, then id) and the filtered count. */
  async page(f: ChannelFilter, limit: number, offset: number): Promise<{ rows: Selectable<ChannelRow>[]; total: number }> {
    let base = this.db.selectFrom('channels');
    if (f.keyword) base = base.where('name', 'like', `%${f.keyword.replace(/[\\%_]/g, (c) => '\\' + c)}%`);
    if (f.type !== undefined) base = base.where('type', '=', f.type);
    if (f.status !== undefined) base = base.where('status', '=', f.status);
    if (f.group) base = base.where('groups', 'like', `%${JSON.stringify(f.group)}%`);
    if (f.tag) base = base.where('tag', '=', f.tag);
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await base.selectAll().orderBy('priority', 'desc').orderBy('id', 'asc').limit(limit).offset(offset).execute();
    return { rows, total: Number(total.n) };
  }

  /** Every channel (the relay's snapshot). */
  all(): Promise<Selectable<ChannelRow>[]> {
    return this.db.selectFrom('channels').selectAll().execute();
  }

  /** The enabled channels of the given types (the task host's snapshot). */
  enabledOfTypes(types: readonly number[]): Promise<Selectable<ChannelRow>[]> {
    return this.db
      .selectFrom('channels')
      .selectAll()
      .where('type', 'in', types as number[])
      .where('status', '=', 1)
      .execute();
  }

  /** What the task host needs to find the channels bound to a plugin. */
  bindings(): Promise<Array<Pick<Selectable<ChannelRow>, 'id' | 'name' | 'type' | 'status' | 'settings'>>> {
    return this.db.selectFrom('channels').select(['id', 'name', 'type', 'status', 'settings']).execute();
  }

  byId(id: number, db: DbOrTx = this.db): Promise<Selectable<ChannelRow> | undefined> {
    return db.selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirst();
  }

  byName(name: string): Promise<Selectable<ChannelRow> | undefined> {
    return this.db.selectFrom('channels').selectAll().where('name', '=', name).executeTakeFirst();
  }

  /** Names by id (ids without a channel are left out). */
  names(ids: readonly number[]): Promise<Array<{ id: number; name: string }>> {
    return this.db
      .selectFrom('channels')
      .select(['id', 'name'])
      .where('id', 'in', ids as number[])
      .execute();
  }

  /** Inserts a channel and returns its id (a taken name throws the unique violation). */
  insert(values: Insertable<ChannelRow>): Promise<number> {
    return insertId(this.db, this.h.dialect, 'channels', values as Record<string, unknown>);
  }

  /** Sets columns of one channel. */
  async update(id: number, set: Updateable<ChannelRow>, db: DbOrTx = this.db): Promise<void> {
    await db.updateTable('channels').set(set).where('id', '=', id).execute();
  }

  async remove(id: number): Promise<void> {
    await this.db.deleteFrom('channels').where('id', '=', id).execute();
  }

  /** Every channel of a tag. */
  byTag(tag: string): Promise<Selectable<ChannelRow>[]> {
    return this.db.selectFrom('channels').selectAll().where('tag', '=', tag).orderBy('id').execute();
  }

  /** The channels disabled by hand or automatically (status 2 or 3). */
  disabled(): Promise<Selectable<ChannelRow>[]> {
    return this.db.selectFrom('channels').selectAll().where('status', 'in', [2, 3]).orderBy('id').execute();
  }

  /** Deletes channels by id; returns how many went. */
  async removeMany(ids: readonly number[]): Promise<number> {
    if (ids.length === 0) return 0;
    const r = await this.db
      .deleteFrom('channels')
      .where('id', 'in', ids as number[])
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Records the upstream balance its vendor reported. */
  async setBalance(id: number, balance: number, at: number): Promise<void> {
    await this.db.updateTable('channels').set({ balance, balance_updated_at: at }).where('id', '=', id).execute();
  }

  /** Keeps the results of the last "test all models" (JSON) with the test time. */
  async setLastTest(id: number, lastTest: string, at: number): Promise<void> {
    await this.db.updateTable('channels').set({ last_test: lastTest, tested_at: at }).where('id', '=', id).execute();
  }

  /** Writes the recovery probe's back-off (JSON, or null when nothing is disabled). */
  async setRecovery(id: number, recovery: string | null): Promise<void> {
    await this.db.updateTable('channels').set({ recovery }).where('id', '=', id).execute();
  }
}
