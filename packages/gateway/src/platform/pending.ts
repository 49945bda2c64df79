/** Work still under way after a response (settlements, ledger flushes): shutdown waits for it. */
export class Pending {
  private readonly set = new Set<Promise<unknown>>();

  /** Tracks `p` until it settles; returns it unchanged. */
  readonly track = <T>(p: Promise<T>): Promise<T> => {
    this.set.add(p);
    void p.finally(() => this.set.delete(p)).catch(() => {});
    return p;
  };

  /** Resolves when everything tracked (including what is tracked meanwhile) has settled. */
  async drain(): Promise<void> {
    while (this.set.size) await Promise.allSettled([...this.set]);
  }

  get size(): number {
    return this.set.size;
  }
}
