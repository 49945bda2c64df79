/** Which billing endpoint a channel's balance is read from, what a model sync changes, the probe's back-off. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { balanceApiOf, modelDiff } from './channel-chores.ts';
import { backoffMs } from './recovery.ts';
import type { RuntimeChannel } from './channels.ts';

const ch = (type: number, baseUrl: string, settings: Record<string, unknown> = {}) => ({ type, baseUrl, settings }) as RuntimeChannel;

test('the balance endpoint: the setting, else the preset, else the host, else an OpenAI-compatible reseller', () => {
  assert.equal(balanceApiOf(ch(1, 'https://relay.example.com', { balance_api: 'moonshot', preset: 'deepseek' })), 'moonshot');
  assert.equal(balanceApiOf(ch(1, 'https://api.deepseek.com', { preset: 'deepseek' })), 'deepseek');
  assert.equal(balanceApiOf(ch(1, 'https://openrouter.ai/api/v1')), 'openrouter');
  assert.equal(balanceApiOf(ch(1, 'https://api.siliconflow.cn/v1')), 'siliconflow');
  assert.equal(balanceApiOf(ch(1, 'https://api.moonshot.cn/v1')), 'moonshot');
  assert.equal(balanceApiOf(ch(1, 'https://notdeepseek.com.example.org')), 'openai', 'a host is matched whole');
  assert.equal(balanceApiOf(ch(1, 'https://relay.example.com', { preset: 'groq' })), 'openai');
  assert.throws(() => balanceApiOf(ch(14, 'https://api.anthropic.com')), /publish no balance/);
});

test('a model sync adds what only the upstream lists and removes what it no longer lists, mapped names compared upstream', () => {
  assert.deepEqual(modelDiff(['a', 'gone', 'alias'], ['a', 'b', 'new'], { alias: 'b' }), { added: ['new'], removed: ['gone'] });
  assert.deepEqual(modelDiff(['a'], ['a'], {}), { added: [], removed: [] });
  assert.deepEqual(modelDiff(['alias'], ['a'], { alias: 'b' }), { added: ['a'], removed: ['alias'] });
});

test('the probe back-off doubles from the interval up to its cap', () => {
  const s = { intervalMs: 60_000, maxBackoffMs: 3_600_000 };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 100].map((n) => backoffMs(n, s)),
    [120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000],
  );
  assert.equal(backoffMs(0, s), 60_000);
});
