/**
 * The tokenizer's input estimate (relay/input-estimate.ts) against what each vendor family counts, on
 * three corpora (English prose, Chinese prose, TypeScript source: test/fakes/corpora/): it must lie
 * between 1.0 and 1.5 times the upstream's count. OpenAI's counts are the real encodings' (gpt-tokenizer)
 * with the framing OpenAI documents (3 tokens a message, its role, 3 to prime the reply); Gemini's were
 * counted with Gemma 3's tokenizer, Gemini's own; Claude's are the documented ratios to o200k (no
 * tokenizer of Claude 3 or later is published), both ends of each range (counts.json says where each
 * number comes from).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { cjkChars, countInRuns, measureText, INLINE_MAX, MAX_RUN } from '../billing/tokens.ts';
import { ChannelType } from '../channels/types.ts';
import { bodyText, estimateInput, FAMILIES, familyOf, familyOfModel, type TokenFamily } from './input-estimate.ts';
import { scanBody } from './body-scan.ts';
import { textBound } from './estimate.ts';

const dir = new URL('../../test/fakes/corpora/', import.meta.url);
const counts = JSON.parse(readFileSync(new URL('counts.json', dir), 'utf8')) as {
  corpora: Record<string, { o200k: number; cl100k: number; gemini: number }>;
  claude: Record<string, [number, number]>;
  claude47: Record<string, [number, number]>;
};
const CORPORA = ['english.txt', 'chinese.txt', 'code.txt'];
const text = (name: string) => readFileSync(new URL(name, dir), 'utf8');

const openaiBody = (model: string, t: string) => ({ model, messages: [{ role: 'user', content: t }] });
const anthropicBody = (model: string, t: string) => ({
  model,
  max_tokens: 1024,
  messages: [{ role: 'user', content: [{ type: 'text', text: t }] }],
});
const geminiBody = (t: string) => ({ contents: [{ role: 'user', parts: [{ text: t }] }] });

/** The prompt tokens OpenAI reports for one user message: 3 per message, the role, the text, 3 for the reply. */
const openaiReported = (count: (t: string) => number, t: string) => 3 + count('user') + count(t) + 3;

function within(estimate: number, reported: number, what: string): void {
  const r = estimate / reported;
  assert.ok(r >= 1 && r <= 1.5, `${what}: estimate ${estimate} for ${reported} reported is ${r.toFixed(3)}×`);
}

async function estimate(body: unknown, f: TokenFamily): Promise<number> {
  return estimateInput(body, [f]);
}

test('the corpora are the ones counted (the recorded counts still match the encodings)', () => {
  for (const c of CORPORA) {
    assert.equal(o200k.countTokens(text(c)), counts.corpora[c].o200k, c);
    assert.equal(cl100k.countTokens(text(c)), counts.corpora[c].cl100k, c);
  }
});

test('OpenAI: the estimate lies between 1.0 and 1.5 times the prompt tokens, with o200k and with cl100k models', async () => {
  for (const c of CORPORA) {
    const t = text(c);
    const f4o = familyOf('gpt-4o-mini', ChannelType.openai);
    assert.equal(f4o, FAMILIES.openai);
    within(await estimate(openaiBody('gpt-4o-mini', t), f4o), openaiReported(o200k.countTokens, t), `gpt-4o-mini ${c}`);
    const f4 = familyOf('gpt-4-turbo', ChannelType.azure);
    assert.equal(f4, FAMILIES.openaiCl100k);
    within(await estimate(openaiBody('gpt-4-turbo', t), f4), openaiReported(cl100k.countTokens, t), `gpt-4-turbo ${c}`);
  }
});

test('Claude: the estimate lies between 1.0 and 1.5 times the documented counts, before and after Opus 4.7', async () => {
  for (const c of CORPORA) {
    const t = text(c);
    const base = counts.corpora[c].o200k;
    const f = familyOf('claude-sonnet-4-5-20250929', ChannelType.anthropic);
    assert.equal(f, FAMILIES.claude);
    const e = await estimate(anthropicBody('claude-sonnet-4-5-20250929', t), f);
    for (const r of counts.claude[c]) within(e, Math.round(base * r), `claude ${c} at ${r}× o200k`);
    const f47 = familyOf('claude-opus-4-7', ChannelType.anthropic);
    assert.equal(f47, FAMILIES.claude47);
    const e47 = await estimate(anthropicBody('claude-opus-4-7', t), f47);
    for (const r of counts.claude[c]) {
      for (const r47 of counts.claude47[c]) within(e47, Math.round(base * r * r47), `claude-opus-4-7 ${c} at ${r}× o200k × ${r47}`);
    }
  }
});

test("Gemini: the estimate lies between 1.0 and 1.5 times Gemini's tokenizer's count", async () => {
  for (const c of CORPORA) {
    const f = familyOf('gemini-2.5-flash', ChannelType.gemini);
    assert.equal(f, FAMILIES.gemini);
    within(await estimate(geminiBody(text(c)), f), counts.corpora[c].gemini, `gemini ${c}`);
  }
});

test('families by model name, then by channel type; the dearest of several', async () => {
  assert.equal(familyOfModel('anthropic.claude-3-5-sonnet-20241022-v2:0'), FAMILIES.claude);
  assert.equal(familyOfModel('claude-opus-4-1'), FAMILIES.claude);
  assert.equal(familyOfModel('claude-sonnet-4-20250514'), FAMILIES.claude);
  assert.equal(familyOfModel('claude-opus-4-7@20260415'), FAMILIES.claude47);
  assert.equal(familyOfModel('claude-opus-5'), FAMILIES.claude47);
  assert.equal(familyOfModel('models/gemini-2.0-flash'), FAMILIES.gemini);
  assert.equal(familyOfModel('gpt-4.1'), FAMILIES.openai);
  assert.equal(familyOfModel('gpt-4'), FAMILIES.openaiCl100k);
  assert.equal(familyOfModel('gpt-35-turbo'), FAMILIES.openaiCl100k);
  assert.equal(familyOfModel('text-embedding-3-small'), FAMILIES.openaiCl100k);
  assert.equal(familyOfModel('o3-mini'), FAMILIES.openai);
  assert.equal(familyOfModel('deepseek-chat'), null);
  assert.equal(familyOf('my-alias', ChannelType.anthropic), FAMILIES.claude);
  assert.equal(familyOf('my-alias', ChannelType.vertex), FAMILIES.gemini);
  assert.equal(familyOf('deepseek-chat', ChannelType.openai), FAMILIES.other);
  const body = openaiBody('m', text('code.txt'));
  const both = await estimateInput(body, [FAMILIES.openai, FAMILIES.claude]);
  assert.equal(both, await estimateInput(body, [FAMILIES.claude]));
  assert.ok(both > (await estimateInput(body, [FAMILIES.openai])));
});

test('the text of a body: strings the model reads, not media, URLs, file references, roles or the model; schemas as JSON; token arrays', () => {
  const png = 'iVBORw0KGgo' + 'A'.repeat(4000);
  const t = bodyText({
    model: 'gpt-4o',
    system: 'Be brief.',
    tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
        ],
      },
      { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }] },
      { role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] },
    ],
    temperature: 0.5,
  });
  assert.equal(t.messages, 4);
  assert.equal(t.tools, true);
  assert.equal(t.tokenIds, 0);
  assert.ok(t.text.includes('Be brief.') && t.text.includes('What is this?') && t.text.includes('"properties":{"city"'));
  assert.ok(!t.text.includes('AAAA') && !t.text.includes('file-abc') && !t.text.includes('gpt-4o') && !t.text.includes('user'), t.text);
  assert.equal(
    bodyText({
      model: 'text-embedding-3-small',
      input: [
        [1, 2, 3],
        [4, 5],
      ],
    }).tokenIds,
    5,
  );
  // A tool call's arguments are read as JSON, keys and numbers too.
  const call = bodyText({
    messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: { city: 'Paris', days: 3 } }] }],
  });
  assert.ok(call.text.includes('{"city":"Paris","days":3}'), call.text);
});

test('the estimate never exceeds the byte bound it replaces for ordinary text, and a long text is measured off the event loop alike', async () => {
  for (const c of CORPORA) {
    const body = openaiBody('claude-opus-4-7', text(c));
    const raw = Buffer.byteLength(JSON.stringify(body));
    const bound = textBound(raw, scanBody(body), false);
    assert.ok((await estimateInput(body, [FAMILIES.claude47])) < bound, c);
  }
  const long = (text('english.txt') + text('chinese.txt')).repeat(Math.ceil((INLINE_MAX * 2) / 3000));
  assert.ok(long.length > INLINE_MAX);
  const m = await measureText(long);
  assert.deepEqual(m, { tokens: countInRuns(o200k.countTokens, long), cjk: cjkChars(long) });
  assert.equal((await measureText(long, 'cl100k_base')).tokens, countInRuns(cl100k.countTokens, long));
});

test('long runs without white space are measured in pieces: never fewer tokens, and no quadratic tokenization', async () => {
  for (const c of CORPORA) {
    const t = text(c);
    assert.ok(countInRuns(o200k.countTokens, t) >= o200k.countTokens(t), c);
  }
  assert.equal(countInRuns(o200k.countTokens, text('english.txt')), o200k.countTokens(text('english.txt')), 'prose has no such run');
  // Whole, these take o200k_base tens of seconds (200,000 × "x") and seconds (16,000 CJK without punctuation).
  const xs = 'x'.repeat(200_000);
  const piece = o200k.countTokens('x'.repeat(MAX_RUN));
  assert.equal((await measureText(xs)).tokens, (200_000 / MAX_RUN) * piece);
  const cjk = Array.from({ length: 16_000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join('');
  const m = await measureText(cjk);
  assert.equal(m.cjk, 16_000);
  assert.ok(m.tokens >= 16_000, String(m.tokens));
  assert.deepEqual(await measureText(cjk.slice(0, 10_000)), { tokens: countInRuns(o200k.countTokens, cjk.slice(0, 10_000)), cjk: 10_000 });
});
