/**
 * Revision bumps after admin changes. Normally each change bumps its cache name at once; while a batch
 * runs (the configuration file at start) names are collected and bumped once at the end.
 */
import type { Core } from '../core.ts';
import type { DbOrTx } from '../store/db.ts';

export type RevisionName = 'keys' | 'channels' | 'prices' | 'options';

export class Changes {
  private batch: Set<RevisionName> | null = null;

  constructor(private readonly core: Core) {}

  /** After a committed change (no transaction). */
  async changed(name: RevisionName): Promise<void> {
    if (this.batch) this.batch.add(name);
    else await this.core.cache.bump(name);
  }

  /** Inside a transaction: bump with it; call `committed` after the commit. */
  async inTx(name: RevisionName, tx: DbOrTx): Promise<void> {
    if (!this.batch) await this.core.cache.bump(name, tx);
  }

  async committed(name: RevisionName): Promise<void> {
    if (this.batch) this.batch.add(name);
    else await this.core.cache.afterCommit(name);
  }

  async batched<T>(fn: () => Promise<T>): Promise<T> {
    const outer = this.batch;
    const mine = new Set<RevisionName>();
    this.batch = mine;
    try {
      return await fn();
    } finally {
      this.batch = outer;
      for (const n of mine) {
        if (outer) outer.add(n);
        else await this.core.cache.bump(n);
      }
    }
  }
}
