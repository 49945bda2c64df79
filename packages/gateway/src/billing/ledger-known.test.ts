/**
 * What a node knows of balances (ledger-known.ts): read by a reserve, kept by the movements it
 * commits, less the reserves in flight; never known for payers whose reserve takes more than the balance.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { KnownBalances } from './ledger-known.ts';
import type { Payer } from './budgets.ts';

const user: Payer = { userId: 1, keyId: 5, unlimitedKey: true };
const capped: Payer = { userId: 2, keyId: 6, unlimitedKey: false };

test('unknown until a reserve read it; then kept by movements, less the reserves in flight', () => {
  const k = new KnownBalances(true);
  assert.equal(k.covers(user, 1), false);
  assert.equal(k.reserving(user, 100), true, 'an unknown payer is read');
  k.reserved(user, 100, true, { user: 1000, key: null });
  assert.equal(k.covers(user, 1000), true, 'the balance after the reserve');
  assert.equal(k.covers(user, 1001), false);
  assert.equal(k.reserving(user, 400), false, 'read a moment ago');
  assert.equal(k.covers(user, 601), false, 'a reserve in flight counts');
  assert.equal(k.covers(user, 600), true);
  k.reserved(user, 400, true, null);
  assert.equal(k.covers(user, 600), true);
  assert.equal(k.covers(user, 601), false);
  k.moved(user, 400 - 250); // settled at 250
  assert.equal(k.covers(user, 750), true);
  assert.equal(k.covers(user, 751), false);
  k.reserving(user, 100);
  k.reserved(user, 100, false, null);
  assert.equal(k.covers(user, 1), false, 'a refused reserve: not known until read again');
  assert.equal(k.reserving(user, 100), true);
  k.reserved(user, 100, true, { user: 50, key: null });
  k.forget(1);
  assert.equal(k.covers(user, 1), false, 'a top-up: read again');
});

test("a capped key's remainder is known too, and bounds what is covered", () => {
  const k = new KnownBalances(true);
  k.reserving(capped, 10);
  k.reserved(capped, 10, true, { user: 10_000, key: 300 });
  assert.equal(k.covers(capped, 300), true);
  assert.equal(k.covers(capped, 301), false);
});

test('teams, plans and budgets are never known', () => {
  const k = new KnownBalances(true);
  for (const p of [
    { ...user, teamId: 3 },
    { ...user, budgets: [] },
    { ...user, plan: 'recorded' as const },
  ]) {
    assert.equal(k.reserving(p, 10), false);
    k.reserved(p, 10, true, { user: 1_000_000, key: null });
    assert.equal(k.covers(p, 1), false);
  }
});

test('nothing is kept where movements may resolve out of their commit order (PostgreSQL, MySQL)', () => {
  const k = new KnownBalances(false);
  assert.equal(k.reserving(user, 10), false);
  k.reserved(user, 10, true, { user: 1_000_000, key: null });
  assert.equal(k.covers(user, 1), false);
});
