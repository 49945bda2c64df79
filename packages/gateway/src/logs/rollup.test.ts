/** Roll-up arithmetic: buckets, percentiles from histograms, what each log row adds to which dimension (the prompt-cache sums too). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUCKETS, CACHE_COLUMNS, LATENCY_BOUNDS, bucketOf, percentile, rollup } from './rollup.ts';

test('bucketOf: lower bound inclusive, upper exclusive, last bucket open', () => {
  assert.equal(bucketOf(0), 0);
  assert.equal(bucketOf(9), 0);
  assert.equal(bucketOf(10), 1);
  assert.equal(bucketOf(999), 8);
  assert.equal(bucketOf(1000), 9);
  assert.equal(bucketOf(10_000_000), BUCKETS - 1);
});

test('percentile lies in the bucket of the true value and is null when empty', () => {
  assert.equal(percentile(new Array(BUCKETS).fill(0), 0.5), null);
  const values = [5, 30, 30, 120, 130, 700, 800, 900, 2000, 50_000];
  const h = new Array(BUCKETS).fill(0);
  for (const v of values) h[bucketOf(v)]++;
  const sorted = [...values].sort((a, b) => a - b);
  for (const p of [0.5, 0.95]) {
    const truth = sorted[Math.ceil(p * sorted.length) - 1];
    const got = percentile(h, p)!;
    const b = bucketOf(truth);
    const lo = b === 0 ? 0 : LATENCY_BOUNDS[b - 1];
    const hi = b < LATENCY_BOUNDS.length ? LATENCY_BOUNDS[b] : Infinity;
    assert.ok(got >= lo && got <= hi, `p${p * 100}: ${got} not in [${lo}, ${hi}] of ${truth}`);
  }
  // All in one bucket: interpolation inside it.
  const one = new Array(BUCKETS).fill(0);
  one[bucketOf(1200)] = 4;
  assert.equal(percentile(one, 0.5), 1250);
});

test('rollup: calls, errors, task reserve and settle, six hourly and two daily dimensions per row, hours and days', () => {
  const H = 3_600_000;
  const t0 = 1_700_000_000_000 - (1_700_000_000_000 % H);
  const rows = rollup([
    {
      created_at: t0 + 5,
      type: 'consume',
      user_id: 1,
      key_id: 2,
      model: 'm',
      channel_id: 3,
      prompt_tokens: 10,
      completion_tokens: 5,
      quota: 100,
      latency_ms: 120,
    },
    {
      created_at: t0 + 6,
      type: 'error',
      user_id: 1,
      key_id: 2,
      model: 'm',
      channel_id: 3,
      prompt_tokens: 0,
      completion_tokens: 0,
      quota: 0,
      latency_ms: 30,
    },
    { created_at: t0 + H, type: 'task', user_id: 1, key_id: 2, model: 'v', channel_id: 4, quota: 500, content: 'task reserve' },
    { created_at: t0 + H + 1, type: 'task', user_id: 1, key_id: 2, model: 'v', channel_id: 4, quota: 400, content: 'task settle' },
    { created_at: t0 + H + 2, type: 'task', user_id: 1, key_id: 2, model: 'v', channel_id: 4, quota: -500, content: 'task refund' },
    { created_at: t0 + 7, type: 'system', user_id: 1, quota: 9 },
  ]);
  const all0 = rows.find((r) => r.dim === 'all' && r.hour === t0)!;
  assert.deepEqual(all0.sums.slice(0, 6), [2, 1, 10, 5, 100, 150]);
  assert.equal(all0.sums[6 + bucketOf(120)], 1);
  assert.equal(all0.sums[6 + bucketOf(30)], 1);
  const all1 = rows.find((r) => r.dim === 'all' && r.hour === t0 + H)!;
  assert.deepEqual(all1.sums.slice(0, 6), [1, 0, 0, 0, 400, 0]);
  assert.equal(
    all1.sums.slice(6).reduce((a, b) => a + b, 0),
    0,
    'tasks have no latency',
  );
  assert.equal(rows.length, 14, 'two hours × six dimensions, and one day × two');
  const keyDay = rows.find((r) => r.dim === 'key_day')!;
  assert.equal(keyDay.hour, t0 - (t0 % 86_400_000), 'a daily row starts at the UTC day');
  assert.deepEqual([keyDay.user_id, keyDay.key_id, keyDay.model, keyDay.channel_id], [0, 2, '', 0]);
  assert.deepEqual(keyDay.sums.slice(0, 6), [3, 1, 10, 5, 500, 150], 'the day sums both hours');
  const userDay = rows.find((r) => r.dim === 'user_day')!;
  assert.deepEqual([userDay.user_id, userDay.key_id, userDay.sums[4]], [1, 0, 500]);
  const full = rows.find((r) => r.dim === '' && r.hour === t0)!;
  assert.deepEqual([full.user_id, full.key_id, full.model, full.channel_id], [1, 2, 'm', 3]);
  const byModel = rows.find((r) => r.dim === 'model' && r.hour === t0)!;
  assert.deepEqual([byModel.user_id, byModel.key_id, byModel.model, byModel.channel_id], [0, 0, 'm', 0]);
});

test('rollup: a model call adds its cache reads, writes, write spend and saving; other rows add none', () => {
  const H = 3_600_000;
  const t0 = 1_700_000_000_000 - (1_700_000_000_000 % H);
  const call = { type: 'consume', user_id: 1, key_id: 2, model: 'm', channel_id: 3, prompt_tokens: 4000, completion_tokens: 1 };
  const rows = rollup([
    { ...call, created_at: t0, cached_tokens: 2000, cache_write_tokens: 1000, cache_write_quota: 2550, cache_saving_quota: 2700 },
    { ...call, created_at: t0 + 1, cached_tokens: 500, cache_saving_quota: -10 },
    { ...call, created_at: t0 + 2, type: 'task', content: 'task settle', quota: 5, cached_tokens: 99, cache_write_quota: 99 },
  ]);
  // The cache sums follow the latency buckets, in the order of CACHE_COLUMNS (the upstream cost after them).
  const cacheSums = (dim: string) => rows.find((x) => x.dim === dim)!.sums.slice(6 + BUCKETS, 6 + BUCKETS + CACHE_COLUMNS.length);
  for (const dim of ['', 'all', 'user', 'key', 'model', 'channel', 'user_day', 'key_day'])
    assert.deepEqual(cacheSums(dim), [2500, 1000, 2550, 2690], dim);
});

test('rollup: a model call adds its upstream cost; other rows add none', () => {
  const t0 = 1_700_000_000_000 - (1_700_000_000_000 % 3_600_000);
  const call = { type: 'consume', user_id: 1, key_id: 2, model: 'm', channel_id: 3, created_at: t0 };
  const rows = rollup([
    { ...call, quota: 1000, upstream_cost: 640 },
    { ...call, quota: 500, upstream_cost: 320 },
    { ...call, type: 'task', content: 'task settle', quota: 5, upstream_cost: 99 },
  ]);
  for (const r of rows) assert.equal(r.sums[r.sums.length - 1], 960, r.dim);
});
