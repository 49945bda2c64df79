/**
 * A chat call's log details (chatLogDetails in relay/relay.ts), built by assignment: the same object,
 * keys in the same order, as the details written by spreading each part.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TokenUsage } from '../billing/prices.ts';
import { ruleUsageDetails } from '../billing/price-rules.ts';
import type { Ctx } from './chat-call.ts';
import { chatLogDetails } from './relay.ts';

/** The details as written before, part by part. */
const spread = (ctx: Ctx, u: TokenUsage) => ({
  ...(ctx.cf !== 'openai' ? { inbound: ctx.cf } : {}),
  ...(ctx.sent?.dropped.length ? { dropped: ctx.sent.dropped.slice(0, 20) } : {}),
  ...(ctx.chain.length ? { requested_model: ctx.chain[0].from, fallbacks: ctx.chain } : {}),
  attempts: ctx.attempts,
  ...(ctx.guardrails.length ? { guardrails: ctx.guardrails } : {}),
  reasoning_tokens: u.reasoningTokens,
  cache_write_tokens: u.cacheWriteTokens,
  ...(u.cacheWrite1hTokens ? { cache_write_1h_tokens: u.cacheWrite1hTokens } : {}),
  ...ruleUsageDetails(u),
});

test('chat log details: the same keys, values and order as the parts spread one by one', () => {
  const plain = { cf: 'openai', sent: null, chain: [], attempts: [{ channel: 1 }], guardrails: [] } as unknown as Ctx;
  const full = {
    cf: 'anthropic',
    sent: { dropped: Array.from({ length: 25 }, (_, i) => `field_${i}`) },
    chain: [{ from: 'big', model: 'small', on: 'rate_limit' }],
    attempts: [{ channel: 1 }, { channel: 2 }],
    guardrails: [{ plugin: 'p', verdict: 'allow' }],
  } as unknown as Ctx;
  const usages: TokenUsage[] = [
    { inputTokens: 10, outputTokens: 5 },
    { inputTokens: 10, outputTokens: 5, reasoningTokens: 3, cacheWriteTokens: 2, cacheWrite1hTokens: 1 },
    {
      inputTokens: 1,
      outputTokens: 1,
      audioInputTokens: 4,
      imageOutputTokens: 2,
      serverTools: { web_search: 1 },
      serviceTier: 'flex',
    } as TokenUsage,
  ];
  for (const ctx of [plain, full])
    for (const u of usages) {
      const got = chatLogDetails(ctx, u);
      const want = spread(ctx, u);
      assert.deepEqual(got, want);
      assert.deepEqual(Object.keys(got), Object.keys(want));
      assert.equal(JSON.stringify(got), JSON.stringify(want));
    }
  assert.equal((chatLogDetails(full, usages[0]).dropped as string[]).length, 20);
});
