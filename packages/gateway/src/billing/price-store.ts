/**
 * The price store: every SQL statement on the `prices` and `group_ratios` tables is a named method
 * here — the price book's load, the task catalog's reads, and the administrators' pages, reads,
 * writes and deletes. Billing owns the tables; administration and the task host call these methods.
 */
import type { Insertable, Selectable } from 'kysely';
import type { DbHandle } from '../store/db.ts';
import type { GroupRatioRow, PriceRow } from '../store/schema-core.ts';

export class PriceStore {
  constructor(private readonly h: DbHandle) {}

  private get db() {
    return this.h.db;
  }

  /** Every price row (the price book's and the task catalog's snapshots). */
  all(): Promise<Selectable<PriceRow>[]> {
    return this.db.selectFrom('prices').selectAll().execute();
  }

  /** One page of the prices whose model contains `keyword` (by model), and how many there are. */
  async page(keyword: string | undefined, limit: number, offset: number): Promise<{ rows: Selectable<PriceRow>[]; total: number }> {
    let base = this.db.selectFrom('prices');
    if (keyword) base = base.where('model', 'like', `%${keyword.replace(/[\\%_]/g, (c) => '\\' + c)}%`);
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await base.selectAll().orderBy('model', 'asc').limit(limit).offset(offset).execute();
    return { rows, total: Number(total.n) };
  }

  byModel(model: string): Promise<Selectable<PriceRow> | undefined> {
    return this.db.selectFrom('prices').selectAll().where('model', '=', model).executeTakeFirst();
  }

  async insert(row: Insertable<PriceRow>): Promise<void> {
    await this.db.insertInto('prices').values(row).execute();
  }

  async update(model: string, row: Partial<Insertable<PriceRow>>): Promise<void> {
    await this.db.updateTable('prices').set(row).where('model', '=', model).execute();
  }

  /** Deletes a model's price; returns the number of rows deleted. */
  async remove(model: string): Promise<number> {
    const res = await this.db.deleteFrom('prices').where('model', '=', model).executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** Every group ratio, by group name. */
  ratios(): Promise<Selectable<GroupRatioRow>[]> {
    return this.db.selectFrom('group_ratios').selectAll().orderBy('group_name', 'asc').execute();
  }

  ratioOf(group: string): Promise<Selectable<GroupRatioRow> | undefined> {
    return this.db.selectFrom('group_ratios').selectAll().where('group_name', '=', group).executeTakeFirst();
  }

  async insertRatio(group: string, ratio: number): Promise<void> {
    await this.db.insertInto('group_ratios').values({ group_name: group, ratio }).execute();
  }

  async updateRatio(group: string, ratio: number): Promise<void> {
    await this.db.updateTable('group_ratios').set({ ratio }).where('group_name', '=', group).execute();
  }

  /** Deletes a group's ratio; returns the number of rows deleted. */
  async removeRatio(group: string): Promise<number> {
    const res = await this.db.deleteFrom('group_ratios').where('group_name', '=', group).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
