/**
 * Browser-test support: a real gateway process serving the built console over a fresh SQLite database,
 * a loopback model vendor, Debian's Chromium driven by playwright-core, and the checks every page gets
 * (no console errors, no failed requests, no serious or critical axe-core violation, a screenshot).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { createTestDatabase, TEST_ROOT_PASSWORD, type TestDatabase } from '../../gateway/test/harness.ts';
import { startChild, stopChild, type Child } from '../../gateway/test/child-gateway.ts';
import en from '../src/i18n/en.json' with { type: 'json' };
import zhCN from '../src/i18n/zh-CN.json' with { type: 'json' };

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
export const DIST = join(ROOT, 'packages/web/dist');
export const ARTIFACTS = join(ROOT, 'packages/web/e2e/artifacts');
export const ROOT_USER = { username: 'root', password: TEST_ROOT_PASSWORD };

/** How long one UI step may take before the test fails (the machine is shared and slow). */
export const STEP_MS = 20_000;

// ---- the gateway ----

export interface ConsoleGateway {
  url: string;
  db: TestDatabase;
  child: Child;
  /** Stops the process (the database stays until `close`). */
  stop(): Promise<void>;
  /** Starts it again on the same port and database. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** A `gatehouse serve` process with the console enabled, on a new SQLite database. */
export async function startConsoleGateway(env: Record<string, string> = {}): Promise<ConsoleGateway> {
  assert.ok(existsSync(join(DIST, 'index.html')), 'packages/web/dist is missing: run `npm run build -w @gatehouse/web`');
  const db = await createTestDatabase('sqlite');
  const extra = {
    CONSOLE_ENABLED: 'true',
    CONSOLE_DIR: DIST,
    TASK_POLL_INTERVAL_SECONDS: '0.1',
    CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true',
    ...env,
  };
  let child = await startChild(db, 'e2e', extra);
  const port = new URL(child.url).port;
  const gw: ConsoleGateway = {
    url: child.url,
    db,
    child,
    stop: () => stopChild(gw.child),
    async restart() {
      child = await startChild(db, 'e2e', { ...extra, PORT: port });
      gw.child = child;
    },
    async close() {
      await stopChild(gw.child);
      await db.drop();
    },
  };
  return gw;
}

/** A logged-in API client (session cookie) for setting up what a test does not drive through the UI. */
export class Api {
  private constructor(
    readonly url: string,
    readonly cookie: string,
  ) {}

  static async login(url: string, username = ROOT_USER.username, password = ROOT_USER.password): Promise<Api> {
    const res = await fetch(`${url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });
    assert.equal(res.status, 200, `login of ${username}: ${await res.text()}`);
    return new Api(url, res.headers.get('set-cookie')!.split(';')[0]);
  }

  async call(
    method: string,
    path: string,
    body?: unknown,
    auth: Record<string, string> = { cookie: this.cookie },
  ): Promise<{ status: number; body: any }> {
    // A change made with the session cookie carries a JSON body, as the console's always does.
    if (body === undefined && method !== 'GET' && method !== 'DELETE') body = {};
    const res = await fetch(this.url + path, {
      method,
      headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed };
  }

  /** Calls and asserts success; returns `data` of the `/api` envelope. */
  async ok<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const r = await this.call(method, path, body);
    assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
    return r.body.data as T;
  }
}

// ---- the browser ----

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}

export type Lang = 'en' | 'zh-CN';

/** A fresh browser profile (its own cookies) whose browser language is `lang`. */
export async function newContext(browser: Browser, baseURL: string, lang: Lang = 'en'): Promise<BrowserContext> {
  const ctx = await browser.newContext({
    baseURL,
    locale: lang,
    viewport: { width: 1366, height: 900 },
    colorScheme: 'light',
    acceptDownloads: true,
  });
  ctx.setDefaultTimeout(STEP_MS);
  return ctx;
}

const DICTS: Record<Lang, unknown> = { en, 'zh-CN': zhCN };

/**
 * The console's text for `key` (e.g. "nav.channels") in `lang`, with {{x}} filled from `vars`. With a `count`, the
 * plural form the language uses for it (`key_one`, `key_other`), as i18next picks it.
 */
export function tr(lang: Lang, key: string, vars: Record<string, string | number> = {}): string {
  let v: unknown = DICTS[lang];
  const parts = key.split('.');
  if (typeof vars.count === 'number') parts[parts.length - 1] += `_${new Intl.PluralRules(lang).select(vars.count)}`;
  for (const part of parts) v = (v as Record<string, unknown>)?.[part];
  assert.equal(typeof v, 'string', `no text for ${key} in ${lang}`);
  return (v as string).replace(/\{\{(\w+)\}\}/g, (_, k: string) => String(vars[k] ?? ''));
}

/** Matches a field's label exactly, with or without the asterisk of a required field. */
export function label(lang: Lang, key: string, vars: Record<string, string | number> = {}): RegExp {
  return new RegExp(`^${tr(lang, key, vars).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\*)?$`);
}

/**
 * Records what goes wrong on a page: console errors, uncaught exceptions, requests that fail (other than
 * loads the browser cancelled itself) or answer 4xx/5xx. `expected` lets a test allow a response it causes on purpose (a refused upload).
 */
export class PageProblems {
  readonly problems: string[] = [];
  private allowed: Array<(url: string, status: number) => boolean> = [];

  constructor(page: Page) {
    page.on('console', (m) => {
      if (m.type() === 'error') this.problems.push(`console error: ${m.text()}`);
    });
    page.on('pageerror', (e) => this.problems.push(`uncaught: ${e.message}`));
    // net::ERR_ABORTED is the browser cancelling a load itself (the page navigated on while the favicon
    // or a query was loading): not a failure of the gateway, which shows as a status or a connection error.
    page.on('requestfailed', (r) => {
      const why = r.failure()?.errorText ?? '';
      if (why !== 'net::ERR_ABORTED') this.problems.push(`request failed: ${r.method()} ${r.url()} ${why}`);
    });
    page.on('response', (r) => {
      if (r.status() >= 400 && !this.allowed.some((f) => f(r.url(), r.status())))
        this.problems.push(`HTTP ${r.status()}: ${r.request().method()} ${r.url()}`);
    });
  }

  /** Responses with this status to URLs containing `path` are part of the test. */
  allow(path: string, status: number): void {
    this.allowed.push((u, s) => s === status && u.includes(path));
  }

  /** A refused response also logs "Failed to load resource" in the console: allowed with it. */
  assertNone(where: string): void {
    const real = this.problems.filter((p) => !(p.startsWith('console error: Failed to load resource') && this.allowed.length > 0));
    assert.deepEqual(real, [], `${where}: ${real.join('\n')}`);
  }

  clear(): void {
    this.problems.length = 0;
  }
}

/** Runs axe-core on the page and fails on any serious or critical violation. */
export async function assertAccessible(page: Page, where: string): Promise<void> {
  // Colours are read as they are once finite transitions (a dialog fading in) have ended; spinners run forever.
  // (A function, not a string: the console's CSP refuses eval.)
  await page.waitForFunction(() => {
    type Anim = { playState: string; effect: { getComputedTiming(): { endTime?: number | string } } | null };
    const doc = (globalThis as unknown as { document: { getAnimations(): Anim[] } }).document;
    return doc.getAnimations().every((a) => a.playState !== 'running' || a.effect?.getComputedTiming().endTime === Infinity);
  });
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const bad = r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} — ${v.nodes
          .slice(0, 3)
          .map((n) => `${n.html.slice(0, 160)} (${n.any[0]?.message ?? n.failureSummary})`)
          .join(' | ')}`,
    ),
    [],
    `${where}: accessibility violations`,
  );
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Polls `check` (an assertion) until it passes or `timeoutMs` runs out; then fails with its last error. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = STEP_MS, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    try {
      return await check();
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`${what}: ${(last as Error)?.message ?? last}`);
    await new Promise((r) => setTimeout(r, delay));
  }
}

/** Waits until the locator's text matches. */
export async function expectText(loc: Locator, expected: string | RegExp, timeoutMs = STEP_MS): Promise<void> {
  await eventually(
    async () => {
      const text = ((await loc.textContent({ timeout: 1000 })) ?? '').trim();
      if (typeof expected === 'string' ? !text.includes(expected) : !expected.test(text))
        throw new Error(`text is ${JSON.stringify(text.slice(0, 300))}, expected ${expected}`);
    },
    timeoutMs,
    `text of ${loc}`,
  );
}

/** Logs in through the login page. */
export async function login(page: Page, lang: Lang, username: string, password: string): Promise<void> {
  await page.getByLabel(label(lang, 'login.username')).fill(username);
  await page.getByLabel(label(lang, 'login.password')).fill(password);
  await page.getByRole('button', { name: tr(lang, 'login.submit') }).click();
}

/** A new browser context logged in as root, on the dashboard, with its page's problems recorded. */
export async function rootSession(
  browser: Browser,
  baseURL: string,
  lang: Lang = 'en',
): Promise<{ ctx: BrowserContext; page: Page; problems: PageProblems }> {
  const ctx = await newContext(browser, baseURL, lang);
  const page = await ctx.newPage();
  const problems = new PageProblems(page);
  await page.goto('/login');
  await login(page, lang, ROOT_USER.username, ROOT_USER.password);
  await expectPage(page, lang, 'nav.dashboard');
  return { ctx, page, problems };
}

/** The main navigation's link to a page. */
export function navLink(page: Page, lang: Lang, key: string): Locator {
  return page.getByRole('navigation').getByRole('link', { name: tr(lang, key), exact: true });
}

/** Waits until the page's title (h2 of the page header) reads `key`. */
export async function expectPage(page: Page, lang: Lang, key: string): Promise<void> {
  await page.getByRole('heading', { level: 2, name: tr(lang, key), exact: true }).waitFor();
}
