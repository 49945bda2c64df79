/**
 * The rules of a price beyond flat rates, priced against worked examples of the vendors' price pages,
 * and their bounds: no usage within the token bounds a reserve holds costs more than the bound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quotaUnits, usdBound, usdCost, type ModelPrice } from './prices.ts';
import { compileModelExpression, emptyRules, resolveRules, type RulesInput } from './price-rules.ts';
import { callFacts } from './call-facts.ts';

function price(input: number, output: number, rules: RulesInput = {}, expression: string | null = null, cachedInput = input): ModelPrice {
  const base = { input, output, cachedInput, cacheWrite5m: input * 1.25, cacheWrite1h: input * 2 };
  return { model: 'm', ...base, perRequest: null, rules: resolveRules(JSON.stringify(rules), expression, base) };
}
const units = (usd: number) => quotaUnits(usd, 1, 500_000);

test('a long-context call is priced whole at the tier its input reaches (Claude Sonnet 4.5, Gemini 2.5 Pro)', () => {
  // Anthropic: $3 / $15 per MTok; over 200K input tokens $6 / $22.50 for the whole request.
  const sonnet = price(3, 15, { tiers: [{ above_input_tokens: 200_000, input: 6, output: 22.5 }] }, null, 0.3);
  assert.equal(units(usdCost(sonnet, { inputTokens: 250_000, outputTokens: 2_000 })), 772_500);
  assert.equal(units(usdCost(sonnet, { inputTokens: 200_000, outputTokens: 2_000 })), 315_000);
  // Cache reads in the tier keep the base's ratio to input ($0.60 = 10% of $6).
  assert.equal(units(usdCost(sonnet, { inputTokens: 250_000, cachedInputTokens: 100_000, outputTokens: 0 })), 480_000);
  // Google: $1.25 / $10 up to 200K prompt tokens, $2.50 / $15 above.
  const pro = price(1.25, 10, { tiers: [{ above_input_tokens: 200_000, input: 2.5, output: 15 }] });
  assert.equal(units(usdCost(pro, { inputTokens: 250_000, outputTokens: 1_000 })), 320_000);
});

test('server tools are priced per 1,000 calls; service tiers multiply the tokens', () => {
  // Anthropic web search: $10 per 1,000 searches, plus the tokens.
  const search = price(3, 15, { web_search: 10 });
  assert.equal(units(usdCost(search, { inputTokens: 1000, outputTokens: 500, serverTools: { web_search: 3 } })), 20_250);
  // OpenAI gpt-5: $1.25 / $10 standard, flex at half.
  const gpt5 = price(1.25, 10, { service_tiers: { flex: 0.5, priority: 2 } });
  assert.equal(units(usdCost(gpt5, { inputTokens: 10_000, outputTokens: 2_000, serviceTier: 'flex' })), 8_125);
  assert.equal(units(usdCost(gpt5, { inputTokens: 10_000, outputTokens: 2_000, serviceTier: 'default' })), 16_250);
});

test('audio and image tokens at their own prices, reasoning as output unless priced', () => {
  // gpt-4o-audio-preview: text $2.50 / $10, audio $40 / $80 per MTok.
  const audio = price(2.5, 10, { audio_input: 40, audio_output: 80 });
  const u = { inputTokens: 1000, audioInputTokens: 600, outputTokens: 500, audioOutputTokens: 400 };
  assert.equal(units(usdCost(audio, u)), 29_000);
  const r = price(1, 4, { reasoning: 2 });
  assert.equal(units(usdCost(r, { inputTokens: 0, outputTokens: 1000, reasoningTokens: 600 })), units((400 * 4 + 600 * 2) / 1e6));
  assert.equal(units(usdCost(price(1, 4), { inputTokens: 0, outputTokens: 1000, reasoningTokens: 600 })), units(4000 / 1e6));
});

test('an expression over usage, request parameters, headers and the hour (New API names)', () => {
  const src =
    'tier("base", u("p") * 2 + u("c") * 8 + u("cr") * 0.5) * (param("temperature") > 1 ? 2 : 1) + (header("x-tenant") == "vip" ? 0 : 1)';
  const p = price(0, 0, {}, src);
  const call = callFacts({ temperature: 1.5 }, { 'x-tenant': 'vip', authorization: 'Bearer sk-x' }, Date.UTC(2026, 0, 1, 13));
  const u = { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 100 };
  // p = 1000 − 400 (cr named apart) → (600×2 + 100×8 + 400×0.5) × 2 = 4400 per 1M.
  assert.equal(usdCost(p, u, call), 4400 / 1e6);
  assert.ok(usdBound(p, 1000, 100, call) >= usdCost(p, u, call));
  const night = price(0, 0, {}, 'hour() >= 22 || hour() < 6 ? u("p") * 1 : u("p") * 3');
  assert.equal(usdCost(night, { inputTokens: 1e6, outputTokens: 0 }, call), 3);
  assert.equal(usdBound(night, 1e6, 0, call), 3);
  // Credentials are never facts.
  assert.equal(call.headers.authorization, undefined);
  assert.throws(() => compileModelExpression('u("p") / param("x")'), /upper bound/);
  assert.throws(() => compileModelExpression('u("seconds")'), /not a fact/);
});

test('the bound covers every usage within the token bounds, for every rule', () => {
  const rules: RulesInput = {
    tiers: [{ above_input_tokens: 100, input: 6, output: 20 }],
    audio_input: 40,
    audio_output: 80,
    image_output: 30,
    web_search: 10,
    service_tiers: { flex: 0.5, priority: 2 },
  };
  const p = price(3, 15, rules);
  const call = callFacts({ tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }] }, {}, 0);
  const bound = usdBound(p, 500, 200, call, true);
  for (const inT of [0, 100, 101, 500])
    for (const out of [0, 200])
      for (const tier of [undefined, 'flex', 'priority'])
        for (const s of [0, 3]) {
          const u = {
            inputTokens: inT,
            audioInputTokens: inT / 2,
            cacheWriteTokens: inT / 4,
            outputTokens: out,
            audioOutputTokens: out / 2,
            imageOutputTokens: out / 4,
            serviceTier: tier,
            serverTools: { web_search: s },
          };
          assert.ok(usdCost(p, u, call) <= bound, JSON.stringify(u));
        }
  assert.equal(emptyRules().tiers.length, 0);
});
