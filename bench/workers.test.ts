/**
 * The pure parts of bench/workers.ts: wrk's report, nginx's stub_status, the upstream's answer and
 * config, the wrk script, and the verdict over rounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  completionJson,
  markdown,
  nginxConf,
  parseStubStatus,
  parseWrk,
  parseWrkDuration,
  roundProblem,
  statCpu,
  verdicts,
  wrkScript,
  type Round,
  type WrkResult,
} from './workers.ts';
import { chatBody } from './targets.ts';

const WRK_OK = `Running 10s test @ http://127.0.0.1:40223/v1/chat/completions
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    15.02ms    9.81ms 120.33ms   91.20%
    Req/Sec     4.41k   312.55     4.90k    81.00%
  Latency Distribution
     50%   12.54ms
     75%   15.10ms
     90%   20.00ms
     99%  100.50ms
  43912 requests in 10.01s, 30.12MB read
Requests/sec:   4386.81
Transfer/sec:      3.01MB
`;

const WRK_ERRORS = `Running 3s test @ http://127.0.0.1:1/v1/chat/completions
  1 threads and 128 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   812.00us  100.00us   1.20s    99.00%
    Req/Sec    10.00k     1.00k   12.00k    70.00%
  Latency Distribution
     50%  812.00us
     75%    1.00ms
     90%    1.50ms
     99%    1.20s
  30000 requests in 3.00s, 6.00MB read
  Socket errors: connect 0, read 2, write 0, timeout 5
  Non-2xx or 3xx responses: 17
Requests/sec:  10000.00
Transfer/sec:      2.00MB
`;

test('parseWrkDuration: every unit wrk prints, in ms', () => {
  assert.equal(parseWrkDuration('812.00us'), 0.812);
  assert.equal(parseWrkDuration('1.50ms'), 1.5);
  assert.equal(parseWrkDuration('1.20s'), 1200);
  assert.equal(parseWrkDuration('1.00m'), 60_000);
  assert.throws(() => parseWrkDuration('12 ms'));
});

test('parseWrk: a clean report', () => {
  const r = parseWrk(WRK_OK);
  assert.equal(r.requests, 43912);
  assert.equal(r.seconds, 10.01);
  assert.equal(r.rps, 4386.81);
  assert.equal(r.p50, 12.54);
  assert.equal(r.p75, 15.1);
  assert.equal(r.p90, 20);
  assert.equal(r.p99, 100.5);
  assert.equal(r.non2xx, 0);
  assert.deepEqual(r.socket, { connect: 0, read: 0, write: 0, timeout: 0 });
  assert.equal(roundProblem({ wrk: r, upstream: 43912 + 40 }), null);
});

test('parseWrk: errors, microseconds and seconds', () => {
  const r = parseWrk(WRK_ERRORS);
  assert.equal(r.p50, 0.812);
  assert.equal(r.p99, 1200);
  assert.equal(r.non2xx, 17);
  assert.deepEqual(r.socket, { connect: 0, read: 2, write: 0, timeout: 5 });
  const problem = roundProblem({ wrk: r, upstream: 100 });
  assert.match(problem!, /17 non-2xx/);
  assert.match(problem!, /socket errors 0\/2\/0\/5/);
  assert.match(problem!, /upstream saw 100 of 30000/);
});

test('parseWrk: refuses a report without the summary or the percentiles', () => {
  assert.throws(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused'), /no wrk summary/);
  assert.throws(() => parseWrk(WRK_OK.replace(/ {5}99%.*\n/, '')), /no 99% latency/);
});

test('parseStubStatus reads the requests counter', () => {
  const page = 'Active connections: 3 \nserver accepts handled requests\n 12 12 4567 \nReading: 0 Writing: 1 Waiting: 2 \n';
  assert.equal(parseStubStatus(page), 4567);
  assert.throws(() => parseStubStatus('<html>404</html>'));
});

test('statCpu: own and reaped children CPU from /proc/<pid>/stat, command names with spaces included', () => {
  const stat = '4242 (sh -c (x)) S 1 4242 4242 0 -1 4194304 100 200 0 0 3 4 250 120 20 0 1 0 5000 1000 100';
  assert.deepEqual(statCpu(stat), { self: 0.07, children: 3.7 });
});

test('completionJson matches the Node upstream for the bench body, about 0.5 KB', () => {
  const prompt = chatBody(false);
  const body = JSON.parse(completionJson(prompt)) as {
    model: string;
    choices: { message: { content: string } }[];
    usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  };
  assert.equal(body.model, 'bench-model');
  assert.ok(body.choices[0].message.content.startsWith('Gatehouse benchmark reply.'));
  assert.equal(body.usage.prompt_tokens, Math.round(prompt.length / 4));
  assert.equal(body.usage.total_tokens, body.usage.prompt_tokens + 48);
  const size = completionJson(prompt).length;
  assert.ok(size > 400 && size < 700, `${size} bytes`);
});

test('nginxConf: foreground, one worker, quoted answers, stub_status', () => {
  const conf = nginxConf({ port: 9999, prefix: '/tmp/x', completion: `{"a":"it's \\\\ here"}`, user: 'root' });
  assert.match(conf, /^user root;\ndaemon off;/);
  assert.match(conf, /pid \/tmp\/x\/nginx\.pid;/);
  assert.match(conf, /listen 127\.0\.0\.1:9999;/);
  assert.ok(conf.includes(`return 200 '{"a":"it\\'s \\\\\\\\ here"}';`), conf);
  assert.match(conf, /location = \/__bench\/stats \{ stub_status; \}/);
  assert.doesNotMatch(nginxConf({ port: 1, prefix: '/p', completion: '{}' }), /^user /);
});

test('wrkScript: a long bracket the body cannot close', () => {
  const s = wrkScript('{"x":"]]"}', { authorization: 'Bearer k' });
  assert.ok(s.includes('wrk.body = [=[{"x":"]]"}]=]'), s);
  assert.ok(s.includes('wrk.method = "POST"'));
  assert.ok(s.includes('wrk.headers["authorization"] = "Bearer k"'));
});

function round(conns: number, workers: number, rps: number, non2xx = 0): Round {
  const wrk: WrkResult = {
    requests: rps * 10,
    seconds: 10,
    rps,
    p50: 1,
    p75: 1,
    p90: 2,
    p99: 3,
    non2xx,
    socket: { connect: 0, read: 0, write: 0, timeout: 0 },
  };
  return { conns, round: 1, workers, wrk, cpu: { gateway: 100 * workers, nginx: 5, wrk: 5, machine: 110 * workers }, upstream: rps * 10 };
}

test('verdicts: medians of the valid rounds, ratio against the goal', () => {
  const rounds = [
    round(64, 1, 1000),
    round(64, 1, 1100),
    round(64, 1, 900),
    round(64, 2, 1800),
    round(64, 2, 1900),
    round(64, 2, 99_999, 3), // invalid: left out
    round(128, 1, 1000),
    round(128, 2, 1500),
  ];
  const v = verdicts(rounds, 1.7);
  assert.equal(v.length, 2);
  assert.deepEqual(
    { conns: v[0].conns, one: v[0].one, two: v[0].two, pass: v[0].pass, invalid: v[0].invalid },
    { conns: 64, one: 1000, two: 1850, pass: true, invalid: 1 },
  );
  assert.equal(v[1].ratio, 1.5);
  assert.equal(v[1].pass, false);
  const md = markdown(rounds, 1.7);
  assert.match(md, /\*\*invalid: 3 non-2xx\*\*/);
  assert.match(md, /\| 64 \| 1,000 \| 1,850 \| 1\.85× \| PASS \(1 invalid round\(s\) left out\) \|/);
  assert.match(md, /\| 128 \| 1,000 \| 1,500 \| 1\.50× \| MISS \|/);
});
