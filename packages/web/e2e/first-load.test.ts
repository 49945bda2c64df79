/**
 * The console's first load: what a signed-out browser downloads before the login form shows, from the
 * address a user types (`/`) and from the login page itself, is at most FIRST_LOAD_BUDGET_KB gzipped
 * (every response counted: the page, scripts, styles, icons and API answers, each gzipped at level 9,
 * as the gateway's precompressed files are), and no request fails on the way: the console knows it is
 * signed out without asking the server.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import type { Browser, Response } from 'playwright-core';
import { launchBrowser, newContext, PageProblems, startConsoleGateway, tr, type ConsoleGateway, label } from './support.ts';

export const FIRST_LOAD_BUDGET_KB = 200;

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

for (const [from, lang] of [
  ['/', 'en'],
  ['/login', 'en'],
  ['/channels', 'zh-CN'],
] as const) {
  test(`signed out at ${from} (${lang}): the login form after at most ${FIRST_LOAD_BUDGET_KB} KB gzipped, no failed request`, async () => {
    const ctx = await newContext(browser, gw.url, lang);
    const page = await ctx.newPage();
    const problems = new PageProblems(page);
    const loaded: Promise<{ url: string; gz: number }>[] = [];
    let counting = true;
    page.on('response', (r: Response) => {
      if (!counting) return;
      loaded.push(
        r.body().then(
          (b) => ({ url: r.url(), gz: gzipSync(b, { level: 9 }).length }),
          () => ({ url: r.url(), gz: 0 }),
        ),
      );
    });
    await page.goto(from);
    await page.getByLabel(label(lang, 'login.username')).waitFor();
    await page.getByRole('button', { name: tr(lang, 'login.submit') }).waitFor();
    counting = false;
    const files = await Promise.all(loaded);
    const kb = files.reduce((n, f) => n + f.gz, 0) / 1024;
    const list = files
      .sort((a, b) => b.gz - a.gz)
      .map((f) => `${(f.gz / 1024).toFixed(1)} KB ${new URL(f.url).pathname}`)
      .join('\n');
    process.stdout.write(`# first load from ${from}: ${files.length} responses, ${kb.toFixed(1)} KB gzipped; the largest:\n`);
    process.stdout.write(
      `${list
        .split('\n')
        .slice(0, 12)
        .map((l) => `#   ${l}`)
        .join('\n')}\n`,
    );
    assert.ok(
      kb <= FIRST_LOAD_BUDGET_KB,
      `${kb.toFixed(1)} KB gzipped before the login form (budget ${FIRST_LOAD_BUDGET_KB} KB):\n${list}`,
    );
    assert.equal(new URL(page.url()).pathname, '/login');
    if (from !== '/login') assert.equal(new URL(page.url()).searchParams.get('next'), from, 'back to the page asked for after logging in');
    assert.ok(!files.some((f) => new URL(f.url).pathname === '/api/user/self'), 'no signed-out probe of the session');
    problems.assertNone(`first load from ${from}`);
    await ctx.close();
  });
}
