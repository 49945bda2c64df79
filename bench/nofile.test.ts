/**
 * bench/nofile.ts: the open files each process of the stream phases needs, and the shape of proxy
 * chosen under a limit that can or cannot be raised; the `--workers` option of bench:streams and the
 * report's comparison of each proxy with the forwarder of its own shape.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseShape, isWorkersTarget, primaryNofile, proxyNofile, workersFor } from './nofile.ts';
import { parseStreamsArgs, renderStreams } from './streams.ts';

const never = () => false;
const always = () => true;
const ALL = ['direct', 'forwarder', 'gatehouse'];

test('proxyNofile: two sockets per stream of the process plus 1,024', () => {
  assert.equal(proxyNofile(10_000), 21_024);
  assert.equal(proxyNofile(10_000, 2), 11_024);
  assert.equal(proxyNofile(10_001, 2), 2 * 5001 + 1024, 'the odd stream counts whole');
  assert.equal(proxyNofile(9_000), 19_024);
  assert.equal(primaryNofile(10_000), 11_024, 'a primary may hold every connection before a worker takes it');
});

test('workersFor: the fewest processes, at least two, that fit under the limit', () => {
  assert.equal(workersFor(10_000, 20_000), 2);
  assert.equal(workersFor(100, 20_000), 2);
  // 9,488 streams fit one process under 20,000: 28,464 fit three, 28,465 need four.
  assert.equal(workersFor(28_464, 20_000), 3);
  assert.equal(workersFor(28_465, 20_000), 4);
  assert.equal(workersFor(1_000, 1_024), null);
  for (const [streams, limit] of [
    [10_000, 20_000],
    [50_000, 8_192],
    [20_000, 21_000],
  ]) {
    const w = workersFor(streams, limit)!;
    assert.ok(proxyNofile(streams, w) <= limit, `${streams} in ${w} under ${limit}`);
    if (w > 2) assert.ok(proxyNofile(streams, w - 1) > limit, `${w - 1} would have done for ${streams} under ${limit}`);
  }
});

test('chooseShape: 10,000 streams under 20,000 that cannot be raised run the workers targets, two processes', () => {
  const s = chooseShape({ targets: ALL, streams: 10_000, workers: null, limit: 20_000, canRaise: never });
  assert.deepEqual(s.targets, ['direct', 'forwarder-workers', 'gatehouse-workers']);
  assert.equal(s.workers, 2);
  assert.equal(s.nofile, undefined);
  assert.equal(s.notes.length, 1);
  assert.match(s.notes[0], /21,024 open files for 10,000 streams/);
  assert.match(s.notes[0], /limit here is 20,000 and cannot be raised/);
  assert.match(s.notes[0], /2 workers on one port, 11,024 open files each, up to 11,024 in their primary/);
});

test('chooseShape: a limit that can be raised, or suffices, keeps one process per proxy', () => {
  const raised = chooseShape({ targets: ALL, streams: 10_000, workers: null, limit: 20_000, canRaise: always });
  assert.deepEqual(raised.targets, ALL);
  assert.equal(raised.nofile, 21_024);
  assert.deepEqual(raised.notes, []);
  const enough = chooseShape({ targets: ALL, streams: 9_000, workers: null, limit: 20_000, canRaise: never });
  assert.deepEqual(enough.targets, ALL);
  assert.equal(enough.nofile, undefined);
  assert.deepEqual(chooseShape({ targets: ALL, streams: 10_000, workers: null, limit: null, canRaise: never }).targets, ALL);
});

test('chooseShape: --workers N asks for the workers targets; proxies without that form are left out, named', () => {
  const s = chooseShape({
    targets: ['direct', 'forwarder', 'forwarder-workers', 'gatehouse', 'gatehouse-allowance'],
    streams: 2_000,
    workers: 3,
    limit: 20_000,
    canRaise: never,
  });
  assert.deepEqual(s.targets, ['direct', 'forwarder-workers', 'gatehouse-workers']);
  assert.equal(s.workers, 3);
  assert.deepEqual(s.notes, ['left out (no form with workers): gatehouse-allowance']);
  // The workers targets named without --workers: two processes.
  const named = chooseShape({ targets: ['direct', 'forwarder-workers'], streams: 100, workers: null, limit: 20_000, canRaise: never });
  assert.deepEqual([named.targets, named.workers], [['direct', 'forwarder-workers'], 2]);
});

test('chooseShape: every process is checked; what cannot fit stops the run with the numbers', () => {
  // 19,000 streams: the generator and the upstream fit (19,064), two workers do not (20,024 each, and their primary).
  assert.throws(
    () => chooseShape({ targets: ALL, streams: 19_000, workers: 2, limit: 20_000, canRaise: never }),
    /19,000 streams need 20,024 open files per proxy process; the limit here is 20,000 and cannot be raised \(ulimit -n 20024\)/,
  );
  // Workers split the streams, not the primary's connections not yet handed over: 3 workers, 19,000 streams.
  assert.throws(
    () => chooseShape({ targets: ALL, streams: 19_000, workers: 3, limit: 20_000, canRaise: never }),
    /need 20,024 open files per proxy process/,
  );
  assert.equal(chooseShape({ targets: ALL, streams: 18_000, workers: 3, limit: 20_000, canRaise: never }).workers, 3);
  assert.throws(
    () => chooseShape({ targets: ALL, streams: 19_500, workers: null, limit: 20_000, canRaise: never }),
    /19,500 streams need 40,024 open files in one proxy process, or 20,524 in the primary of its workers; the limit here is 20,000/,
  );
  // Asked for a single-process proxy by name: checked too.
  assert.throws(
    () => chooseShape({ targets: ['direct', 'gatehouse-allowance'], streams: 10_000, workers: null, limit: 20_000, canRaise: never }),
    /need 21,024 open files per proxy process/,
  );
  // The direct path alone needs only the generator's and the upstream's.
  assert.deepEqual(chooseShape({ targets: ['direct'], streams: 10_000, workers: null, limit: 20_000, canRaise: never }).targets, [
    'direct',
  ]);
  assert.throws(
    () => chooseShape({ targets: ['direct'], streams: 20_000, workers: null, limit: 20_000, canRaise: always }),
    /20,064 open files in the load generator and in the upstream; the limit here is 20,000/,
  );
});

test('bench:streams takes --workers N (at least 2)', () => {
  assert.equal(parseStreamsArgs([]).workers, null);
  assert.equal(parseStreamsArgs(['--workers', '2']).workers, 2);
  assert.throws(() => parseStreamsArgs(['--workers', '1']), /--workers needs a number >= 2/);
  assert.equal(parseStreamsArgs([]).rounds, null, 'the cost phase keeps its own rounds unless asked');
  assert.equal(parseStreamsArgs(['--rounds', '9']).rounds, 9);
  assert.throws(() => parseStreamsArgs(['--rounds', '0']), /--rounds needs a number >= 1/);
  assert.deepEqual(parseStreamsArgs(['--targets', 'forwarder-workers,gatehouse-workers']).targets, [
    'direct',
    'forwarder-workers',
    'gatehouse-workers',
  ]);
  assert.ok(isWorkersTarget('gatehouse-workers') && !isWorkersTarget('gatehouse'));
});

test('the report holds each proxy to the forwarder of its own shape and says why workers ran', () => {
  const summary = { n: 1, mean: 1, min: 1, p50: 1, p90: 1, p99: 2, p999: 2, max: 2 };
  const slow = (kb: number, child: number, root: number) => ({
    mode: 'at once' as const,
    rampS: 0,
    streams: 10_000,
    seconds: 60,
    ok: true,
    reasons: [],
    load: {
      streams: 10_000,
      ok: 10_000,
      errors: 0,
      incomplete: 0,
      outOfOrder: 0,
      events: 0,
      contentEvents: 0,
      maxOpen: 10_000,
      elapsedMs: 1,
      cpuMs: 1,
      errorSamples: [],
      ttfb: summary,
      duration: summary,
      gap: summary,
      addedGap: summary,
      delay: summary,
    },
    rss: { idleMb: 100, peakMb: 500 },
    kbPerStream: kb,
    cpuS: 12.5,
    fds: { root, child },
    loadAfter: 3.25,
  });
  const md = renderStreams({
    startedAt: 'now',
    durationS: 1,
    loadAvg: 1,
    opts: parseStreamsArgs([]),
    shape: { workers: 2, limit: 20_000, notes: ['one proxy process would need 21,024 open files'] },
    targets: [
      { name: 'direct', status: 'ok', errors: [], slow: [slow(0, 0, 0)] },
      { name: 'forwarder-workers', status: 'ok', errors: [], slow: [slow(40, 5_100, 30)] },
      { name: 'gatehouse-workers', status: 'ok', errors: [], slow: [slow(60, 5_300, 1_200)] },
    ],
  });
  assert.match(md, /Open files per process: limit 20,000; `-workers` targets: 2 workers on one port/);
  assert.match(md, /- one proxy process would need 21,024 open files/);
  assert.match(
    md,
    /\| forwarder-workers \| at once \| yes \| 10,000 \/ 0 \|.*\| 5,100 \/ 30 \| 100 → 500 \| 40\.0 \| – \| 12\.5 \| 3\.25 \|/,
  );
  assert.match(md, /\| gatehouse-workers \| at once \|.*\| 5,300 \/ 1,200 \| 100 → 500 \| 60\.0 \| 1\.50 \| 12\.5 \| 3\.25 \|/);
});
