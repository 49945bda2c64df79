/**
 * Editing a channel in the console keeps what the form does not show: a Vertex AI channel made through
 * the API with a region and a project is renamed on the Channels page; its region shows in the form,
 * and the saved channel still has both settings. The prompt cache of an Anthropic channel (its
 * lifetime, then off) is set in the same form and saved as the channel's settings. An Azure channel
 * saved without a base URL is refused by the gateway's own check, and the refusal shows beside the base
 * URL input (the server's message in English, its code's translation in Chinese).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import type { Browser, Locator } from 'playwright-core';
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
  type Lang,
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

/** A Google service-account key (never used to call Google here). */
function serviceAccount(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return JSON.stringify({
    type: 'service_account',
    project_id: 'proj-key',
    private_key_id: 'key-e2e',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: 'e2e@proj-key.iam.gserviceaccount.com',
    token_uri: 'https://oauth2.googleapis.com/token',
  });
}

test('renaming a Vertex AI channel in the console keeps its region and project', async () => {
  const api = await Api.login(gw.url);
  const made = await api.ok('POST', '/api/channel', {
    name: 'vertex-e2e',
    type: 'vertex',
    keys: [serviceAccount()],
    models: ['gemini-e2e'],
    settings: { region: 'us-east5', project_id: 'proj-settings' },
  });

  const { page, problems } = await rootSession(browser, gw.url, L);
  await navLink(page, L, 'nav.channels').click();
  await expectPage(page, L, 'nav.channels');
  await page.getByRole('button', { name: tr(L, 'channels.moreNamed', { name: 'vertex-e2e' }) }).click();
  await page.getByRole('menuitem', { name: tr(L, 'common.edit') }).click();
  const form = page.getByRole('dialog', { name: tr(L, 'channels.editTitle', { name: 'vertex-e2e' }) });
  const region = form.getByLabel(label(L, 'channels.region'));
  assert.equal(await region.inputValue(), 'us-east5', 'the region shows in the form');
  await form.getByLabel(label(L, 'channels.name')).fill('vertex-renamed');
  await form.getByRole('button', { name: tr(L, 'common.save') }).click();
  await form.waitFor({ state: 'hidden' });

  const saved = await api.ok('GET', `/api/channel/${made.id}`);
  assert.equal(saved.name, 'vertex-renamed');
  assert.deepEqual(saved.settings, { region: 'us-east5', project_id: 'proj-settings' }, 'settings the form does not show are kept');
  problems.assertNone('channels: edit a Vertex channel');
});

test('the prompt cache of an Anthropic channel is set in the console: one-hour lifetime, then off', async () => {
  const api = await Api.login(gw.url);
  const made = await api.ok('POST', '/api/channel', {
    name: 'claude-e2e',
    type: 'anthropic',
    keys: ['sk-ant-e2e'],
    models: ['claude-e2e'],
  });

  const { page, problems } = await rootSession(browser, gw.url, L);
  await navLink(page, L, 'nav.channels').click();
  await expectPage(page, L, 'nav.channels');
  const edit = async () => {
    await page.getByRole('button', { name: tr(L, 'channels.moreNamed', { name: 'claude-e2e' }) }).click();
    await page.getByRole('menuitem', { name: tr(L, 'common.edit') }).click();
    return page.getByRole('dialog', { name: tr(L, 'channels.editTitle', { name: 'claude-e2e' }) });
  };
  let form = await edit();
  assert.equal(
    await form.getByLabel(label(L, 'channels.promptCache')).inputValue(),
    tr(L, 'channels.promptCacheAuto'),
    'automatic by default',
  );
  await form.getByLabel(label(L, 'channels.promptCacheTtl')).click();
  await page.getByRole('option', { name: tr(L, 'channels.ttl1h') }).click();
  await form.getByRole('button', { name: tr(L, 'common.save') }).click();
  await form.waitFor({ state: 'hidden' });
  assert.deepEqual((await api.ok('GET', `/api/channel/${made.id}`)).settings, { prompt_cache_ttl: '1h' });

  form = await edit();
  await form.getByLabel(label(L, 'channels.promptCache')).click();
  await page.getByRole('option', { name: tr(L, 'channels.promptCacheOff') }).click();
  await form.getByRole('button', { name: tr(L, 'common.save') }).click();
  await form.waitFor({ state: 'hidden' });
  assert.deepEqual((await api.ok('GET', `/api/channel/${made.id}`)).settings, { prompt_cache: 'off', prompt_cache_ttl: '1h' });
  problems.assertNone('channels: prompt cache of an Anthropic channel');
});

/** The error shown beside an input: the element its `aria-describedby` names for its error, once the input is invalid. */
async function errorBeside(form: Locator, input: Locator): Promise<Locator> {
  await input.and(form.locator('[aria-invalid="true"]')).waitFor();
  const ids = ((await input.getAttribute('aria-describedby')) ?? '').split(/\s+/);
  const id = ids.find((x) => x.endsWith('-error'));
  assert.ok(id, `the input names its error: ${ids.join(' ')}`);
  return form.locator(`[id="${id}"]`);
}

for (const L of ['en', 'zh-CN'] as Lang[]) {
  test(`an Azure channel saved without a base URL: the gateway's refusal shows beside the base URL input (${L})`, async () => {
    const api = await Api.login(gw.url);
    const { page, problems } = await rootSession(browser, gw.url, L);
    problems.allow('/api/channel', 400);
    await navLink(page, L, 'nav.channels').click();
    await expectPage(page, L, 'nav.channels');
    await page.getByRole('button', { name: tr(L, 'channels.create') }).click();
    const form = page.getByRole('dialog', { name: tr(L, 'channels.create') });
    const name = `azure-${L}`;
    await form.getByLabel(label(L, 'channels.name')).fill(name);
    await form.getByLabel(label(L, 'channels.type')).click();
    await page.getByRole('option', { name: tr(L, 'channels.types.azure') }).click();
    await form.getByLabel(label(L, 'channels.keys')).fill('az-key-e2e');
    const models = form.getByLabel(label(L, 'channels.models'));
    await models.fill('gpt-4o');
    await models.press('Enter');
    await form.getByRole('button', { name: tr(L, 'common.save') }).click();

    const baseUrl = form.getByLabel(label(L, 'channels.baseUrl'));
    const error = await errorBeside(form, baseUrl);
    await expectText(
      error,
      L === 'en' ? /^base_url: is required for azure channels/ : tr(L, 'errorCode.channel_setting_required', { field: 'base_url' }),
    );
    const list = await api.ok('GET', '/api/channel?page_size=100');
    assert.equal(list.items.filter((c: { name: string }) => c.name === name).length, 0, 'nothing was saved');

    await baseUrl.fill('https://acme.openai.azure.com');
    await form.getByRole('button', { name: tr(L, 'common.save') }).click();
    await form.waitFor({ state: 'hidden' });
    const saved = (await api.ok('GET', '/api/channel?page_size=100')).items.find((c: { name: string }) => c.name === name);
    assert.equal(saved?.base_url, 'https://acme.openai.azure.com');
    problems.assertNone(`channels: an Azure channel without a base URL (${L})`);
  });
}
