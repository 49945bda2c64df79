/**
 * The console end to end, as people use it: root logs in, adds a channel to a loopback vendor, prices
 * its model and creates a user with a balance; the user logs in (another browser), creates a key and
 * chats in the playground (streamed); the call shows in the user's logs with its cost, on root's
 * dashboard chart, and in the CSV export.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../../gateway/test/fakes/upstreams/openai.ts';
import {
  expectPage,
  expectText,
  eventually,
  launchBrowser,
  login,
  navLink,
  label,
  newContext,
  PageProblems,
  ROOT_USER,
  screenshot,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
} from './support.ts';

const L = 'en';
const MODEL = 'e2e-chat';
const USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
// $2 per 1M input tokens, $8 per 1M output tokens: 11 × 2 + 7 × 8 = 78 µ$ = $0.000078
const COST = '$0.000078';

/** The fields of one CSV line (RFC 4180 quoting; no line breaks inside fields in these rows). */
const csvFields = (line: string): string[] =>
  [...line.matchAll(/(?:^|,)("(?:[^"]|"")*"|[^,]*)/g)].map((m) => (m[1].startsWith('"') ? m[1].slice(1, -1).replace(/""/g, '"') : m[1]));

let gw: ConsoleGateway;
let vendor: FakeOpenAI;
let browser: Browser;
/** Resolved by the test once the first half of the streamed reply is on screen. */
let releaseStream: () => void = () => {};

before(async () => {
  vendor = await startFakeOpenAI({ keys: ['sk-vendor-e2e'] });
  // The reply streams in two halves; the second waits until the test has seen the first on screen.
  vendor.override = async (r, res: ServerResponse) => {
    if (!r.path.endsWith('/chat/completions') || !r.body?.stream) return false;
    const gate = new Promise<void>((resolve) => {
      releaseStream = resolve;
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const chunk = (delta: object, finish: string | null = null, usage?: object) =>
      res.write(
        `data: ${JSON.stringify({
          id: 'chatcmpl-e2e',
          object: 'chat.completion.chunk',
          created: 1,
          model: r.body.model,
          choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
          ...(usage ? { usage } : {}),
        })}\n\n`,
      );
    chunk({ role: 'assistant', content: 'Hello from ' });
    await gate;
    chunk({ content: 'the loopback vendor' });
    chunk({}, 'stop');
    chunk({}, null, USAGE);
    res.end('data: [DONE]\n\n');
    return true;
  };
  gw = await startConsoleGateway();
  browser = await launchBrowser();
});

after(async () => {
  releaseStream();
  await browser?.close();
  await gw?.close();
  await vendor?.close();
});

async function openRootConsole(): Promise<{ page: Page; problems: PageProblems }> {
  const ctx = await newContext(browser, gw.url, L);
  const page = await ctx.newPage();
  const problems = new PageProblems(page);
  await page.goto('/');
  await page.waitForURL(/\/login/);
  await login(page, L, ROOT_USER.username, ROOT_USER.password);
  await expectPage(page, L, 'nav.dashboard');
  problems.clear(); // the 401 of GET /api/user/self that sent the visitor to the login page
  return { page, problems };
}

test('story: channel, price, user with balance → key, streamed playground reply → log with cost, dashboard chart, CSV export', async () => {
  const { page: root, problems: rootProblems } = await openRootConsole();

  // ---- root adds a channel pointing at the loopback vendor
  await navLink(root, L, 'nav.channels').click();
  await expectPage(root, L, 'nav.channels');
  await root.getByRole('button', { name: tr(L, 'channels.create') }).click();
  const channelForm = root.getByRole('dialog', { name: tr(L, 'channels.create') });
  await channelForm.getByRole('button', { name: tr(L, 'common.save') }).click();
  // the form validates before sending: the required fields say so
  await channelForm.getByText(tr(L, 'validation.required')).first().waitFor();
  await channelForm.getByLabel(label(L, 'channels.name')).fill('loopback');
  await channelForm.getByLabel(label(L, 'channels.baseUrl')).fill(`${vendor.url}/v1`);
  await channelForm.getByLabel(label(L, 'channels.keys')).fill('sk-vendor-e2e');
  const models = channelForm.getByLabel(label(L, 'channels.models'));
  await models.fill(MODEL);
  await models.press('Enter');
  await channelForm.getByRole('button', { name: tr(L, 'common.save') }).click();
  await channelForm.waitFor({ state: 'hidden' });
  const channelRow = root.getByRole('table', { name: tr(L, 'nav.channels') }).getByRole('row', { name: /loopback/ });
  await expectText(channelRow, MODEL);
  await expectText(channelRow, tr(L, 'status.enabled'));

  // ---- and sets the model's price
  await navLink(root, L, 'nav.prices').click();
  await expectPage(root, L, 'nav.prices');
  await root.getByRole('button', { name: tr(L, 'prices.create') }).click();
  const priceForm = root.getByRole('dialog', { name: tr(L, 'prices.create') });
  await priceForm.getByLabel(label(L, 'prices.model')).fill(MODEL);
  await priceForm.getByLabel(label(L, 'prices.input')).fill('2');
  await priceForm.getByLabel(label(L, 'prices.output')).fill('8');
  await priceForm.getByRole('button', { name: tr(L, 'common.save') }).click();
  await priceForm.waitFor({ state: 'hidden' });
  const priceRow = root.getByRole('table', { name: tr(L, 'prices.tableLabel') }).getByRole('row', { name: new RegExp(MODEL) });
  await expectText(priceRow, '$2');
  await expectText(priceRow, '$8');

  // ---- and creates a user with a balance of $5
  await navLink(root, L, 'nav.users').click();
  await expectPage(root, L, 'nav.users');
  await root.getByRole('button', { name: tr(L, 'users.create') }).click();
  const userForm = root.getByRole('dialog', { name: tr(L, 'users.create') });
  await userForm.getByLabel(label(L, 'users.username')).fill('alice');
  await userForm.getByLabel(label(L, 'users.password')).fill('short');
  await userForm.getByRole('button', { name: tr(L, 'common.save') }).click();
  const password = userForm.getByLabel(label(L, 'users.password'));
  // refused before sending: the rule shows as the field's error (it is also the field's description)
  await userForm.locator('[class*="-error"]', { hasText: tr(L, 'validation.password') }).waitFor();
  await password.fill('alice-password-1');
  await userForm.getByLabel(label(L, 'users.startBalance')).fill('5');
  await userForm.getByRole('button', { name: tr(L, 'common.save') }).click();
  await userForm.waitFor({ state: 'hidden' });
  const aliceRow = root.getByRole('table', { name: tr(L, 'nav.users') }).getByRole('row', { name: /alice/ });
  await expectText(aliceRow, '$5.00');

  // ---- tops her up by $1 with a reason, and reads it in her ledger history
  await root.getByRole('button', { name: tr(L, 'users.actionsFor', { name: 'alice' }) }).click();
  await root.getByRole('menuitem', { name: tr(L, 'users.topUp') }).click();
  const quotaForm = root.getByRole('dialog', { name: tr(L, 'users.quotaTitle', { name: 'alice' }) });
  await quotaForm.getByLabel(label(L, 'users.amountAdd')).fill('1');
  await quotaForm.getByLabel(label(L, 'users.reason')).fill('welcome credit');
  await quotaForm.getByRole('button', { name: tr(L, 'common.save') }).click();
  await quotaForm.waitFor({ state: 'hidden' });
  await expectText(aliceRow, '$6.00');
  await root.getByRole('button', { name: tr(L, 'users.actionsFor', { name: 'alice' }) }).click();
  await root.getByRole('menuitem', { name: tr(L, 'users.ledger') }).click();
  const ledger = root.getByRole('dialog', { name: tr(L, 'users.ledgerTitle', { name: 'alice' }) });
  const topupRow = ledger.getByRole('row', { name: /welcome credit/ });
  await expectText(topupRow, '+$1.00');
  await expectText(ledger.getByRole('table'), '+$5.00');
  await ledger.getByRole('button', { name: tr(L, 'common.close') }).click();
  await ledger.waitFor({ state: 'hidden' });
  rootProblems.assertNone('root: channel, price, user');

  // ---- the user logs in, in a second browser profile
  const userCtx = await newContext(browser, gw.url, L);
  const user = await userCtx.newPage();
  const userProblems = new PageProblems(user);
  await user.goto('/keys');
  await user.waitForURL(/\/login\?next=%2Fkeys/);
  await login(user, L, 'alice', 'alice-password-1');
  await expectPage(user, L, 'nav.keys');
  assert.equal(new URL(user.url()).pathname, '/keys', 'back where the user was going');
  userProblems.clear(); // the 401 that sent the visitor to the login page
  // operators' pages are not in a user's navigation
  assert.equal(await navLink(user, L, 'nav.channels').count(), 0);

  // ---- creates a key: shown once, and it works
  await user.getByRole('button', { name: tr(L, 'keys.create') }).click();
  const keyForm = user.getByRole('dialog', { name: tr(L, 'keys.create') });
  await keyForm.getByLabel(label(L, 'keys.name')).fill('laptop');
  // its own rate limit and daily budget
  await keyForm.getByLabel(label(L, 'limits.rpm')).fill('600');
  await keyForm.getByLabel(label(L, 'limits.budget')).fill('1');
  await keyForm.getByRole('button', { name: tr(L, 'common.save') }).click();
  await keyForm.getByText(tr(L, 'limits.periodRequired')).waitFor();
  await keyForm.getByLabel(label(L, 'limits.period')).click();
  await user.getByRole('option', { name: tr(L, 'limits.day') }).click();
  await screenshot(user, 'story-key-limits');
  await keyForm.getByRole('button', { name: tr(L, 'common.save') }).click();
  const shown = user.getByRole('dialog', { name: tr(L, 'keys.createdTitle') });
  const key = await shown.getByLabel(label(L, 'keys.newKey')).inputValue();
  assert.match(key, /^sk-/);
  await shown.getByRole('button', { name: tr(L, 'keys.stored') }).click();
  await expectText(user.getByRole('table', { name: tr(L, 'nav.keys') }), 'laptop');
  await expectText(user.getByRole('table', { name: tr(L, 'nav.keys') }), tr(L, 'limits.rpmShort', { n: 600 }));
  await expectText(user.getByRole('table', { name: tr(L, 'nav.keys') }), tr(L, 'limits.perDay', { usd: '$1.00' }));
  const models200 = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(models200.status, 200);
  assert.ok(
    ((await models200.json()) as { data: { id: string }[] }).data.some((m) => m.id === MODEL),
    "the key may call the channel's model",
  );

  // ---- the playground streams a reply
  await navLink(user, L, 'nav.playground').click();
  await expectPage(user, L, 'nav.playground');
  const modelPicker = user.getByRole('region', { name: tr(L, 'playground.settings') }).getByLabel(label(L, 'playground.model'));
  await eventually(async () => assert.equal(await modelPicker.inputValue(), MODEL), undefined, "model picker offers the group's model");
  await user.getByLabel(label(L, 'playground.message')).fill('Say hello');
  await user.getByRole('button', { name: tr(L, 'playground.send') }).click();
  const conversation = user.getByRole('log', { name: tr(L, 'playground.conversation') });
  const reply = conversation.locator('[data-role="assistant"]');
  // the first half is on screen while the call is still open (Stop shown): the reply streams
  await expectText(reply, 'Hello from');
  await user.getByRole('button', { name: tr(L, 'playground.stop') }).waitFor();
  assert.ok(!(await reply.innerText()).includes('loopback vendor'));
  releaseStream();
  await expectText(reply, 'Hello from the loopback vendor');
  await user.getByRole('button', { name: tr(L, 'playground.send') }).waitFor();
  await expectText(user.getByText(tr(L, 'playground.usage', { prompt: 11, completion: 7 })), '11');
  const upstreamCall = vendor.requests.find((r) => r.path.endsWith('/chat/completions'));
  assert.equal(upstreamCall?.headers.authorization, 'Bearer sk-vendor-e2e', "the vendor got the channel's key");
  assert.equal(upstreamCall?.body.messages.at(-1).content, 'Say hello');
  await screenshot(user, 'story-playground');

  // ---- the user's log shows the call and its cost (the log writer batches: reload until it is there)
  await navLink(user, L, 'nav.myLogs').click();
  await expectPage(user, L, 'nav.myLogs');
  const logRows = user.getByRole('table', { name: tr(L, 'logs.tableLabel') }).getByRole('row', { name: new RegExp(MODEL) });
  await eventually(
    async () => {
      if ((await logRows.count()) === 0) {
        await user.getByRole('button', { name: tr(L, 'common.apply') }).click();
        throw new Error('no log row yet');
      }
    },
    20_000,
    'log row of the playground call',
  );
  await expectText(logRows.first(), COST);
  await expectText(logRows.first(), '11 / 7');
  await logRows.first().click();
  const drawer = user.getByRole('dialog', { name: tr(L, 'logs.detail') });
  await expectText(drawer, '/pg/chat/completions');
  await expectText(drawer, COST);
  await user.keyboard.press('Escape');
  await drawer.waitFor({ state: 'hidden' });

  // ---- CSV export downloads the row
  const [download] = await Promise.all([user.waitForEvent('download'), user.getByRole('link', { name: tr(L, 'logs.export') }).click()]);
  const csv = readFileSync((await download.path())!, 'utf8')
    .split('\r\n')
    .filter(Boolean)
    .map(csvFields);
  const [head, ...lines] = csv;
  const rows = lines.map((l) => Object.fromEntries(head.map((h, i) => [h, l[i]])));
  // Her logs: the call, and the top-up with its reason.
  assert.deepEqual(
    rows.map((r) => r.type),
    ['consume', 'topup'],
    csv.join('\n'),
  );
  assert.equal(rows[1].content, 'welcome credit');
  const row = rows[0];
  assert.equal(row.username, 'alice');
  assert.equal(row.model, MODEL);
  assert.equal(row.endpoint, '/pg/chat/completions');
  assert.equal(row.prompt_tokens, '11');
  assert.equal(row.completion_tokens, '7');
  assert.equal(row.quota_usd, '0.000078');
  assert.equal(head.includes('channel_id'), false, "a user's export has no channel");
  userProblems.assertNone('user: key, playground, logs, export');

  // ---- root's dashboard: the call is in the totals, the top models and the requests chart
  await navLink(root, L, 'nav.dashboard').click();
  await expectPage(root, L, 'nav.dashboard');
  const requestsCard = root.getByRole('group', { name: tr(L, 'usage.requests'), exact: true });
  await eventually(
    async () => {
      const n = (await requestsCard.innerText()).replace(/\D+/g, '');
      if (n !== '1') {
        await root.getByRole('button', { name: tr(L, 'common.refresh') }).click();
        throw new Error(`requests card says ${n}`);
      }
    },
    20_000,
    'dashboard counts the call',
  );
  const topModels = root.getByRole('table', { name: tr(L, 'usage.top.model') });
  await expectText(topModels.getByRole('row', { name: new RegExp(MODEL) }), COST);
  // hovering the requests chart near its right end shows the bucket with the call
  const chart = root
    .getByRole('region', { name: tr(L, 'usage.requestsOverTime') })
    .locator('.recharts-surface')
    .first();
  const box = (await chart.boundingBox())!;
  const tooltip = root.locator('.recharts-tooltip-wrapper').first();
  await eventually(
    async () => {
      for (const dx of [4, 0.04 * box.width, 0.08 * box.width]) {
        await root.mouse.move(box.x + box.width - dx, box.y + box.height / 2);
        const text = await tooltip.innerText().catch(() => '');
        if (new RegExp(`${tr(L, 'usage.requests')}\\s*1\\b`).test(text)) return;
      }
      throw new Error('no chart bucket with one request');
    },
    10_000,
    'chart tooltip',
  );
  await screenshot(root, 'story-dashboard');
  rootProblems.assertNone('root: dashboard');
});
