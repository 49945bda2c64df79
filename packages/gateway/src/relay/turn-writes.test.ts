/**
 * The rows of one turn written together (relay/turn-writes.ts): one statement per turn within the row
 * and size bounds, the first row of an id kept, a failed statement written again row by row so that
 * only the bad row fails, and what is pending written when the node closes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Core } from '../core.ts';
import { TurnWrites } from './turn-writes.ts';

function fakeCore(): { core: Core; close: () => Promise<void> } {
  const hooks: Array<() => Promise<void> | void> = [];
  const core = { onClose: (f: () => Promise<void> | void) => hooks.push(f) } as unknown as Core;
  return { core, close: async () => void (await Promise.all(hooks.map((f) => f()))) };
}

test('the rows of one turn go in one statement, the first row of an id kept, bounded by rows and size', async () => {
  const { core } = fakeCore();
  const statements: Array<Array<[string, string]>> = [];
  const w = new TurnWrites<string>(core, {
    insert: async (rows) => void statements.push(rows),
    maxRows: 3,
    size: (r) => r.length,
    maxSize: 10,
  });
  await Promise.all([w.add('a', 'x'), w.add('b', 'y'), w.add('a', 'z')]);
  assert.deepEqual(statements, [
    [
      ['a', 'x'],
      ['b', 'y'],
    ],
  ]);
  statements.length = 0;
  // Four small rows: three, then one. A row over the size bound goes alone; rows up to it share.
  await Promise.all(['1', '2', '3', '4'].map((id) => w.add(id, 'r')));
  await Promise.all([w.add('big', 'x'.repeat(11)), w.add('s1', 'xxxxx'), w.add('s2', 'xxxxx'), w.add('s3', 'x')]);
  assert.deepEqual(
    statements.map((s) => s.map(([id]) => id)),
    [['1', '2', '3'], ['4'], ['big'], ['s1', 's2'], ['s3']],
  );
});

test('a failed statement is written again row by row: only the bad row fails', async () => {
  const { core } = fakeCore();
  const statements: string[][] = [];
  const w = new TurnWrites<string>(core, {
    insert: async (rows) => {
      statements.push(rows.map(([id]) => id));
      if (rows.some(([, r]) => r === 'bad')) throw new Error('bad row');
    },
    maxRows: 10,
  });
  const results = await Promise.allSettled([w.add('a', 'ok'), w.add('b', 'bad'), w.add('c', 'ok')]);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.equal((results[1] as PromiseRejectedResult).reason.message, 'bad row');
  assert.deepEqual(statements, [['a', 'b', 'c'], ['a'], ['b'], ['c']]);
});

test('writes run one at a time, in order, and a closing node writes what is pending', async () => {
  const { core, close } = fakeCore();
  const order: string[] = [];
  let open = 0;
  const w = new TurnWrites<number>(core, {
    insert: async (rows) => {
      open++;
      assert.equal(open, 1, 'one write at a time');
      await new Promise((r) => setTimeout(r, 5));
      order.push(...rows.map(([id]) => id));
      open--;
    },
    maxRows: 1,
  });
  const first = Promise.all([w.add('a', 1), w.add('b', 2)]);
  await new Promise((r) => setImmediate(r));
  const later = w.add('c', 3);
  let written = false;
  void later.then(() => (written = true));
  await close();
  assert.ok(written, 'the pending row is written before the close ends');
  await first;
  assert.deepEqual(order, ['a', 'b', 'c']);
});
