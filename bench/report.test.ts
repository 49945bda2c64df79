import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  RESULTS_END,
  RESULTS_START,
  numbersOf,
  renderReport,
  spliceResults,
  taskTable,
  type RunReport,
  type TargetResult,
} from './report.ts';
import { checkTargets } from './stats.ts';

const direct: TargetResult = {
  name: 'direct',
  status: 'ok',
  errors: [],
  latency: { n: 100, p50: 0.4, p99: 1.2, mean: 0.5, addedP50: 0, addedP99: 0 },
  maxRate: { concurrency: 50, rps: 8000, p50: 5, p99: 20, errors: 0, total: 1000 },
  stream: {
    n: 30,
    errors: 0,
    ttfbP50: 0.5,
    ttfbP99: 2,
    gapP50: 20.2,
    gapP99: 22,
    addedTtfbP50: 0,
    addedTtfbP99: 0,
    addedGapP50: 0,
    addedGapP99: 0,
  },
  streamsHeld: {
    held: 256,
    steps: [
      { streams: 64, ok: true },
      { streams: 256, ok: true },
    ],
  },
};
const fwd: TargetResult = {
  name: 'forwarder',
  status: 'ok',
  errors: [],
  latency: { n: 100, p50: 0.9, p99: 2.0, mean: 1, addedP50: 0.5, addedP99: 0.8 },
  sustained: { delayMs: 20, rps: 3000, failedAt: 3500, probes: [] },
  stream: {
    n: 30,
    errors: 0,
    ttfbP50: 1,
    ttfbP99: 3,
    gapP50: 20.2,
    gapP99: 23,
    addedTtfbP50: 0.5,
    addedTtfbP99: 1,
    addedGapP50: 0,
    addedGapP99: 1,
  },
  streamsHeld: {
    held: 64,
    steps: [
      { streams: 64, ok: true },
      { streams: 256, ok: false, reason: 'slow' },
    ],
  },
  rss: { idleMb: 80, loadMb: 130 },
};
const gh: TargetResult = { name: 'gatehouse', status: 'unavailable', reason: 'probe: HTTP 404', errors: [] };

test('report: table marks unavailable targets and open-ended ladders, notes give the reason', () => {
  const r: RunReport = {
    startedAt: '2026-01-01T00:00:00.000Z',
    mode: 'quick',
    durationS: 42,
    machine: { nproc: 2, cpu: 'Test CPU', node: '20.0.0', kernel: '6.0', pinned: true, loadAvg: 0.1 },
    plan: {},
    targets: [direct, fwd, gh],
    subjects: [
      {
        subject: 'gatehouse',
        ratios: { 'sustained rps gatehouse/forwarder': null },
        checks: checkTargets(numbersOf(gh), numbersOf(fwd), null),
      },
    ],
    tasks: { status: 'not available', reason: 'later', submitThroughput: null, pollerPerTask: null, pollerBatch: null, hookCallUs: null },
  };
  assert.doesNotMatch(renderReport(r), /forwarder against Portkey/, 'no section without Portkey');
  r.forwarderVsPortkey = { 'sustained rps forwarder/portkey': 9.5 };
  const md = renderReport(r);
  assert.match(md, /\| sustained rps forwarder\/portkey \| 9\.50 \|/);
  assert.match(md, /\| \| direct \| forwarder \| gatehouse \|/);
  assert.match(md, /\*\*added p50 \(µs\)\*\* \| – \| 500 \| unavailable \|/);
  assert.match(md, /concurrent streams held \| ≥ 256 \| 64 \| unavailable \|/);
  assert.match(md, /sustained req\/s.* \| – \| 3,000 \| unavailable \|/);
  assert.match(md, /- gatehouse: unavailable: probe: HTTP 404/);
  assert.match(md, /RSS idle \/ under load \(MB\) \| – \| 80 \/ 130 \|/);
  assert.equal(numbersOf(gh), null);
  fwd.streamsHeld = { held: 0, steps: [{ streams: 64, ok: false }] };
  assert.match(renderReport(r), /concurrent streams held \| ≥ 256 \| < 64 \|/);
  assert.deepEqual(numbersOf(fwd), { addedP50: 0.5, addedP99: 0.8, sustainedRps: 3000, addedTtfb: 0.5, streamsHeld: 0 });
});

test('spliceResults replaces only the marked section', () => {
  const doc = `# T\n\nintro\n${RESULTS_START}\nold table\n${RESULTS_END}\n\nafter\n`;
  const out = spliceResults(doc, '| new |\n');
  assert.equal(out, `# T\n\nintro\n${RESULTS_START}\n| new |\n${RESULTS_END}\n\nafter\n`);
  assert.equal(spliceResults(out, 'again'), `# T\n\nintro\n${RESULTS_START}\nagain\n${RESULTS_END}\n\nafter\n`);
  assert.throws(() => spliceResults('no markers', 'x'), /no <!-- results:start -->/);
});

test('the task host table shows every measured number', () => {
  const t = taskTable({
    status: 'ok',
    submitThroughput: { rps: 1234, p50Ms: 20.5, p99Ms: 80, requests: 1000, concurrency: 32 },
    pollerPerTask: { tasksPerSecond: 800, inFlight: 10_000, seconds: 12.5 },
    pollerBatch: { tasksPerSecond: 950, inFlight: 10_000, seconds: 10.5 },
    hookCallUs: { p50: 96, p99: 210, calls: 2000 },
  });
  assert.match(t, /1,234 tasks\/s, p50 20.5 ms, p99 80 ms/);
  assert.match(t, /per_task plugin, 10,000 tasks due \| 800 tasks\/s/);
  assert.match(t, /batch plugin, 10,000 tasks due \| 950 tasks\/s/);
  assert.match(t, /p50 96 µs, p99 210 µs/);
});
