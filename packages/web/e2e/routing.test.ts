/**
 * Routing in the console: a channel's caps (max concurrency, max input tokens) are set in the channel
 * form and saved on the channel; the balancing strategies and fallbacks are edited as JSON on the
 * settings page, where a value the gateway refuses shows its message and a good one is stored.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import {
  Api,
  eventually,
  expectPage,
  expectText,
  label,
  launchBrowser,
  navLink,
  rootSession,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
} from './support.ts';

const L = 'en';

let gw: ConsoleGateway;
let browser: Browser;

before(async () => {
  gw = await startConsoleGateway();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
});

test("a channel's caps are set in the channel form", async () => {
  const api = await Api.login(gw.url);
  const made = await api.ok('POST', '/api/channel', { name: 'caps-e2e', type: 'openai', keys: ['sk-e2e'], models: ['caps-model'] });
  const { page, problems } = await rootSession(browser, gw.url, L);
  await navLink(page, L, 'nav.channels').click();
  await expectPage(page, L, 'nav.channels');
  await page.getByRole('button', { name: tr(L, 'channels.moreNamed', { name: 'caps-e2e' }) }).click();
  await page.getByRole('menuitem', { name: tr(L, 'common.edit') }).click();
  const form = page.getByRole('dialog', { name: tr(L, 'channels.editTitle', { name: 'caps-e2e' }) });
  const conc = form.getByLabel(label(L, 'channels.maxConcurrency'));
  assert.equal(await conc.inputValue(), '0');
  await conc.fill('12');
  await form.getByLabel(label(L, 'channels.maxInputTokens')).fill('64000');
  await form.getByRole('button', { name: tr(L, 'common.save') }).click();
  await form.waitFor({ state: 'hidden' });
  const saved = await api.ok('GET', `/api/channel/${made.id}`);
  assert.equal(saved.max_concurrency, 12);
  assert.equal(saved.max_input_tokens, 64000);
  problems.assertNone('channels: caps');
});

test('routing strategies and fallbacks are edited as JSON in the settings, checked by the gateway', async () => {
  const { page, problems } = await rootSession(browser, gw.url, L);
  await navLink(page, L, 'nav.settings').click();
  await expectPage(page, L, 'nav.settings');
  const table = page.getByRole('table', { name: tr(L, 'nav.settings') });
  problems.allow('/api/option', 400);
  const routing = table.getByRole('textbox', { name: 'ChannelRouting' });
  await routing.fill('{"*": {"gpt-4o": "fastest"}}');
  await page.getByRole('button', { name: tr(L, 'settings.save') }).click();
  await expectText(page.getByRole('alert').first(), /must be one of priority, least_busy, latency, cost/);
  await routing.fill('{"*": {"gpt-4o": "latency"}}');
  await table.getByRole('textbox', { name: 'ModelFallbacks' }).fill('{"gpt-4o-mini": [{"model": "gpt-4o", "on": ["context_length"]}]}');
  await page.getByRole('button', { name: tr(L, 'settings.save') }).click();
  const api = await Api.login(gw.url);
  await eventually(async () => {
    const opts: { key: string; value: string }[] = await api.ok('GET', '/api/option');
    const v = Object.fromEntries(opts.map((o) => [o.key, o.value]));
    assert.deepEqual(JSON.parse(v.ChannelRouting), { '*': { 'gpt-4o': 'latency' } });
    assert.deepEqual(JSON.parse(v.ModelFallbacks), { 'gpt-4o-mini': [{ model: 'gpt-4o', on: ['context_length'] }] });
  });
  problems.assertNone('settings: routing');
});
