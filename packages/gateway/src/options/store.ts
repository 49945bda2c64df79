/**
 * The options store: every SQL statement on the `options` table is a named method here — the load of
 * every stored value, one value's read, update, insert and delete. The run-time options own the table;
 * their administration and the plugin marketplace's source list call these methods.
 */
import type { DbHandle } from '../store/db.ts';

export class OptionStore {
  constructor(private readonly h: DbHandle) {}

  private get db() {
    return this.h.db;
  }

  /** Every stored key and value. */
  all(): Promise<Array<{ key: string; value: string }>> {
    return this.db.selectFrom('options').selectAll().execute();
  }

  /** The stored value of a key, or undefined. */
  async value(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('options').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  }

  /** Sets a stored key's value; returns the number of rows changed (0 when the key is not stored). */
  async update(key: string, value: string): Promise<number> {
    const res = await this.db.updateTable('options').set({ value }).where('key', '=', key).executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  async insert(key: string, value: string): Promise<void> {
    await this.db.insertInto('options').values({ key, value }).execute();
  }

  /** Removes a stored key; returns the number of rows deleted. */
  async remove(key: string): Promise<number> {
    const res = await this.db.deleteFrom('options').where('key', '=', key).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
