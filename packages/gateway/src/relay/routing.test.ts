/**
 * The routing policies' rules on their own: parsing of both options, the error classes of vendors'
 * refusals, the strategy lookup with its wildcards, and what each strategy and cap chooses.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import type { RuntimeChannel } from './channels.ts';
import { classifyClientError, classifyExhausted, EXPLORE_EVERY, parseFallbacks, parseRouting, Routing } from './routing.ts';

function ch(id: number, o: Partial<RuntimeChannel> = {}): RuntimeChannel {
  return {
    id,
    name: `c${id}`,
    type: 1,
    baseUrl: '',
    apiRoot: false,
    keys: ['k'],
    keyMode: 'random',
    keyState: {},
    models: ['m'],
    groups: ['default'],
    priority: 0,
    weight: 1,
    modelMapping: {},
    headerOverride: {},
    paramOverride: {},
    settings: {},
    status: 1,
    testModel: null,
    rr: 0,
    maxConcurrency: 0,
    maxInputTokens: 0,
    ...o,
  };
}

const opts = (values: Record<string, unknown>) => ({
  get: (k: string) => (values[k] === undefined ? undefined : JSON.stringify(values[k])),
});

test('the options are checked with a message naming the place', () => {
  assert.deepEqual([...parseRouting('{"*": {"gpt-4o": "latency"}}').get('*')!], [['gpt-4o', 'latency']]);
  assert.throws(() => parseRouting('{"*": {"m": "fast"}}'), /\*\.m: must be one of priority, least_busy, latency, cost/);
  assert.throws(() => parseRouting('[1]'), /must be a mapping/);
  assert.throws(() => parseRouting('{'), /must be JSON/);
  assert.deepEqual(parseFallbacks('{"a": [{"model": "b"}]}').get('a'), [
    { model: 'b', on: ['context_length', 'content_policy', 'rate_limit', 'unavailable'] },
  ]);
  assert.throws(() => parseFallbacks('{"a": [{"model": "b", "when": 1}]}'), /a\[0\]: unknown field "when"/);
  assert.throws(() => parseFallbacks('{"a": [{"model": "a"}]}'), /cannot fall back to itself/);
  assert.throws(() => parseFallbacks('{"a": {"model": "b"}}'), /a: must be a list/);
});

test("vendors' refusals are classed: context length and content policy; other 4xx none", () => {
  const ctx = [
    `{"error":{"message":"This model's maximum context length is 128000 tokens.","code":"context_length_exceeded"}}`,
    `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`,
    `{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`,
    `{"message":"Input is too long for requested model."}`,
  ];
  for (const t of ctx) assert.equal(classifyClientError(400, t), 'context_length', t);
  const policy = [
    `{"error":{"message":"Your request was rejected as a result of our safety system.","code":"content_policy_violation"}}`,
    `{"error":{"code":"content_filter","message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy."}}`,
  ];
  for (const t of policy) assert.equal(classifyClientError(400, t), 'content_policy', t);
  assert.equal(classifyClientError(400, '{"error":{"message":"temperature must be at most 2"}}'), null);
  assert.equal(classifyClientError(500, 'context_length_exceeded'), null, 'a 5xx is never a refusal of the request');
  assert.equal(classifyExhausted(429, false), 'rate_limit');
  assert.equal(classifyExhausted(503, false), 'unavailable');
  assert.equal(classifyExhausted(null, false), 'unavailable');
  assert.equal(classifyExhausted(null, true), 'context_length');
});

test('the strategy of a group and model: own entry, group *, * entry, * *, else priority; re-read when the option changes', () => {
  const values: Record<string, unknown> = {
    ChannelRouting: { '*': { '*': 'cost', m1: 'latency' }, vip: { m2: 'least_busy', '*': 'priority' } },
  };
  const r = new Routing(opts(values));
  assert.equal(r.strategy('vip', 'm2'), 'least_busy');
  assert.equal(r.strategy('vip', 'm1'), 'priority');
  assert.equal(r.strategy('default', 'm1'), 'latency');
  assert.equal(r.strategy('default', 'other'), 'cost');
  values.ChannelRouting = { default: { m1: 'least_busy' } };
  assert.equal(r.strategy('default', 'm1'), 'least_busy');
  assert.equal(r.strategy('default', 'other'), 'priority');
  delete values.ChannelRouting;
  assert.equal(r.strategy('default', 'm1'), 'priority');
});

test('least_busy, cost and latency rank within the top priority tier', () => {
  const r = new Routing(opts({}));
  const a = ch(1, { priority: 5 });
  const b = ch(2, { priority: 5, settings: { cost_ratio: 0.5 } });
  const low = ch(3, { priority: 0, settings: { cost_ratio: 0.1 } });
  const all = [a, b, low];
  r.begin(2);
  for (let i = 0; i < 20; i++) assert.equal(r.choose('least_busy', all, (c) => c).id, 1);
  r.end(2);
  for (let i = 0; i < 20; i++) assert.equal(r.choose('cost', all, (c) => c).id, 2);
  // Unmeasured channels first; then the fastest; every EXPLORE_EVERY-th pick the one measured longest ago.
  r.sample(1, 200);
  const firstPick = r.choose('latency', all, (c) => c).id;
  assert.equal(firstPick, 2, 'the channel never measured');
  r.sample(2, 10);
  const picks = Array.from({ length: EXPLORE_EVERY * 3 }, () => r.choose('latency', all, (c) => c).id);
  assert.equal(picks.filter((id) => id === 1).length, 3, 'the slow channel is explored once every EXPLORE_EVERY picks');
  assert.equal(picks.filter((id) => id === 3).length, 0, 'never a lower tier');
});

test('caps: max_concurrency counts calls in flight, max_input_tokens the prompt', () => {
  const r = new Routing(opts({}));
  const c = ch(7, { maxConcurrency: 2, maxInputTokens: 1000 });
  assert.equal(r.admits(c, 1000), 'ok');
  assert.equal(r.admits(c, 1001), 'too_long');
  r.begin(7);
  r.begin(7);
  assert.equal(r.admits(c, 10), 'full');
  r.end(7);
  assert.equal(r.admits(c, 10), 'ok');
  assert.equal(r.admits(ch(8), 10_000_000), 'ok', '0 is no cap');
});
