/**
 * An operator's and a user's first hour, in English and in Chinese (the browser's language):
 * - root's own balance is 0: the playground's refusal links to root's top-up, which opens on the Users page;
 *   after it the playground answers;
 * - a key for another user is made by picking the user by name and the models from the channels' models; the
 *   dialog that shows the key once shows where to send calls and examples, and the curl and Node.js (OpenAI SDK)
 *   examples, run as shown, get an answer; a price's model is picked from the channels' models;
 * - the Logs page totals what calls cost apart from the top-up, and names the channel;
 * - the audit log shows the top-up in dollars and the user by name;
 * - Settings: on/off options are switches, numbers carry their unit, a money option is in dollars, and (in Chinese)
 *   every description is Chinese; the saved values reach the gateway;
 * - the channel form shows where a chat call will go as the base URL is typed (/v1 added or not);
 * - a user's overview and My keys show the address to call: the address the browser used (English run) or
 *   PUBLIC_URL (Chinese run, another name of the same gateway).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../../gateway/test/fakes/upstreams/openai.ts';
import {
  Api,
  assertAccessible,
  eventually,
  expectPage,
  expectText,
  label,
  launchBrowser,
  login,
  navLink,
  newContext,
  PageProblems,
  ROOT,
  rootSession,
  screenshot,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
  type Lang,
} from './support.ts';

const run = promisify(execFile);
const MODEL = 'gpt-first';
const UNPRICED = 'gpt-second';
// $1000 per 1M input tokens and $2000 per 1M output: the loopback vendor's 11 + 7 tokens cost $0.025.
const CALL_COST = '$0.025';

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Picks an option of an open Mantine dropdown by its visible text. */
async function pick(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('option', { name }).click();
}

for (const L of ['en', 'zh-CN'] as Lang[]) {
  describe(`first hour (${L})`, () => {
    let gw: ConsoleGateway;
    let vendor: FakeOpenAI;
    let browser: Browser;
    /** Where callers are told to send calls: the browser's address in English, PUBLIC_URL in Chinese. */
    let address: string;

    before(async () => {
      vendor = await startFakeOpenAI();
      if (L === 'en') {
        gw = await startConsoleGateway();
        address = gw.url;
      } else {
        const port = await freePort();
        address = `http://localhost:${port}`;
        gw = await startConsoleGateway({ PORT: String(port), PUBLIC_URL: address });
        assert.notEqual(new URL(gw.url).hostname, 'localhost', 'the browser uses another name than PUBLIC_URL');
      }
      browser = await launchBrowser();
      const api = await Api.login(gw.url);
      await api.ok('POST', '/api/channel', {
        name: 'loop',
        type: 'openai',
        base_url: vendor.url,
        keys: ['sk-v'],
        models: [MODEL, UNPRICED],
      });
      await api.ok('PUT', '/api/price', { model: MODEL, input: 1000, output: 2000 });
      await api.ok('POST', '/api/user', { username: 'dana', password: 'dana-password-1', quota_usd: 5 });
    });

    after(async () => {
      await browser?.close();
      await gw?.close();
      await vendor?.close();
    });

    test('root tops up its own balance from the playground, then chats', async () => {
      const { page, problems } = await rootSession(browser, gw.url, L);
      problems.allow('/pg/chat/completions', 429);
      await navLink(page, L, 'nav.playground').click();
      await expectPage(page, L, 'nav.playground');
      const compose = page.getByRole('form', { name: tr(L, 'playground.compose') });
      await compose.getByLabel(label(L, 'playground.message')).fill('Hello');
      await compose.getByRole('button', { name: tr(L, 'playground.send') }).click();
      const alert = page.getByRole('alert').filter({ hasText: tr(L, 'playground.failed') });
      await expectText(alert, tr(L, 'playground.lowBalanceRoot'));
      await screenshot(page, `${L}-playground-low-balance`);
      await alert.getByRole('link', { name: tr(L, 'playground.topUpSelf') }).click();

      await expectPage(page, L, 'nav.users');
      const dialog = page.getByRole('dialog', { name: tr(L, 'users.quotaTitle', { name: 'root' }) });
      await dialog.getByLabel(label(L, 'users.amountAdd')).fill('20');
      await dialog.getByRole('button', { name: tr(L, 'common.save') }).click();
      await dialog.waitFor({ state: 'hidden' });
      assert.equal(new URL(page.url()).search, '', 'the link is used once');

      await navLink(page, L, 'nav.playground').click();
      await compose.getByLabel(label(L, 'playground.message')).fill('Hello');
      await compose.getByRole('button', { name: tr(L, 'playground.send') }).click();
      await expectText(page.getByRole('log', { name: tr(L, 'playground.conversation') }), 'Hello world');
      problems.assertNone('playground and top-up');
    });

    test("a key for another user, picked by name, with the channels' models; its dialog shows how to call, and the examples work", async () => {
      const { page, problems } = await rootSession(browser, gw.url, L);
      await navLink(page, L, 'nav.allKeys').click();
      await expectPage(page, L, 'nav.allKeys');
      await page.getByRole('button', { name: tr(L, 'keys.create') }).click();
      const form = page.getByRole('dialog', { name: tr(L, 'keys.create') });
      await form.getByLabel(label(L, 'keys.name')).fill('dana-laptop');
      await form.getByLabel(label(L, 'keys.user')).fill('dan');
      await pick(page, 'dana (#2)');
      await form.getByLabel(label(L, 'keys.models')).fill('gpt-f');
      await pick(page, MODEL);
      await assertAccessible(page, 'key form with pickers');
      await form.getByRole('button', { name: tr(L, 'common.save') }).click();

      const shown = page.getByRole('dialog', { name: tr(L, 'keys.createdTitle') });
      const key = await shown.getByRole('textbox', { name: tr(L, 'keys.newKey') }).inputValue();
      assert.match(key, /^sk-/);
      assert.equal(await shown.getByRole('textbox', { name: tr(L, 'access.baseUrl') }).inputValue(), `${address}/v1`);
      const curl = (await shown.getByLabel(tr(L, 'access.exampleNamed', { name: 'curl' }), { exact: true }).textContent()) ?? '';
      assert.ok(curl.startsWith(`export GATEHOUSE_API_KEY=${key}\ncurl ${address}/v1/chat/completions`), curl);
      await assertAccessible(page, 'new key dialog with examples');
      await screenshot(page, `${L}-key-created`);
      // The examples as shown, run: curl in a shell, the Node.js one with the OpenAI SDK.
      // (Not in a synchronous child: the loopback vendor answers from this process.)
      const answer = JSON.parse((await run('bash', ['-c', curl])).stdout);
      assert.equal(answer.choices[0].message.content, 'Hello world');
      const nodeTab = tr(L, 'access.node');
      await shown.getByRole('tab', { name: nodeTab }).click();
      const program = (await shown.getByLabel(tr(L, 'access.exampleNamed', { name: nodeTab }), { exact: true }).textContent()) ?? '';
      const printed = await run(process.execPath, ['--input-type=module', '-e', program], {
        cwd: ROOT,
        env: { ...process.env, GATEHOUSE_API_KEY: key },
      });
      assert.equal(printed.stdout.trim(), 'Hello world');
      await shown.getByRole('button', { name: tr(L, 'keys.stored') }).click();

      const api = await Api.login(gw.url);
      const keys = await api.ok('GET', '/api/token?user_id=2');
      assert.deepEqual(
        keys.items.map((k: { name: string; models: string[] }) => [k.name, k.models]),
        [['dana-laptop', [MODEL]]],
      );

      // A price's model, picked from the channels' models.
      await navLink(page, L, 'nav.prices').click();
      await expectPage(page, L, 'nav.prices');
      await page.getByRole('button', { name: tr(L, 'prices.create') }).click();
      const priceForm = page.getByRole('dialog', { name: tr(L, 'prices.create') });
      await priceForm.getByLabel(label(L, 'prices.model')).fill('second');
      await pick(page, UNPRICED);
      await priceForm.getByLabel(label(L, 'prices.input')).fill('1');
      await priceForm.getByLabel(label(L, 'prices.output')).fill('2');
      await priceForm.getByRole('button', { name: tr(L, 'common.save') }).click();
      await priceForm.waitFor({ state: 'hidden' });
      assert.equal((await api.ok('GET', `/api/price/${UNPRICED}`)).input, 1);
      problems.assertNone('keys and prices');
    });

    test('the Logs totals keep calls and top-ups apart and name the channel; the audit log shows dollars and names', async () => {
      const { page, problems } = await rootSession(browser, gw.url, L);
      await navLink(page, L, 'nav.logs').click();
      await expectPage(page, L, 'nav.logs');
      const filters = page.getByRole('search', { name: tr(L, 'logs.filters') });
      await filters.getByLabel(label(L, 'logs.user')).fill('roo');
      await pick(page, 'root (#1)');
      await filters.getByRole('button', { name: tr(L, 'common.apply') }).click();
      const totals = page.getByRole('group', { name: tr(L, 'logs.totals') });
      await expectText(totals, tr(L, 'logs.totalCost', { cost: CALL_COST }));
      await expectText(totals, tr(L, 'logs.totalMoved', { count: 1, amount: '$20.00' }));
      const table = page.getByRole('table', { name: tr(L, 'logs.tableLabel') });
      await expectText(table.getByRole('row', { name: new RegExp(MODEL) }).first(), 'loop');
      await screenshot(page, `${L}-logs-totals`);

      // Dates are picked and shown in the console's language, not the browser's built-in (US) format.
      await filters.getByLabel(label(L, 'logs.from')).click();
      await page.getByRole('button', { name: /^15 / }).first().click();
      await page
        .getByRole('button', { name: tr(L, 'common.apply'), exact: true })
        .last()
        .click();
      const from = ((await filters.getByLabel(label(L, 'logs.from')).textContent()) ?? '').trim();
      assert.match(from, L === 'zh-CN' ? /^\d{4}年\d{1,2}月15日 \d{2}:\d{2}$/ : /^[A-Z][a-z]{2} 15, \d{4} \d{2}:\d{2}$/);

      // At a phone's width the type badges keep their whole word.
      await page.setViewportSize({ width: 390, height: 844 });
      const badge = table.locator('.mantine-Badge-root').first();
      await badge.waitFor();
      const fits = await badge.evaluate((el) => {
        const text = el.querySelector('.mantine-Badge-label')!;
        return text.scrollWidth <= text.clientWidth;
      });
      assert.ok(fits, 'the badge label is not cut');
      await page.setViewportSize({ width: 1366, height: 900 });

      await navLink(page, L, 'nav.audit').click();
      await expectPage(page, L, 'nav.audit');
      const audit = page.getByRole('table', { name: tr(L, 'nav.audit') });
      const topup = audit.getByRole('row').filter({ hasText: 'user.topup' });
      await expectText(topup, `${tr(L, 'audit.targets.user')} root`);
      await expectText(topup, /quota\s*\$0\.00\s*→\s*\$20\.00/);
      assert.ok(!((await topup.textContent()) ?? '').includes('10000000'), 'no quota units on screen');
      await expectText(audit.getByRole('row').filter({ hasText: 'user.create' }).first(), `${tr(L, 'audit.targets.user')} dana`);
      await assertAccessible(page, 'audit log');
      await screenshot(page, `${L}-audit-money`);
      problems.assertNone('logs and audit');
    });

    test('Settings: switches, numbers with units, money in dollars, descriptions in the language', async () => {
      const { page, problems } = await rootSession(browser, gw.url, L);
      await navLink(page, L, 'nav.settings').click();
      await expectPage(page, L, 'nav.settings');
      const table = page.getByRole('table', { name: tr(L, 'nav.settings') });
      const sw = table.getByRole('switch', { name: 'AutoDisableEnabled' });
      assert.equal(await sw.isChecked(), true);
      await sw.click({ force: true });
      const cooldown = table.getByRole('row').filter({ has: page.getByRole('textbox', { name: 'CooldownOn429Seconds' }) });
      await cooldown.getByText(tr(L, 'settings.units.seconds'), { exact: true }).waitFor();
      const money = table.getByRole('textbox', { name: 'QuotaForNewUser' });
      assert.equal(await money.inputValue(), '$0');
      await money.fill('1.5');
      if (L === 'zh-CN') {
        const docs = await table.locator('[data-doc]').allTextContents();
        assert.ok(docs.length >= 40, `${docs.length} options`);
        for (const d of docs) assert.match(d, /[\u4e00-\u9fff]/, `a Chinese description: ${d}`);
      }
      await assertAccessible(page, 'settings');
      await screenshot(page, `${L}-settings-typed`);
      await page.getByRole('button', { name: tr(L, 'settings.save') }).click();
      const api = await Api.login(gw.url);
      await eventually(async () => {
        const opts: { key: string; value: string }[] = await api.ok('GET', '/api/option');
        const v = Object.fromEntries(opts.map((o) => [o.key, o.value]));
        assert.equal(v.AutoDisableEnabled, 'false');
        assert.equal(v.QuotaForNewUser, '750000', 'USD 1.5 in quota units');
      });
      problems.assertNone('settings');
    });

    test('the channel form shows where chat calls go, /v1 added unless the address ends in a version', async () => {
      const { page, problems } = await rootSession(browser, gw.url, L);
      await navLink(page, L, 'nav.channels').click();
      await expectPage(page, L, 'nav.channels');
      await page.getByRole('button', { name: tr(L, 'channels.create') }).click();
      const form = page.getByRole('dialog', { name: tr(L, 'channels.create') });
      const resolved = form.getByTestId('resolved-url');
      await expectText(resolved, 'https://api.openai.com/v1/chat/completions');
      const base = form.getByLabel(label(L, 'channels.baseUrl'));
      await base.fill('https://llm.example.com/api');
      await expectText(resolved, 'https://llm.example.com/api/v1/chat/completions');
      await base.fill('https://open.example.cn/api/paas/v4');
      await expectText(resolved, 'https://open.example.cn/api/paas/v4/chat/completions');
      await expectText(form, tr(L, 'channels.baseUrlHintOpenai'));
      await screenshot(page, `${L}-channel-resolved-url`);
      problems.assertNone('channel form');
    });

    test("a user's overview and keys show the address to call", async () => {
      const ctx = await newContext(browser, gw.url, L);
      const page = await ctx.newPage();
      const problems = new PageProblems(page);
      await page.goto('/login');
      await login(page, L, 'dana', 'dana-password-1');
      await expectPage(page, L, 'nav.overview');
      const card = page.getByRole('region', { name: tr(L, 'access.title') });
      assert.equal(await card.getByRole('textbox', { name: tr(L, 'access.baseUrl') }).inputValue(), `${address}/v1`);
      await card.getByRole('link', { name: tr(L, 'access.toKeys') }).click();
      await expectPage(page, L, 'nav.keys');
      const keysCard = page.getByRole('region', { name: tr(L, 'access.title') });
      assert.equal(await keysCard.getByRole('textbox', { name: tr(L, 'access.baseUrl') }).inputValue(), `${address}/v1`);
      const curlBox = keysCard.getByLabel(tr(L, 'access.exampleNamed', { name: 'curl' }), { exact: true });
      // The examples name the first of the user's models once their list has loaded (a placeholder model before).
      await curlBox.filter({ hasText: `"model": "${MODEL}"` }).waitFor();
      const curl = (await curlBox.textContent()) ?? '';
      assert.ok(curl.includes(`${address}/v1/chat/completions`) && curl.includes(`"model": "${MODEL}"`), curl);
      // The key's own row opens the same examples.
      await page.getByRole('button', { name: tr(L, 'access.forKey', { name: 'dana-laptop' }) }).click();
      await page.getByRole('dialog', { name: tr(L, 'access.forKey', { name: 'dana-laptop' }) }).waitFor();
      await assertAccessible(page, 'my keys with the address');
      await screenshot(page, `${L}-my-keys-address`);
      problems.assertNone("a user's overview and keys");
      await ctx.close();
    });
  });
}
