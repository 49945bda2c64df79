import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs, plan } from './config.ts';
import { gatehouseConfigYaml, BENCH_KEY } from './targets.ts';
import { parse } from 'yaml';

test('parseArgs: defaults, --quick, --targets (direct always kept), --portkey', () => {
  const d = parseArgs([]);
  assert.deepEqual(d.targets, ['direct', 'forwarder', 'portkey', 'gatehouse', 'gatehouse-allowance']);
  assert.equal(d.quick, false);
  assert.equal(d.installPortkey, true);
  assert.deepEqual(d.subjects, ['gatehouse', 'gatehouse-allowance']);
  assert.deepEqual(parseArgs(['--subject', 'forwarder']).subjects, ['forwarder']);

  const q = parseArgs(['--quick', '--targets', 'forwarder,gatehouse']);
  assert.equal(q.quick, true);
  assert.equal(q.installPortkey, false);
  assert.deepEqual(q.targets, ['direct', 'forwarder', 'gatehouse']);

  const qp = parseArgs(['--quick', '--portkey', '--targets=forwarder']);
  assert.equal(qp.installPortkey, true);
  assert.deepEqual(qp.targets, ['direct', 'forwarder', 'portkey']);

  assert.equal(parseArgs(['--no-json']).outDir, null);
  assert.equal(parseArgs(['--update-docs']).updateDocs, true);
  assert.equal(d.updateDocs, false);
  assert.equal(parseArgs(['--out', '/tmp/x']).outDir, '/tmp/x');
  assert.throws(() => parseArgs(['--targets', 'nginx']), /unknown target/);
  assert.throws(() => parseArgs(['--bogus']), /unknown option/);
  assert.throws(() => parseArgs(['--targets']), /needs a value/);
});

test('plan: quick is shorter than full in every phase', () => {
  const q = plan(true);
  const f = plan(false);
  assert.ok(q.latency.rounds * q.latency.perRound < f.latency.rounds * f.latency.perRound);
  assert.ok(q.maxRate.durationMs < f.maxRate.durationMs);
  assert.ok(q.sustained.probeMs * q.sustained.maxProbes < f.sustained.probeMs * f.sustained.maxProbes);
  assert.ok(q.stream.ladder.length < f.stream.ladder.length);
  assert.equal(f.stream.chunks, 64);
  assert.equal(f.stream.gapMs, 20);
  assert.equal(f.sustained.delayMs, 20);
  assert.equal(f.sustained.p99Ms, 1000);
  assert.equal(f.sustained.maxErrorRatio, 0.001);
});

test('gatehouse seed config parses to the documented shape', () => {
  const cfg = parse(gatehouseConfigYaml('http://127.0.0.1:9300'));
  assert.equal(cfg.users[0].username, 'bench');
  assert.equal(cfg.keys[0].key, BENCH_KEY);
  assert.equal(cfg.keys[0].user, 'bench');
  assert.deepEqual(cfg.channels[0].models, ['bench-model']);
  assert.equal(cfg.channels[0].type, 'openai');
  assert.equal(cfg.channels[0].base_url, 'http://127.0.0.1:9300');
  assert.deepEqual(cfg.channels[0].groups, ['default']);
  assert.deepEqual(cfg.prices['bench-model'], { input: 0.15, output: 0.6 });
  assert.equal(cfg.options, undefined);
  assert.deepEqual(parse(gatehouseConfigYaml('http://127.0.0.1:9300', { QuotaAllowanceEnabled: true })).options, {
    QuotaAllowanceEnabled: true,
  });
});
