/**
 * Plugins and tasks in the browser: an upload the gateway refuses shows the refused manifest field, a
 * valid plugin dropped on the upload area is installed and serving, and a task submitted through the
 * API with a user's key shows on the Tasks page with its upstream trail and its callback delivery.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startVendor, type Vendor } from '../../gateway/test/fakes/vendor/server.ts';
import {
  Api,
  eventually,
  expectPage,
  expectText,
  launchBrowser,
  login,
  navLink,
  newContext,
  PageProblems,
  ROOT,
  ROOT_USER,
  screenshot,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
} from './support.ts';

const L = 'en';
const REJECTED = join(ROOT, 'packages/gateway/test/fakes/plugins/rejected/author-missing.js');
const VALID = join(ROOT, 'examples/plugins/loopback-video.js');

let gw: ConsoleGateway;
let vendor: Vendor;
let browser: Browser;

before(async () => {
  vendor = await startVendor();
  gw = await startConsoleGateway({ TASK_CALLBACK_RETRY_BASE_SECONDS: '0.2', TASK_CALLBACK_INTERVAL_SECONDS: '0.1' });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
  await vendor?.close();
});

test('plugins: a refused upload names the field; a dropped valid plugin serves; a task submitted by API is on the Tasks page', async () => {
  const ctx = await newContext(browser, gw.url, L);
  const page = await ctx.newPage();
  const problems = new PageProblems(page);
  await page.goto('/login?next=%2Fplugins');
  await login(page, L, ROOT_USER.username, ROOT_USER.password);
  await expectPage(page, L, 'nav.plugins');
  const installed = page.getByRole('table', { name: tr(L, 'plugins.installed') });
  await expectText(installed, tr(L, 'plugins.none'));

  // ---- a plugin whose manifest the gateway refuses: the refused field and the reason are shown
  const expected = /^\/\/ expect: (\S+): (.+)$/m.exec(readFileSync(REJECTED, 'utf8'))!; // "meta.author: is required"
  problems.allow('/api/plugin/task', 400);
  await page.getByRole('button', { name: tr(L, 'plugins.upload') }).click();
  const dialog = page.getByRole('dialog', { name: tr(L, 'plugins.upload') });
  await dialog.getByRole('button', { name: tr(L, 'plugins.uploadSubmit') }).click();
  await dialog.getByText(tr(L, 'plugins.sourceRequired')).waitFor(); // checked before sending
  await dialog.getByLabel(tr(L, 'plugins.source'), { exact: true }).setInputFiles(REJECTED);
  await dialog.getByText(tr(L, 'plugins.fileChosen', { name: 'author-missing.js' })).waitFor();
  await dialog.getByRole('button', { name: tr(L, 'plugins.uploadSubmit') }).click();
  const refusal = dialog.getByRole('alert').filter({ hasText: tr(L, 'plugins.manifestInvalid') });
  await expectText(refusal, expected[1]);
  await expectText(refusal, expected[2]);
  await screenshot(page, 'plugins-refused');
  await dialog.getByRole('button', { name: tr(L, 'common.cancel') }).click();
  await dialog.waitFor({ state: 'hidden' });
  await expectText(installed, tr(L, 'plugins.none'));

  // ---- a valid plugin, dropped on the upload area
  await page.getByRole('button', { name: tr(L, 'plugins.upload') }).click();
  const source = readFileSync(VALID, 'utf8');
  const files = await page.evaluateHandle(`(() => {
    const d = new DataTransfer();
    d.items.add(new File([${JSON.stringify(source)}], 'loopback-video.js', { type: 'text/javascript' }));
    return d;
  })()`);
  const dropzone = dialog.getByText(tr(L, 'plugins.dropHere')); // the drop bubbles up to the drop area
  await dropzone.dispatchEvent('dragenter', { dataTransfer: files });
  await dropzone.dispatchEvent('drop', { dataTransfer: files });
  await dialog.getByText(tr(L, 'plugins.fileChosen', { name: 'loopback-video.js' })).waitFor();
  await dialog.getByRole('button', { name: tr(L, 'plugins.uploadSubmit') }).click();
  await dialog.waitFor({ state: 'hidden' });
  const row = installed.getByRole('row', { name: /loopback-video/ });
  await expectText(row, '1.0.0');
  await expectText(row, tr(L, 'status.registered'));
  await screenshot(page, 'plugins-installed');

  // ---- a task channel, a price and a user with a key (through the API), then a task submitted with the key
  const api = await Api.login(gw.url);
  await api.ok('POST', '/api/channel', {
    name: 'videos',
    type: 'task_plugin',
    base_url: vendor.url,
    keys: ['vendor-key'],
    groups: ['default'],
    settings: { plugin: 'loopback-video' },
  });
  await api.ok('PUT', '/api/price', { model: 'lv-1', expression: 'u("seconds") * 0.1' });
  await api.ok('POST', '/api/user', { username: 'bob', password: 'bob-password-1', quota_usd: 10 });
  const bob = await Api.login(gw.url, 'bob', 'bob-password-1');
  const made = await bob.ok<{ id: number; key: string }>('POST', '/api/token', { name: 'bob-key' });
  const key = made.key;
  // A callback receiver on loopback that refuses the first delivery and accepts the second.
  let hits = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      res.writeHead(hits === 1 ? 503 : 200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  after(
    () =>
      new Promise<void>((r) => {
        receiver.closeAllConnections();
        receiver.close(() => r());
      }),
  );
  await bob.ok('POST', `/api/token/${made.id}/callback-secret`);
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/done`;
  const submitted = await api.call(
    'POST',
    '/v1/tasks/loopback-video',
    { model: 'lv-1', prompt: 'a lighthouse', seconds: 1, steps: 1 },
    { authorization: `Bearer ${key}`, 'x-callback-url': hook },
  );
  assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
  const taskId = submitted.body.id as string;

  await navLink(page, L, 'nav.tasks').click();
  await expectPage(page, L, 'nav.tasks');
  const taskRow = page.getByRole('table', { name: tr(L, 'tasks.tableLabel') }).getByRole('row', { name: new RegExp(taskId) });
  await taskRow.waitFor();
  await expectText(taskRow, 'bob');
  await expectText(taskRow, 'lv-1');
  // polled to its end by the gateway: Apply fetches the list again
  await eventually(
    async () => {
      if (((await taskRow.textContent()) ?? '').includes(tr(L, 'status.SUCCESS'))) return;
      await page.getByRole('button', { name: tr(L, 'common.apply') }).click();
      throw new Error(`task row: ${await taskRow.textContent()}`);
    },
    20_000,
    'the task succeeds',
  );
  // Its callback: refused once, delivered on the retry.
  await eventually(
    async () => {
      const v = await api.call('GET', `/v1/tasks/${taskId}`, undefined, { authorization: `Bearer ${key}` });
      if (v.body?.callback?.status !== 'delivered') throw new Error(`callback: ${JSON.stringify(v.body?.callback)}`);
    },
    20_000,
    'the callback is delivered',
  );
  assert.equal(hits, 2);
  await taskRow.click();
  const drawer = page.getByRole('dialog', { name: taskId });
  const upstreamId = [...vendor.tasks.keys()][0];
  await expectText(drawer, upstreamId);
  await expectText(drawer, `loopback-video@1.0.0`);
  await expectText(drawer, tr(L, 'status.settled'));
  await expectText(drawer, tr(L, 'tasks.callback'));
  await expectText(drawer, tr(L, 'status.delivered'));
  await expectText(drawer, hook);
  await expectText(drawer, 'HTTP 503');
  await expectText(drawer, 'HTTP 200');
  await screenshot(page, 'tasks-detail');
  problems.assertNone('plugins and tasks');
});
