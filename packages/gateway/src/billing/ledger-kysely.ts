/**
 * The ledger's driver over a Kysely transaction (billing/ledger.ts): runs a movement of
 * ledger-statements.ts statement by statement as precompiled queries — one transaction per movement
 * on PostgreSQL and MySQL, and on SQLite when a Kysely transaction holds the connection. Each
 * statement's text is made once per dialect and kept.
 */
import { CompiledQuery } from 'kysely';
import type { Dialect, Tx } from '../store/db.ts';
import { sqlFor, type Ops, type Q } from './ledger-statements.ts';

export class KyselyDriver {
  private readonly compiled = new Map<Q, string>();

  constructor(private readonly dialect: Dialect) {}

  async drive<T>(tx: Tx, ops: Ops<T>): Promise<T> {
    let r = ops.next();
    while (!r.done) {
      const { q, params } = r.value;
      let text = this.compiled.get(q);
      if (text === undefined) {
        text = sqlFor(this.dialect, q);
        this.compiled.set(q, text);
      }
      const out = await tx.executeQuery(CompiledQuery.raw(text, params));
      r = ops.next({ changes: Number(out.numAffectedRows ?? 0n), rows: out.rows as Record<string, unknown>[] });
    }
    return r.value;
  }
}
