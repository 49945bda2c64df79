/**
 * The price book in the console: a vendor's list price adopted from the catalog in one click, and the
 * price editor's preview of what a call would cost — a 250K-token call on Claude Sonnet 4.5 at its
 * long-context rates, then three web searches once the editor adds their price — exact to the unit.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import {
  Api,
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

test('adopting a list price from the catalog, then previewing what calls would cost', async () => {
  const api = await Api.login(gw.url);
  const { page, problems } = await rootSession(browser, gw.url, L);
  await navLink(page, L, 'nav.prices').click();
  await expectPage(page, L, 'nav.prices');

  await page.getByRole('tab', { name: tr(L, 'prices.catalog') }).click();
  await page.getByRole('button', { name: tr(L, 'prices.adoptNamed', { model: 'claude-sonnet-4-5' }) }).click();
  await page.getByText(tr(L, 'prices.catalogImported', { count: 1, kept: 0 })).waitFor();
  const adopted = await api.ok('GET', '/api/price/claude-sonnet-4-5');
  assert.deepEqual([adopted.input, adopted.output, adopted.tiers[0].above_input_tokens, adopted.web_search], [3, 15, 200_000, 10]);

  await page.getByRole('tab', { name: tr(L, 'prices.models') }).click();
  await page.getByRole('button', { name: tr(L, 'prices.editTitle', { model: 'claude-sonnet-4-5' }) }).click();
  const form = page.getByRole('dialog', { name: tr(L, 'prices.editTitle', { model: 'claude-sonnet-4-5' }) });
  const preview = form.getByRole('region', { name: tr(L, 'prices.preview') });
  await preview.getByLabel(label(L, 'prices.previewInput')).fill('250000');
  await preview.getByLabel(label(L, 'prices.previewOutput')).fill('2000');
  await preview.getByRole('button', { name: tr(L, 'prices.previewRun') }).click();
  // (250,000 × $6 + 2,000 × $22.50) / 1M: the whole call at the rates above 200K input tokens.
  await expectText(
    preview.getByRole('status'),
    `${tr(L, 'prices.previewResult', { usd: '$1.545', quota: '772,500' })} · ${tr(L, 'prices.previewTierReached', { above: '200,000' })}`,
  );

  // The price being edited, not the saved one: web searches at $12 per 1,000.
  await form.getByLabel(label(L, 'prices.rule.web_search')).fill('12');
  await preview.getByLabel(label(L, 'prices.previewInput')).fill('1000');
  await preview.getByLabel(label(L, 'prices.previewOutput')).fill('500');
  await preview.getByLabel(label(L, 'prices.previewSearches')).fill('3');
  await preview.getByRole('button', { name: tr(L, 'prices.previewRun') }).click();
  // 1,000 × $3 + 500 × $15 = $0.0105, plus 3 × $0.012.
  await expectText(preview.getByRole('status'), tr(L, 'prices.previewResult', { usd: '$0.0465', quota: '23,250' }));
  await form.getByRole('button', { name: tr(L, 'common.save') }).click();
  await form.waitFor({ state: 'hidden' });
  assert.equal((await api.ok('GET', '/api/price/claude-sonnet-4-5')).web_search, 12, 'the override is saved over the list price');
  problems.assertNone('prices: catalog and preview');
});
