/**
 * The prompt cache on the dashboards: calls through the gateway to a loopback vendor that reports cached
 * prompt tokens, then root's dashboard shows the cache hit rate (cached ÷ prompt tokens), the saving
 * against uncached prices and each model's hit rate in the top models, and the user's overview shows
 * their own hit rate.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../../gateway/test/fakes/upstreams/openai.ts';
import {
  Api,
  assertAccessible,
  expectPage,
  expectText,
  eventually,
  launchBrowser,
  login,
  newContext,
  PageProblems,
  rootSession,
  screenshot,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
} from './support.ts';

const L = 'en';
const CACHED = 'e2e-cached';
const PLAIN = 'e2e-plain';
const USER = { username: 'cora', password: 'cora-password-1' };

let gw: ConsoleGateway;
let vendor: FakeOpenAI;
let browser: Browser;

before(async () => {
  vendor = await startFakeOpenAI();
  // Calls of CACHED read 800 of their 1,000 prompt tokens from the vendor's cache; calls of PLAIN read none.
  vendor.override = (r, res: ServerResponse) => {
    if (!r.path.endsWith('/chat/completions')) return false;
    const cached = r.body.model === CACHED ? 800 : 0;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-cache',
        object: 'chat.completion',
        created: 1,
        model: r.body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010, prompt_tokens_details: { cached_tokens: cached } },
      }),
    );
    return true;
  };
  gw = await startConsoleGateway();
  const api = await Api.login(gw.url);
  await api.ok('POST', '/api/channel', {
    name: 'loopback',
    type: 'openai',
    base_url: `${vendor.url}/v1`,
    keys: ['sk-vendor'],
    models: [CACHED, PLAIN],
    groups: ['default'],
  });
  // Cached input at a quarter of the input price: each CACHED call saves 800 × (2 − 0.5) / 1M = $0.0012.
  await api.ok('PUT', '/api/price', { model: CACHED, input: 2, output: 8, cached_input: 0.5 });
  await api.ok('PUT', '/api/price', { model: PLAIN, input: 2, output: 8 });
  await api.ok('POST', '/api/user', { ...USER, quota_usd: 20 });
  const user = await Api.login(gw.url, USER.username, USER.password);
  const key = (await user.ok<{ key: string }>('POST', '/api/token', { name: 'agent' })).key;
  for (const model of [CACHED, CACHED, PLAIN]) {
    const r = await user.call(
      'POST',
      '/v1/chat/completions',
      { model, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
  await vendor?.close();
});

/** Waits until the stat card `key` reads `value`, refreshing the report while the last log rows are written. */
async function expectCard(page: Page, key: string, value: string): Promise<void> {
  const card = page.getByRole('group', { name: tr(L, key), exact: true });
  await eventually(
    async () => {
      const text = await card.innerText();
      if (!new RegExp(`${value.replace(/[$.]/g, '\\$&')}(?![\\d.])`).test(text)) {
        const refresh = page.getByRole('button', { name: tr(L, 'common.refresh') });
        if (await refresh.count()) await refresh.click();
        else await page.reload();
        throw new Error(`${key} card says ${JSON.stringify(text)}`);
      }
    },
    20_000,
    `${key} card`,
  );
}

test('dashboard: the cache hit rate, the saving against uncached prices and each model hit rate; the user sees their own', async () => {
  const { page, problems } = await rootSession(browser, gw.url, L);
  // 1,600 of 3,000 prompt tokens read from the cache.
  await expectCard(page, 'usage.cacheHitRate', '53.3%');
  await expectText(page.getByRole('group', { name: tr(L, 'usage.cacheHitRate'), exact: true }), '1,600 of 3,000');
  await expectCard(page, 'usage.cacheSaving', '$0.0024');
  const topModels = page.getByRole('table', { name: tr(L, 'usage.top.model') });
  await expectText(topModels.getByRole('row', { name: new RegExp(CACHED) }), /80\.0%\s*\$0\.00\s*\$0\.0024/);
  await expectText(topModels.getByRole('row', { name: new RegExp(PLAIN) }), '0.00%');
  await page.getByRole('region', { name: tr(L, 'usage.cacheOverTime') }).waitFor();
  await assertAccessible(page, 'dashboard with the prompt cache');
  await screenshot(page, 'cache-dashboard');
  problems.assertNone('root: dashboard');

  const ctx = await newContext(browser, gw.url, L);
  const mine = await ctx.newPage();
  const userProblems = new PageProblems(mine);
  await mine.goto('/login');
  await login(mine, L, USER.username, USER.password);
  await expectPage(mine, L, 'nav.overview');
  await expectCard(mine, 'usage.cacheHitRate', '53.3%');
  await expectText(mine.getByRole('table', { name: tr(L, 'usage.top.model') }).getByRole('row', { name: new RegExp(CACHED) }), '80.0%');
  userProblems.assertNone('user: overview');
  await ctx.close();
});
