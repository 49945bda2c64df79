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

before(async () => {
  gw = await startConsoleGateway();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
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

  problems.assertNone('guardrails');
});
