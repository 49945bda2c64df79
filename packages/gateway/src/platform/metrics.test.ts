import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Metrics } from './metrics.ts';

test('calls become counters and histograms; label values are escaped; non-call rows are ignored', () => {
  const m = new Metrics({ version: '1.2.3', node: 'n"1' });
  try {
    m.call({
      type: 'consume',
      endpoint: '/v1/chat/completions',
      model: 'gpt "x"\n',
      channel_id: 7,
      status_code: 200,
      latency_ms: 300,
      first_byte_ms: 40,
      prompt_tokens: 10,
      completion_tokens: 5,
      quota: 15,
      attempts: 2,
    });
    m.call({ type: 'error', endpoint: '/v1/chat/completions', model: 'm', channel_id: 7, status_code: 502, latency_ms: 2000, attempts: 3 });
    m.call({ type: 'topup', endpoint: null, quota: 1000 });
    m.task('video', 'settle', 40);
    const t = m.render();
    assert.match(t, /^gatehouse_info\{version="1\.2\.3",node="n\\"1"\} 1$/m);
    assert.match(t, /^gatehouse_requests_total\{endpoint="\/v1\/chat\/completions",model="gpt \\"x\\"\\n",status="200"\} 1$/m);
    assert.match(t, /^gatehouse_requests_total\{endpoint="\/v1\/chat\/completions",model="m",status="502"\} 1$/m);
    assert.match(t, /^gatehouse_channel_requests_total\{channel="7",status="502"\} 1$/m);
    assert.match(t, /^gatehouse_request_duration_seconds_bucket\{endpoint="\/v1\/chat\/completions",le="0\.25"\} 0$/m);
    assert.match(t, /^gatehouse_request_duration_seconds_bucket\{endpoint="\/v1\/chat\/completions",le="0\.5"\} 1$/m);
    assert.match(t, /^gatehouse_request_duration_seconds_bucket\{endpoint="\/v1\/chat\/completions",le="\+Inf"\} 2$/m);
    assert.match(t, /^gatehouse_request_duration_seconds_sum\{endpoint="\/v1\/chat\/completions"\} 2\.3$/m);
    assert.match(t, /^gatehouse_time_to_first_byte_seconds_count\{endpoint="\/v1\/chat\/completions"\} 1$/m);
    assert.match(t, /^gatehouse_tokens_total\{model="gpt \\"x\\"\\n",kind="completion"\} 5$/m);
    assert.match(t, /^gatehouse_quota_used_total\{model="gpt \\"x\\"\\n"\} 15$/m);
    assert.match(t, /^gatehouse_upstream_attempts_total\{endpoint="\/v1\/chat\/completions"\} 5$/m);
    assert.match(t, /^gatehouse_task_billing_total\{plugin="video",movement="settle"\} 1$/m);
    assert.match(t, /^gatehouse_task_quota_total\{plugin="video",movement="settle"\} 40$/m);
    assert.doesNotMatch(t, /1000/, 'a top-up is not a call');
    assert.match(t, /^process_resident_memory_bytes \d+$/m);
  } finally {
    m.close();
  }
});

test('label sets beyond the cap are counted under "other"', () => {
  const m = new Metrics({ version: '0', node: 'n' });
  try {
    for (let i = 0; i < 2100; i++) m.call({ type: 'error', endpoint: '/v1/chat/completions', model: `random-${i}`, status_code: 503 });
    const t = m.render();
    assert.equal(t.split('\n').filter((l) => l.startsWith('gatehouse_requests_total{')).length, 2001);
    assert.match(t, /^gatehouse_requests_total\{endpoint="other",model="other",status="other"\} 100$/m);
  } finally {
    m.close();
  }
});

test('disabled (no METRICS_TOKEN), nothing is counted', () => {
  const m = new Metrics({ version: '0', node: 'n' }, false);
  m.call({ type: 'consume', endpoint: '/v1/chat/completions', model: 'm', status_code: 200, latency_ms: 5 });
  m.task('p', 'settle', 1);
  assert.doesNotMatch(m.render(), /gatehouse_requests_total\{|gatehouse_task_billing_total\{/);
  m.close();
});
