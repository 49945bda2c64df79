/**
 * Named leases between the nodes of one deployment, for work that should run on one node at a time
 * (the relay's recovery probe). The holder renews its lease whenever it likes; another node takes it
 * only once it has expired, so a node that stops is replaced after at most one lease.
 */
import { isUniqueViolation, type Db } from './db.ts';

/** Takes or renews the lease `name` for `holder` until `now + ttlMs`; false while another node holds it. */
export async function takeLease(db: Db, name: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
  const r = await db
    .updateTable('node_leases')
    .set({ holder, expires_at: now + ttlMs })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('expires_at', '<', now), eb('holder', '=', holder)]))
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) > 0) return true;
  try {
    await db
      .insertInto('node_leases')
      .values({ name, holder, expires_at: now + ttlMs })
      .execute();
    return true;
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    // Taken meanwhile, or (MySQL counts changed rows, not matched ones) renewed by us within the same ms.
    const row = await db.selectFrom('node_leases').select(['holder', 'expires_at']).where('name', '=', name).executeTakeFirst();
    return row?.holder === holder && Number(row.expires_at) >= now + ttlMs;
  }
}

/** The names among `names` whose lease has not expired at `now`. */
export async function liveLeases(db: Db, names: string[], now: number): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await db.selectFrom('node_leases').select(['name', 'expires_at']).where('name', 'in', names).execute();
  return new Set(rows.filter((l) => Number(l.expires_at) >= now).map((l) => l.name));
}

/** Deletes the leases whose name starts with `prefix` and that expired before `before`. */
export async function dropExpiredLeases(db: Db, prefix: string, before: number): Promise<void> {
  await db.deleteFrom('node_leases').where('name', 'like', `${prefix}%`).where('expires_at', '<', before).execute();
}

/** Gives the lease up (a node that stops), so another node need not wait for it to expire. */
export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.deleteFrom('node_leases').where('name', '=', name).where('holder', '=', holder).execute();
}
