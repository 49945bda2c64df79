/**
 * The cost phase's order of measurements (each proxy's flavor next to the forwarder's of the same caller
 * format, the order reversed every other round) and its ratio, the median of the per-round ratios.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { costBaseTarget, costFlavors, costSchedule, pairedRatio, splitStreamCost, type CostStep } from './cost.ts';
import { FLAVORS, parseStreamsArgs, renderStreams } from './streams.ts';

const s = (target: string, flavor: string): CostStep => ({ target, flavor });

test('costBaseTarget: each proxy is held to the forwarder of its own shape', () => {
  assert.equal(costBaseTarget('gatehouse'), 'forwarder');
  assert.equal(costBaseTarget('gatehouse-allowance'), 'forwarder');
  assert.equal(costBaseTarget('gatehouse-workers'), 'forwarder-workers');
  assert.equal(costBaseTarget('forwarder'), null);
  assert.equal(costBaseTarget('forwarder-workers'), null);
  assert.equal(costBaseTarget('direct'), null);
});

test('costFlavors: every flavor for the gateway, the relayed caller formats for the forwarder', () => {
  assert.deepEqual(
    costFlavors('gatehouse', FLAVORS).map((x) => x.name),
    FLAVORS.map((x) => x.name),
  );
  assert.deepEqual(
    costFlavors('forwarder', FLAVORS).map((x) => x.name),
    ['openai', 'anthropic', 'responses'],
  );
});

test('costSchedule: per caller format the forwarder, then the gateway flavors of that format; reversed every other round', () => {
  const rounds = costSchedule(['forwarder', 'gatehouse'], FLAVORS, 3);
  const first = [
    s('forwarder', 'openai'),
    s('gatehouse', 'openai'),
    s('gatehouse', 'openai from anthropic'),
    s('forwarder', 'anthropic'),
    s('gatehouse', 'anthropic'),
    s('gatehouse', 'anthropic from openai'),
    s('forwarder', 'responses'),
    s('gatehouse', 'responses'),
    s('gatehouse', 'responses from openai'),
  ];
  const second = [
    s('gatehouse', 'openai from anthropic'),
    s('gatehouse', 'openai'),
    s('forwarder', 'openai'),
    s('gatehouse', 'anthropic from openai'),
    s('gatehouse', 'anthropic'),
    s('forwarder', 'anthropic'),
    s('gatehouse', 'responses from openai'),
    s('gatehouse', 'responses'),
    s('forwarder', 'responses'),
  ];
  assert.deepEqual(rounds, [first, second, first]);
  assert.equal(costSchedule(['forwarder', 'gatehouse'], FLAVORS, 5).length, 5);
  assert.equal(costSchedule(['forwarder', 'gatehouse'], FLAVORS, 1).length, 1);
});

test('costSchedule: every gateway flavor is measured next to the forwarder flavor it is held to, in every round', () => {
  const targets = ['forwarder', 'gatehouse', 'gatehouse-allowance'];
  for (const round of costSchedule(targets, FLAVORS, 5)) {
    // Every target and flavor exactly once per round.
    const keys = round.map((x) => `${x.target}/${x.flavor}`);
    assert.equal(new Set(keys).size, keys.length);
    assert.equal(keys.length, 3 + 6 + 6);
    // The steps between two forwarder steps (a group) all share the forwarder's caller format.
    const fwd = round.map((x, i) => (x.target === 'forwarder' ? i : -1)).filter((i) => i >= 0);
    assert.equal(fwd.length, 3);
    const groupOf = (i: number) => Math.floor(i / 5);
    for (const [i, x] of round.entries()) {
      const base = FLAVORS.find((fl) => fl.name === x.flavor)!.base;
      const head = round[fwd.find((j) => groupOf(j) === groupOf(i))!];
      assert.equal(head.flavor, base, `${x.target}/${x.flavor} measured next to forwarder/${head.flavor}`);
    }
  }
});

test('costSchedule: workers are held to the forwarder with workers; a proxy without its forwarder still runs', () => {
  const [r0] = costSchedule(['forwarder-workers', 'gatehouse-workers'], FLAVORS, 1);
  assert.deepEqual(r0.slice(0, 3), [
    s('forwarder-workers', 'openai'),
    s('gatehouse-workers', 'openai'),
    s('gatehouse-workers', 'openai from anthropic'),
  ]);
  const [only] = costSchedule(['gatehouse'], FLAVORS, 1);
  assert.deepEqual(
    only.map((x) => x.flavor),
    ['openai', 'openai from anthropic', 'anthropic', 'anthropic from openai', 'responses', 'responses from openai'],
  );
  assert.deepEqual(costSchedule(['forwarder'], FLAVORS, 2)[1], [
    s('forwarder', 'openai'),
    s('forwarder', 'anthropic'),
    s('forwarder', 'responses'),
  ]);
});

test('pairedRatio: the median of the per-round ratios, not the ratio of the medians', () => {
  const r = pairedRatio([1.2, 1.5, 1.3, 1.4, 1.1], [1.0, 1.5, 1.0, 1.0, 1.0]);
  assert.deepEqual(
    r.rounds.map((x) => Number(x!.toFixed(6))),
    [1.2, 1, 1.3, 1.4, 1.1],
  );
  assert.equal(Number(r.median!.toFixed(6)), 1.2); // the ratio of the medians would be 1.3
  assert.equal(r.min, 1);
  assert.equal(Number(r.max!.toFixed(6)), 1.4);
});

test('pairedRatio: round k pairs with round k', () => {
  const r = pairedRatio([4, 3, 2], [1, 3, 1]);
  assert.deepEqual(r.rounds, [4, 1, 2]);
  assert.equal(r.median, 2);
  assert.deepEqual([r.min, r.max], [1, 4]);
  assert.equal(pairedRatio([2, 6], [1, 2]).median, 2.5);
});

test('pairedRatio: a round missing on either side, or not positive, pairs with nothing', () => {
  const r = pairedRatio([2, null, 3, 4, 5], [1, 1, 0, null, -1]);
  assert.deepEqual(r.rounds, [2, null, null, null, null]);
  assert.deepEqual([r.median, r.min, r.max], [2, 2, 2]);
  assert.deepEqual(pairedRatio([null], [1]), { median: null, min: null, max: null, rounds: [null] });
  assert.deepEqual(pairedRatio([2, 3], [1]).rounds, [2, null]);
});

test('renderStreams: the cost table shows the median of the per-round ratios and their range', () => {
  const fwd = [1.0, 1.5, 1.0, 1.0, 1.0];
  const gh = [1.2, 1.5, 1.3, 1.4, 1.1];
  const calls = [100, 100, 100, 100, 100];
  const cost = (flavor: string, rounds: number[], base?: number[]) => ({
    flavor,
    usPerEvent: rounds.slice().sort()[2],
    rounds,
    usPerCall: 100,
    callRounds: calls,
    errors: [],
    ...(base && {
      vsBase: { target: 'forwarder', flavor, perEvent: pairedRatio(rounds, base), perCall: pairedRatio(calls, calls) },
    }),
  });
  const md = renderStreams({
    startedAt: 'now',
    durationS: 1,
    loadAvg: 1,
    opts: parseStreamsArgs([]),
    targets: [
      { name: 'forwarder', status: 'ok', errors: [], cost: [cost('openai', fwd)] },
      { name: 'gatehouse', status: 'ok', errors: [], cost: [cost('openai', gh, fwd)] },
    ],
  });
  assert.match(
    md,
    /\| CPU per event \(µs\), 50 streams, 5 ms gaps; median of 5 rounds; × the forwarder: median of the per-round ratios \(range\) \| forwarder \| gatehouse \|/,
  );
  // The ratio of the medians would be 1.30×.
  assert.match(md, /\| openai \| 1\.00 \| 1\.30 \(1\.20×, 1\.00–1\.40\) \|/);
  assert.match(md, /\| openai \| 100 \| 100 \(1\.00×, 1\.00–1\.00\) \|/);
  assert.match(md, /\| anthropic \| – \| – \|/);
});

test('splitStreamCost: the CPU per event from the difference of two runs, the rest of the shorter run is the call', () => {
  // 200 µs per call and 20 µs per event: 32 events cost 840, 96 cost 2,120.
  const r = splitStreamCost({ cpuPerStreamUs: 840, events: 32 }, { cpuPerStreamUs: 2120, events: 96 })!;
  assert.equal(r.perEventUs, 20);
  assert.equal(r.perCallUs, 200);
  assert.equal(splitStreamCost({ cpuPerStreamUs: 840, events: 32 }, { cpuPerStreamUs: 900, events: 32 }), null);
});
