/** The log writer's positional values follow its column list. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COLUMNS, logValues } from './writer.ts';
import type { NewLog } from './writer.ts';

test('logValues reads every column, in the order of COLUMNS, with null for what a row leaves out (0 for the cache figures and the upstream cost)', () => {
  const row = Object.fromEntries(COLUMNS.map((c, i) => [c, `v${i}`])) as unknown as NewLog;
  assert.deepEqual(
    logValues(row),
    COLUMNS.map((_, i) => `v${i}`),
  );
  const sparse = { created_at: 1, type: 'consume' } as NewLog;
  const zero = new Set(['cache_write_tokens', 'cache_write_quota', 'cache_saving_quota', 'upstream_cost']);
  assert.deepEqual(logValues(sparse), [1, 'consume', ...COLUMNS.slice(2).map((c) => (zero.has(c) ? 0 : null))]);
});
