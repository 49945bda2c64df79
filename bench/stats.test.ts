import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Recorder,
  checkTargets,
  climbLadder,
  ladderOpenEnded,
  judgeRateProbe,
  judgeStreamStep,
  median,
  percentile,
  ratio,
  searchRate,
  summarize,
  type RateProbe,
  type TargetNumbers,
} from './stats.ts';

test('percentile: nearest rank on sorted samples', () => {
  const a = Array.from({ length: 100 }, (_, i) => i + 1); // 1..100
  assert.equal(percentile(a, 50), 50);
  assert.equal(percentile(a, 99), 99);
  assert.equal(percentile(a, 99.9), 100);
  assert.equal(percentile(a, 0), 1);
  assert.equal(percentile(a, 100), 100);
  assert.equal(percentile([7], 99), 7);
  assert.equal(percentile([1, 2, 3, 4], 50), 2);
  assert.equal(percentile([1, 2, 3, 4], 51), 3);
  assert.ok(Number.isNaN(percentile([], 50)));
});

test('summarize sorts its input and does not mutate it', () => {
  const input = [5, 1, 4, 2, 3];
  const s = summarize(input);
  assert.deepEqual(input, [5, 1, 4, 2, 3]);
  assert.equal(s.n, 5);
  assert.equal(s.min, 1);
  assert.equal(s.max, 5);
  assert.equal(s.p50, 3);
  assert.equal(s.p99, 5);
  assert.equal(s.mean, 3);
  const empty = summarize([]);
  assert.equal(empty.n, 0);
  assert.ok(Number.isNaN(empty.p50));
});

test('Recorder grows past its initial buffer and keeps every sample', () => {
  const r = new Recorder();
  for (let i = 3000; i >= 1; i--) r.record(i);
  assert.equal(r.count, 3000);
  const s = r.summary();
  assert.equal(s.min, 1);
  assert.equal(s.max, 3000);
  assert.equal(s.p50, 1500);
  assert.equal(s.p99, 2970);
});

/** A fake target that sustains anything up to `capacity` req/s. */
function fakeProbe(capacity: number, log: number[]) {
  return async (rate: number): Promise<RateProbe> => {
    log.push(rate);
    return { rate, ok: rate <= capacity };
  };
}

test('searchRate brackets upwards then bisects to the precision', async () => {
  const tried: number[] = [];
  const r = await searchRate({ start: 100, factor: 2, precision: 0.05, maxProbes: 30 }, fakeProbe(1000, tried));
  assert.deepEqual(tried.slice(0, 5), [100, 200, 400, 800, 1600]);
  assert.ok(r.best <= 1000 && r.best >= 1000 / 1.05, `best ${r.best}`);
  assert.ok(r.failedAt !== null && r.failedAt > 1000 && r.failedAt / r.best <= 1.05 + 1e-9);
  assert.equal(r.probes.length, tried.length);
});

test('searchRate shrinks when the first probe fails', async () => {
  const tried: number[] = [];
  const r = await searchRate({ start: 5000, factor: 2, precision: 0.1, maxProbes: 30 }, fakeProbe(700, tried));
  assert.deepEqual(tried.slice(0, 4), [5000, 2500, 1250, 625]);
  assert.ok(r.best <= 700 && r.best >= 700 / 1.1, `best ${r.best}`);
});

test('searchRate stops at maxProbes and reports 0 when nothing passes', async () => {
  const tried: number[] = [];
  const r = await searchRate({ start: 100, factor: 2, maxProbes: 4, min: 10 }, fakeProbe(1, tried));
  assert.equal(tried.length, 4);
  assert.equal(r.best, 0);
  assert.equal(r.failedAt, 13);
});

test('searchRate respects max and reports no failure when everything passes', async () => {
  const tried: number[] = [];
  const r = await searchRate({ start: 100, factor: 10, max: 5000, maxProbes: 10 }, fakeProbe(1e9, tried));
  assert.deepEqual(tried, [100, 1000, 5000]);
  assert.equal(r.best, 5000);
  assert.equal(r.failedAt, null);
});

test('searchRate retries a failure before believing it', async () => {
  let calls = 0;
  // Fails the first time any rate is tried, passes the second time up to 1000.
  const seen = new Set<number>();
  const r = await searchRate({ start: 400, factor: 2, precision: 0.2, maxProbes: 20, retries: 1 }, async (rate) => {
    calls++;
    const first = !seen.has(rate);
    seen.add(rate);
    return { rate, ok: !first && rate <= 1000 };
  });
  assert.ok(r.best >= 800 && r.best <= 1000, `best ${r.best}`);
  assert.ok(calls > seen.size);
});

test('judgeRateProbe: errors, p99 and delivered rate', () => {
  const bound = { p99Ms: 1000, maxErrorRatio: 0.001 };
  assert.equal(judgeRateProbe({ offered: 1000, achieved: 990, p99: 30, errors: 0, total: 5000 }, bound).ok, true);
  assert.equal(judgeRateProbe({ offered: 1000, achieved: 990, p99: 30, errors: 4, total: 5000 }, bound).ok, true);
  assert.match(judgeRateProbe({ offered: 1000, achieved: 990, p99: 30, errors: 5, total: 5000 }, bound).reason!, /errors 0\.10 %/);
  assert.match(judgeRateProbe({ offered: 1000, achieved: 990, p99: 1000, errors: 0, total: 5000 }, bound).reason!, /p99/);
  assert.match(judgeRateProbe({ offered: 1000, achieved: 900, p99: 30, errors: 0, total: 5000 }, bound).reason!, /achieved 900 of 1000/);
  assert.equal(judgeRateProbe({ offered: 1000, achieved: 0, p99: NaN, errors: 0, total: 0 }, bound).ok, false);
  // NaN p99 (nothing succeeded) must not pass; errors decide first when there are any.
  assert.equal(judgeRateProbe({ offered: 10, achieved: 10, p99: NaN, errors: 0, total: 10 }, bound).ok, false);
});

test('judgeStreamStep and climbLadder stop at the first step whose gap grows by more than the tolerance', async () => {
  assert.equal(judgeStreamStep({ streams: 8, errors: 0, incomplete: 0, gapP99: 24 }, 20, 0.2).ok, true);
  assert.equal(judgeStreamStep({ streams: 8, errors: 0, incomplete: 0, gapP99: 24.1 }, 20, 0.2).ok, false);
  assert.equal(judgeStreamStep({ streams: 8, errors: 1, incomplete: 0, gapP99: 20 }, 20, 0.2).ok, false);
  assert.equal(judgeStreamStep({ streams: 8, errors: 0, incomplete: 1, gapP99: 20 }, 20, 0.2).ok, false);
  assert.equal(judgeStreamStep({ streams: 8, errors: 0, incomplete: 0, gapP99: NaN }, 20, 0.2).ok, false);
  const gapAt: Record<number, number> = { 8: 20, 16: 21, 32: 23, 64: 30, 128: 20 };
  const r = await climbLadder([8, 16, 32, 64, 128], async (n) =>
    judgeStreamStep({ streams: n, errors: 0, incomplete: 0, gapP99: gapAt[n] }, 20, 0.2),
  );
  assert.equal(r.held, 32);
  assert.deepEqual(
    r.steps.map((s) => s.streams),
    [8, 16, 32, 64],
  );
  const none = await climbLadder([8], async (n) => ({ streams: n, ok: false }));
  assert.equal(none.held, 0);
  // With a retry, a step that fails once and then holds does not end the climb.
  const failedOnce = new Set<number>();
  const flaky = await climbLadder(
    [8, 16, 32],
    async (n) => {
      if (n === 16 && !failedOnce.has(n)) {
        failedOnce.add(n);
        return { streams: n, ok: false };
      }
      return { streams: n, ok: n <= 16 };
    },
    1,
  );
  assert.equal(flaky.held, 16);
  assert.deepEqual(
    flaky.steps.map((x) => [x.streams, x.ok]),
    [
      [8, true],
      [16, false],
      [16, true],
      [32, false],
      [32, false],
    ],
  );
});

const nums = (o: Partial<TargetNumbers>): TargetNumbers => ({ addedP50: null, addedP99: null, sustainedRps: null, addedTtfb: null, ...o });

test('checkTargets applies the performance targets', () => {
  const fwd = nums({ addedP50: 0.2, addedP99: 1.0, sustainedRps: 10000, addedTtfb: 0.5 });
  const pk = nums({ addedP50: 2.0, addedP99: 6.0, sustainedRps: 500, addedTtfb: 28 });
  const good = nums({ addedP50: 0.3, addedP99: 1.4, sustainedRps: 6000, addedTtfb: 1.4 });
  const checks = checkTargets(good, fwd, pk);
  assert.equal(checks.length, 7);
  assert.deepEqual(
    checks.map((c) => c.status),
    ['PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS'],
  );

  const bad = nums({ addedP50: 0.31, addedP99: 1.6, sustainedRps: 4999, addedTtfb: 1.6 });
  const badChecks = checkTargets(bad, fwd, pk);
  assert.equal(badChecks[0].note, '4999 < 6000');
  assert.equal(badChecks[3].note, '1.60 > 1.50');
  assert.equal(checks[0].note, '6000 >= 6000');
  const b = Object.fromEntries(badChecks.map((c) => [c.name, c.status]));
  assert.equal(b['sustained rps >= 60% of forwarder'], 'MISS'); // 4999 < 6000
  assert.equal(b['sustained rps >= 10x portkey'], 'MISS'); // 4999 < 5000
  assert.equal(b['added p50 (c=1) <= 1.5x forwarder'], 'MISS'); // 0.31 > 0.3
  assert.equal(b['added p99 (c=1) <= 1.5x forwarder'], 'MISS'); // 1.6 > 1.5
  assert.equal(b['added p50 (c=1) <= 1/4 portkey'], 'PASS'); // 0.31 <= 0.5
  assert.equal(b['added p99 (c=1) <= 1/4 portkey'], 'MISS'); // 1.6 > 1.5
  assert.equal(b['stream added TTFB <= forwarder + 1 ms'], 'MISS'); // 1.6 > 1.5
});

test('checkTargets: missing subject or peers give n/a, and added latency near zero is floored', () => {
  const fwd = nums({ addedP50: -0.05, addedP99: 0.001, sustainedRps: 10000, addedTtfb: 0.5 });
  assert.ok(checkTargets(null, fwd, null).every((c) => c.status === 'n/a'));
  const s = nums({ addedP50: 0.012, addedP99: 0.014, sustainedRps: 7000, addedTtfb: null });
  const by = Object.fromEntries(checkTargets(s, fwd, null).map((c) => [c.name, c]));
  // Both floored to 0.01 ms: 0.012 > 0.015? no -> PASS; 0.014 <= 0.015 -> PASS.
  assert.equal(by['added p50 (c=1) <= 1.5x forwarder'].status, 'PASS');
  assert.equal(by['added p99 (c=1) <= 1.5x forwarder'].status, 'PASS');
  assert.equal(by['sustained rps >= 10x portkey'].status, 'n/a');
  assert.equal(by['stream added TTFB <= forwarder + 1 ms'].status, 'n/a');
  assert.equal(by['sustained rps >= 60% of forwarder'].status, 'PASS');
});

test('ratio', () => {
  assert.equal(ratio(3, 2), 1.5);
  assert.equal(ratio(1, 0), null);
  assert.equal(ratio(null, 2), null);
  assert.equal(ratio(2, undefined), null);
});

test('median: middle value, mean of the middle two, NaN for none', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
});

test('checkTargets: concurrent streams held against 0.9x the forwarder, only when the ladder ran', () => {
  const fwd = { addedP50: 0.2, addedP99: 1.0, sustainedRps: 10000, addedTtfb: 0.5, streamsHeld: 2048 };
  const base = { addedP50: 0.3, addedP99: 1.4, sustainedRps: 6000, addedTtfb: 1.4 };
  const held = (n: number) => checkTargets({ ...base, streamsHeld: n }, fwd, null).find((c) => c.name.startsWith('concurrent streams'))!;
  assert.equal(held(1844).status, 'PASS'); // the bound is 0.9 x 2048 = 1843.2
  assert.equal(held(1792).status, 'MISS');
  assert.equal(held(1792).note, '1792 < 1843');
  assert.equal(
    checkTargets(base, { ...fwd, streamsHeld: undefined }, null).some((c) => c.name.startsWith('concurrent streams')),
    false,
    'no ladder, no check',
  );
});

test('climbLadder with a resolution searches by halves between the last step held and the first failed', async () => {
  // A proxy that holds up to 850 streams: the steps alone say 768; the search finds it within 1/32 of 768.
  const tried: number[] = [];
  const r = await climbLadder(
    [256, 512, 768, 1024],
    async (n) => {
      tried.push(n);
      return { streams: n, ok: n <= 850 };
    },
    0,
    1 / 32,
  );
  assert.ok(r.held <= 850 && r.held >= 850 - 768 / 32, `held ${r.held}`);
  assert.deepEqual(tried.slice(0, 4), [256, 512, 768, 1024]);
  assert.ok(tried.slice(4).every((n) => n > 768 && n < 1024));
  assert.equal(ladderOpenEnded(r.held, r.steps), false);
  // Without a resolution, the steps are the answer.
  assert.equal((await climbLadder([256, 512, 768, 1024], async (n) => ({ streams: n, ok: n <= 850 }))).held, 768);
  // A climb that never failed is open-ended, and nothing is searched.
  const top = await climbLadder([8, 16], async (n) => ({ streams: n, ok: true }), 0, 1 / 32);
  assert.equal(top.held, 16);
  assert.equal(top.steps.length, 2);
  assert.equal(ladderOpenEnded(top.held, top.steps), true);
  // A failure below the first step: nothing held, nothing searched.
  const none = await climbLadder([8, 16], async (n) => ({ streams: n, ok: false }), 0, 1 / 32);
  assert.equal(none.held, 0);
  assert.equal(none.steps.length, 1);
});
