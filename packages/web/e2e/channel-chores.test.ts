/**
 * The channel chores and the public price list in a browser: on the Channels page an operator reads a
 * vendor's balance, syncs the model list (the difference shown, applied in one action) and tests every
 * model (each result in the detail drawer); a visitor without a session sees the models and prices page
 * only while PublicPricingEnabled is on.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import {
  Api,
  assertAccessible,
  expectPage,
  expectText,
  launchBrowser,
  navLink,
  newContext,
  PageProblems,
  rootSession,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
} from './support.ts';

const L = 'en';

let gw: ConsoleGateway;
let browser: Browser;
let vendor: Server;
let vendorUrl = '';

before(async () => {
  // An OpenAI-compatible reseller: its billing endpoints, its model list and chat.
  vendor = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    req.resume();
    req.on('end', () => {
      if (path === '/v1/dashboard/billing/subscription') return send(200, { hard_limit_usd: 20 });
      if (path === '/v1/dashboard/billing/usage') return send(200, { total_usage: 750 });
      if (path === '/v1/models') return send(200, { data: [{ id: 'e2e-a' }, { id: 'e2e-new' }] });
      if (path === '/v1/chat/completions')
        return send(200, {
          id: 'x',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        });
      send(404, { error: { message: 'not here' } });
    });
  });
  await new Promise<void>((ok) => vendor.listen(0, '127.0.0.1', ok));
  vendorUrl = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;
  gw = await startConsoleGateway();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
  await new Promise((ok) => vendor?.close(ok));
});

test('channels page: balance read, models synced through the difference, every model tested', async () => {
  const api = await Api.login(gw.url);
  const made = await api.ok('POST', '/api/channel', {
    name: 'reseller-e2e',
    type: 'openai',
    base_url: vendorUrl,
    keys: ['sk-e2e-reseller'],
    models: ['e2e-a', 'e2e-old'],
    tag: 'resellers',
  });
  const { page, problems } = await rootSession(browser, gw.url, L);
  await navLink(page, L, 'nav.channels').click();
  await expectPage(page, L, 'nav.channels');
  const row = page.getByRole('row').filter({ hasText: 'reseller-e2e' });
  await expectText(row, /resellers/);
  await assertAccessible(page, 'channels page with tags and balances');

  const more = () => page.getByRole('button', { name: tr(L, 'channels.moreNamed', { name: 'reseller-e2e' }) }).click();
  await more();
  await page.getByRole('menuitem', { name: tr(L, 'channels.updateBalance') }).click();
  await expectText(row, /12\.50/);

  await more();
  await page.getByRole('menuitem', { name: tr(L, 'channels.syncModels') }).click();
  const dialog = page.getByRole('dialog', { name: tr(L, 'channels.syncTitle', { name: 'reseller-e2e' }) });
  await expectText(dialog.getByLabel(tr(L, 'channels.syncAdded')), 'e2e-new');
  await expectText(dialog.getByLabel(tr(L, 'channels.syncRemoved')), 'e2e-old');
  await dialog.getByRole('button', { name: tr(L, 'channels.syncApply') }).click();
  await dialog.waitFor({ state: 'hidden' });
  assert.deepEqual((await api.ok('GET', `/api/channel/${made.id}`)).models, ['e2e-a', 'e2e-new']);

  await more();
  await page.getByRole('menuitem', { name: tr(L, 'channels.testModels') }).click();
  const drawer = page.getByRole('dialog', { name: 'reseller-e2e' });
  const results = drawer.getByRole('table').filter({ hasText: 'e2e-new' });
  await expectText(results, /e2e-a/);
  assert.equal(await results.getByText(tr(L, 'channels.ok'), { exact: true }).count(), 2);
  assert.equal((await api.ok('GET', `/api/channel/${made.id}`)).last_test.results.length, 2);
  await page.keyboard.press('Escape');
  await drawer.waitFor({ state: 'hidden' });

  // Every channel of the tag edited at once.
  await more();
  await page.getByRole('menuitem', { name: tr(L, 'channels.editTag', { tag: 'resellers' }) }).click();
  const tagForm = page.getByRole('dialog', { name: tr(L, 'channels.editTag', { tag: 'resellers' }) });
  await tagForm.getByLabel(tr(L, 'channels.priority')).fill('5');
  await tagForm.getByRole('button', { name: tr(L, 'common.save') }).click();
  await tagForm.waitFor({ state: 'hidden' });
  assert.equal((await api.ok('GET', `/api/channel/${made.id}`)).priority, 5);
  problems.assertNone('channels: balance, model sync, test of every model');
});

test('the public models and prices page: without a session, only while the option is on', async () => {
  const api = await Api.login(gw.url);
  await api.ok('POST', '/api/channel', {
    name: 'public-e2e',
    type: 'openai',
    base_url: vendorUrl,
    keys: ['sk-e2e-public'],
    models: ['pub-model', 'pub-unpriced'],
    groups: ['default', 'vip'],
  });
  await api.ok('PUT', '/api/price', { model: 'pub-model', input: 2, output: 4 });
  await api.ok('PUT', '/api/group_ratio', { group: 'vip', ratio: 0.5 });

  const ctx = await newContext(browser, gw.url, L);
  const page = await ctx.newPage();
  const problems = new PageProblems(page);
  problems.allow('/api/pricing', 404);
  assert.equal((await fetch(`${gw.url}/api/pricing`)).status, 404, 'off by default');
  await page.goto('/pricing');
  await expectText(page.getByRole('status'), tr(L, 'pricing.off'));
  assert.equal(new URL(page.url()).pathname, '/pricing', 'no detour to the login page');

  await api.ok('PUT', '/api/option', { options: { PublicPricingEnabled: true } });
  const open = (await (await fetch(`${gw.url}/api/pricing`)).json()) as {
    data: { models: Array<{ model: string; prices: Record<string, unknown> }> };
  };
  assert.deepEqual(
    open.data.models.find((m) => m.model === 'pub-model')!.prices.vip,
    { input: 1, output: 2, cached_input: 1, per_request: null },
    'the group ratio applied',
  );
  await page.reload();
  const table = page.getByRole('table', { name: tr(L, 'pricing.title') });
  const vip = table.getByRole('row').filter({ hasText: 'vip' }).filter({ hasText: 'pub-model' });
  await expectText(vip, /\$1.*\$2/);
  await expectText(table.getByRole('row').filter({ hasText: 'default' }).filter({ hasText: 'pub-model' }), /\$2.*\$4/);
  assert.equal(await table.getByText('pub-unpriced').count(), 0, 'a model without a price is not listed');
  assert.equal(new URL(page.url()).pathname, '/pricing');
  await assertAccessible(page, 'public pricing');
  problems.assertNone('public pricing');
  await ctx.close();
});
