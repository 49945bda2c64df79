/**
 * Guardrails in the browser (docs/guardrails.md): root installs the PII-masking example from its
 * source on the Guardrails page, checks a sample text against it and sees the mask, sees a refused
 * source's reason, and saves a binding that the gateway then holds as its Guardrails option.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../../gateway/test/fakes/upstreams/openai.ts';
import {
  Api,
  assertAccessible,
  expectPage,
  expectText,
  launchBrowser,
  navLink,
  ROOT,
  rootSession,
  screenshot,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
} from './support.ts';

const L = 'en';
const PII = readFileSync(join(ROOT, 'examples/guardrails/pii-mask.js'), 'utf8');

let gw: ConsoleGateway;
let browser: Browser;
let oa: FakeOpenAI;

before(async () => {
  gw = await startConsoleGateway();
  browser = await launchBrowser();
  oa = await startFakeOpenAI();
});

after(async () => {
  await browser?.close();
  await gw?.close();
  await oa?.close();
});

test('guardrails: install from source, test against a sample text, bind', async () => {
  const { page, problems } = await rootSession(browser, gw.url, L);
  await navLink(page, L, 'nav.guardrails').click();
  await expectPage(page, L, 'nav.guardrails');
  const installed = page.getByRole('table', { name: tr(L, 'guardrails.installed') });
  await expectText(installed, tr(L, 'guardrails.none'));
  await assertAccessible(page, 'guardrails');

  // ---- a source the gateway refuses: its reason is shown
  problems.allow('/api/plugin/guardrail', 400);
  const source = page.getByLabel(tr(L, 'guardrails.source'));
  await source.fill(PII.replace('export function check', 'export function inspect'));
  await page.getByRole('button', { name: tr(L, 'guardrails.installSubmit') }).click();
  await expectText(page.getByRole('alert').filter({ hasText: 'inspect' }), 'a guardrail exports only meta and check');

  // ---- the example, installed and serving
  await source.fill(PII);
  await page.getByRole('button', { name: tr(L, 'guardrails.installSubmit') }).click();
  const row = installed.getByRole('row', { name: /pii-mask/ });
  await expectText(row, '1.0.0');
  await expectText(row, tr(L, 'status.registered'));

  // ---- a sample text checked against it
  await row.click();
  await page.getByLabel(tr(L, 'guardrails.sample')).fill('write to john@example.com or call +1 415-555-0134');
  await page.getByRole('button', { name: tr(L, 'guardrails.run') }).click();
  const result = page.getByRole('region', { name: tr(L, 'guardrails.result') });
  await expectText(result, 'mask');
  await expectText(result, 'write to [EMAIL] or call [PHONE]');
  await screenshot(page, 'guardrails-test');

  // ---- a binding, saved as the Guardrails option
  const binding = [{ plugin: 'pii-mask', stage: 'both', models: ['gpt-4o'], on_error: 'block' }];
  await page.getByLabel(tr(L, 'guardrails.bindingsLabel')).fill(JSON.stringify(binding));
  await page.getByRole('button', { name: tr(L, 'common.save') }).click();
  await page.getByText(tr(L, 'common.saved')).first().waitFor();
  const api = await Api.login(gw.url);
  const options = await api.ok<Array<{ key: string; value: string }>>('GET', '/api/option');
  assert.deepEqual(JSON.parse(options.find((o) => o.key === 'Guardrails')!.value), binding);

  // ---- a call the binding applies to: its verdict is on the dashboard's guardrail card
  await api.ok('POST', '/api/channel', {
    name: 'chat',
    type: 'openai',
    base_url: oa.url,
    keys: ['k'],
    models: ['gpt-4o'],
    groups: ['default'],
  });
  await api.ok('PUT', '/api/price', { model: 'gpt-4o', input: 1, output: 1 });
  await api.ok('POST', '/api/user', { username: 'carol', password: 'carol-password-1', quota_usd: 10 });
  const carol = await Api.login(gw.url, 'carol', 'carol-password-1');
  const { key } = await carol.ok<{ key: string }>('POST', '/api/token', { name: 'carol-key' });
  const answer = await api.call(
    'POST',
    '/v1/chat/completions',
    { model: 'gpt-4o', messages: [{ role: 'user', content: 'echo:ok' }] },
    { authorization: `Bearer ${key}` },
  );
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  await navLink(page, L, 'nav.dashboard').click();
  await expectPage(page, L, 'nav.dashboard');
  const card = page.getByRole('table', { name: tr(L, 'guardrails.verdicts') });
  const counted = card.getByRole('row', { name: /pii-mask/ });
  await expectText(counted, 'pii-mask');
  // allow on the input and on the output
  await expectText(counted, /pii-mask\s*2\s*0\s*0\s*0\s*0/);
  problems.assertNone('guardrails');
});
