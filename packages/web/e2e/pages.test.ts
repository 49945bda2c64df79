/**
 * Every page of the console, in English and in Chinese (the browser's language picks it): it loads
 * with no console error and no failed request, shows its title in that language, and is photographed
 * (axe-core finds no serious or critical violation on any page; the scan runs on the English pages
 * only, as both languages render the same elements and the scans are the slow part) (packages/web/e2e/artifacts/<lang>-<page>.png;
 * with UPDATE_DOCS_SCREENSHOTS=1 the key English ones are also written to docs/console/).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../../gateway/test/fakes/upstreams/openai.ts';
import {
  Api,
  assertAccessible,
  expectPage,
  launchBrowser,
  login,
  newContext,
  PageProblems,
  ROOT,
  ROOT_USER,
  screenshot,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
  type Lang,
} from './support.ts';

/** Path → the i18n key of its title. */
const PAGES: Array<[string, string]> = [
  ['/dashboard', 'nav.dashboard'],
  ['/channels', 'nav.channels'],
  ['/users', 'nav.users'],
  ['/all-keys', 'nav.allKeys'],
  ['/prices', 'nav.prices'],
  ['/logs', 'nav.logs'],
  ['/tasks', 'nav.tasks'],
  ['/plugins', 'nav.plugins'],
  ['/settings', 'nav.settings'],
  ['/overview', 'nav.overview'],
  ['/keys', 'nav.keys'],
  ['/my-logs', 'nav.myLogs'],
  ['/my-tasks', 'nav.myTasks'],
  ['/playground', 'nav.playground'],
  ['/models', 'nav.models'],
  ['/profile', 'nav.profile'],
  ['/wallet', 'topup.navWallet'],
  ['/redemption', 'topup.navCodes'],
  ['/audit', 'nav.audit'],
  ['/sso', 'nav.sso'],
  ['/mcp-servers', 'nav.mcp'],
];
/** The screenshots shown in docs/console.md. */
const DOCS = ['login', 'dashboard', 'channels', 'logs', 'playground', 'plugins'];

let gw: ConsoleGateway;
let vendor: FakeOpenAI;
let browser: Browser;

before(async () => {
  vendor = await startFakeOpenAI();
  gw = await startConsoleGateway();
  // something on every page: a channel with a price, a user and a few calls, a plugin
  const api = await Api.login(gw.url);
  await api.ok('POST', '/api/channel', {
    name: 'loopback',
    type: 'openai',
    base_url: `${vendor.url}/v1`,
    keys: ['sk-vendor'],
    models: ['gpt-4o-mini', 'gpt-4o'],
    groups: ['default'],
  });
  await api.ok('PUT', '/api/price', { model: 'gpt-4o-mini', input: 0.15, output: 0.6 });
  await api.ok('PUT', '/api/price', { model: 'gpt-4o', input: 2.5, output: 10 });
  await api.ok('POST', '/api/user', { username: 'alice', password: 'alice-password-1', quota_usd: 20 });
  const alice = await Api.login(gw.url, 'alice', 'alice-password-1');
  const key = (await alice.ok<{ key: string }>('POST', '/api/token', { name: 'laptop' })).key;
  await api.ok('POST', '/api/token', { name: 'ops' });
  for (const model of ['gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o']) {
    const r = await alice.call(
      'POST',
      '/v1/chat/completions',
      { model, messages: [{ role: 'user', content: 'hi' }] },
      { authorization: `Bearer ${key}` },
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  await api.ok('POST', '/api/plugin/task', { source: readFileSync(join(ROOT, 'examples/plugins/loopback-video.js'), 'utf8') });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
  await vendor?.close();
});

async function everyPage(lang: Lang): Promise<void> {
  const ctx = await newContext(browser, gw.url, lang);
  const page = await ctx.newPage();
  const problems = new PageProblems(page);
  const shot = async (name: string) => {
    const file = await screenshot(page, `${lang}-${name}`);
    if (lang === 'en' && process.env.UPDATE_DOCS_SCREENSHOTS === '1' && DOCS.includes(name)) {
      mkdirSync(join(ROOT, 'docs/console'), { recursive: true });
      copyFileSync(file, join(ROOT, `docs/console/${name}.png`));
    }
  };

  await page.goto('/login');
  await page.getByRole('heading', { name: tr(lang, 'login.title') }).waitFor();
  assert.equal(await page.getAttribute('html', 'lang'), lang, 'the document says its language');
  if (lang === 'en') await assertAccessible(page, `${lang} login`);
  await shot('login');
  await login(page, lang, ROOT_USER.username, ROOT_USER.password);
  await expectPage(page, lang, 'nav.dashboard');
  problems.assertNone(`${lang} login`);

  // every page is checked, then every failure is reported together
  const failures: string[] = [];
  for (const [path, title] of PAGES) {
    await page.goto(path);
    await expectPage(page, lang, title);
    await page.waitForLoadState('networkidle');
    await page.locator('.mantine-LoadingOverlay-root, .mantine-Skeleton-root').first().waitFor({ state: 'detached' });
    const checks = [
      async () => problems.assertNone(`${lang} ${path}`),
      ...(lang === 'en' ? [() => assertAccessible(page, `${lang} ${path}`)] : []),
    ];
    for (const check of checks) {
      try {
        await check();
      } catch (e) {
        failures.push((e as Error).message);
      }
    }
    problems.clear();
    await shot(path.slice(1));
  }
  await ctx.close();
  assert.deepEqual(failures, []);
}

test('every page in English: no errors, no failed requests, accessible, photographed', () => everyPage('en'));
test('every page in Chinese: no errors, no failed requests, photographed', () => everyPage('zh-CN'));
