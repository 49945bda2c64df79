/**
 * The API key store: every SQL statement on the `api_keys` table is a named method here, save its
 * balance columns (`remain_quota`, `used_quota`, `accessed_at` of a settlement), which billing's ledger
 * (`billing/ledger.ts`) moves. The key cache, key administration, task callbacks and the usage reports
 * call these methods; methods that run inside a caller's transaction take its handle.
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import { insertId, type DbHandle, type DbOrTx } from '../store/db.ts';
import type { ApiKeyRow } from '../store/schema-core.ts';

export class KeyStore {
  constructor(private readonly h: DbHandle) {}

  private get db(): DbOrTx {
    return this.h.db;
  }

  /** Key names by id (ids without a key are left out). */
  names(ids: readonly number[]): Promise<Array<{ id: number; name: string }>> {
    return this.db
      .selectFrom('api_keys')
      .select(['id', 'name'])
      .where('id', 'in', ids as number[])
      .execute();
  }

  /** The enabled keys of enabled users, with what the key cache needs of their users. */
  enabledWithUsers() {
    return this.db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .select([
        'k.id',
        'k.name',
        'k.key_hash',
        'k.status',
        'k.expires_at',
        'k.unlimited_quota',
        'k.models',
        'k.allowed_ips',
        'k.group_name',
        'k.callback_url',
        'k.mcp_tools',
        'k.rpm',
        'k.tpm',
        'k.max_concurrency',
        'k.budget_quota',
        'k.budget_period',
        'k.team_id',
        'u.id as user_id',
        'u.username',
        'u.role',
        'u.group_name as user_group',
        'u.status as user_status',
      ])
      .where('k.status', '=', 1)
      .where('u.status', '=', 1)
      .execute();
  }

  /** One page of the administrators' list (newest first) with each key's username, and the filtered count. */
  async page(f: { userId?: number; keyword?: string; teamId?: number }, limit: number, offset: number) {
    let base = this.db.selectFrom('api_keys as k').innerJoin('users as u', 'u.id', 'k.user_id');
    if (f.userId !== undefined) base = base.where('k.user_id', '=', f.userId);
    if (f.teamId !== undefined) base = base.where('k.team_id', '=', f.teamId);
    if (f.keyword) base = base.where('k.name', 'like', `%${f.keyword.replace(/[\\%_]/g, (c) => '\\' + c)}%`);
    const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const rows = await base.selectAll('k').select('u.username').orderBy('k.id', 'desc').limit(limit).offset(offset).execute();
    return { rows, total: Number(total.n) };
  }

  /** One key with its user's name and group. */
  withUser(id: number) {
    return this.db
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .selectAll('k')
      .select(['u.username', 'u.group_name as user_group'])
      .where('k.id', '=', id)
      .executeTakeFirst();
  }

  byHash(keyHash: string): Promise<Selectable<ApiKeyRow> | undefined> {
    return this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
  }

  /** Sets the team whose wallet pays for the key's calls (null: its user's balance). */
  async setTeam(id: number, teamId: number | null): Promise<void> {
    await this.db.updateTable('api_keys').set({ team_id: teamId }).where('id', '=', id).execute();
  }

  /** A user's first key of this name. */
  byName(userId: number, name: string): Promise<Selectable<ApiKeyRow> | undefined> {
    return this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .orderBy('id', 'asc')
      .executeTakeFirst();
  }

  /** The ids of the keys of this name (a user's only, when `userId` is given): the log search's index. */
  async idsNamed(name: string, userId?: number): Promise<number[]> {
    let q = this.db.selectFrom('api_keys').select('id').where('name', '=', name);
    if (userId !== undefined) q = q.where('user_id', '=', userId);
    return (await q.limit(1000).execute()).map((r) => Number(r.id));
  }

  /** The sealed callback signing secret of a key (null when it has none or the key is gone). */
  async callbackSecret(id: number): Promise<string | null> {
    const k = await this.db.selectFrom('api_keys').select('callback_secret').where('id', '=', id).executeTakeFirst();
    return k?.callback_secret ?? null;
  }

  /** Inserts a key and returns its id (a taken hash throws the unique violation). */
  insert(values: Insertable<ApiKeyRow>): Promise<number> {
    return insertId(this.db, this.h.dialect, 'api_keys', values as Record<string, unknown>);
  }

  /** Inserts a key inside the caller's transaction and returns its id. */
  insertIn(tx: DbOrTx, values: Insertable<ApiKeyRow>): Promise<number> {
    return insertId(tx, this.h.dialect, 'api_keys', values as Record<string, unknown>);
  }

  /** Sets columns of one key. */
  async update(id: number, set: Updateable<ApiKeyRow>): Promise<void> {
    await this.db.updateTable('api_keys').set(set).where('id', '=', id).execute();
  }

  async remove(id: number): Promise<void> {
    await this.db.deleteFrom('api_keys').where('id', '=', id).execute();
  }

  /** The ids of a team's keys (of one member's, with `userId`): what the team's logs are read by. */
  async idsOfTeam(teamId: number, userId?: number): Promise<number[]> {
    let q = this.db.selectFrom('api_keys').select('id').where('team_id', '=', teamId);
    if (userId !== undefined) q = q.where('user_id', '=', userId);
    return (await q.execute()).map((r) => Number(r.id));
  }

  /** Disables a team's keys (of one member's, with `userId`): the team was deleted or the member left. */
  async disableTeamKeys(teamId: number, userId?: number): Promise<void> {
    let q = this.db.updateTable('api_keys').set({ status: 2 }).where('team_id', '=', teamId);
    if (userId !== undefined) q = q.where('user_id', '=', userId);
    await q.execute();
  }

  /** Deletes every key of a user (inside the transaction that deletes the user). */
  async removeOfUser(userId: number, tx: DbOrTx): Promise<void> {
    await tx.deleteFrom('api_keys').where('user_id', '=', userId).execute();
  }
}
