/**
 * Teams through the console: root creates a team and tops up its wallet on the Teams page and makes a
 * user its owner; the owner adds a member with a daily budget and invites someone by email (no mail
 * here, so the link is handed over) redeems a code into the wallet and pays into it online (a loopback Stripe); the invitee accepts the link once; the member switches to the
 * team and creates a team key whose call the team's wallet pays; a viewer sees usage only. A team's owner
 * buys a plan for the team from its wallet on the Plan tab. In Chinese too for My teams.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startFakeOpenAI, type FakeOpenAI } from '../../gateway/test/fakes/upstreams/openai.ts';
import { deliverStripe, sessionEvent, startFakeStripe, type FakeStripe } from '../../gateway/test/fakes/upstreams/stripe.ts';
import {
  Api,
  assertAccessible,
  eventually,
  expectPage,
  expectText,
  label,
  launchBrowser,
  login,
  navLink,
  newContext,
  PageProblems,
  rootSession,
  screenshot,
  startConsoleGateway,
  tr,
  type ConsoleGateway,
  type Lang,
} from './support.ts';

let gw: ConsoleGateway;
let browser: Browser;
let vendor: FakeOpenAI;
let stripe: FakeStripe;
const WEBHOOK_SECRET = 'whsec_console_teams';

before(async () => {
  vendor = await startFakeOpenAI();
  stripe = await startFakeStripe();
  gw = await startConsoleGateway({
    STRIPE_SECRET_KEY: 'sk_test_console_teams',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: stripe.url,
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await gw?.close();
  await vendor?.close();
  await stripe?.close();
});

async function signIn(lang: Lang, username: string, password: string, path = '/login'): Promise<{ page: Page; problems: PageProblems }> {
  const ctx = await newContext(browser, gw.url, lang);
  const page = await ctx.newPage();
  const problems = new PageProblems(page);
  await page.goto(path);
  await login(page, lang, username, password);
  return { page, problems };
}

test('root makes a team; its owner adds and invites members; a member spends the team wallet with a team key', async () => {
  const L = 'en';
  const api = await Api.login(gw.url);
  for (const u of ['ana', 'ben', 'vic', 'cam']) await api.ok('POST', '/api/user', { username: u, password: `${u}-password-1` });
  await api.ok('POST', '/api/channel', {
    name: 'loopback',
    type: 'openai',
    base_url: `${vendor.url}/v1`,
    keys: ['sk-vendor'],
    models: ['team-model'],
    groups: ['default'],
  });
  await api.ok('PUT', '/api/price', { model: 'team-model', input: 0, output: 1000 });

  // ---- root: create the team, top it up with $25, make ana its owner ----
  const { page: admin, problems: adminProblems } = await rootSession(browser, gw.url, L);
  await navLink(admin, L, 'nav.teams').click();
  await expectPage(admin, L, 'nav.teams');
  await admin.getByRole('button', { name: tr(L, 'teams.createTitle') }).click();
  const create = admin.getByRole('dialog', { name: tr(L, 'teams.createTitle') });
  await create.getByLabel(label(L, 'teams.name')).fill('Platform');
  await create.getByRole('button', { name: tr(L, 'common.create') }).click();
  const teams = admin.getByRole('table', { name: tr(L, 'nav.teams') });
  await expectText(teams, 'Platform');
  await admin.getByRole('button', { name: tr(L, 'teams.topUpOf', { name: 'Platform' }) }).click();
  const topUp = admin.getByRole('dialog', { name: tr(L, 'teams.topUpOf', { name: 'Platform' }) });
  await topUp.getByLabel(label(L, 'teams.amount')).fill('25');
  await topUp.getByRole('button', { name: tr(L, 'teams.topUp') }).click();
  await expectText(teams, '$25.00');
  await assertAccessible(admin, 'teams page');
  await screenshot(admin, 'en-teams');
  const [team] = (await api.ok<{ items: Array<{ id: number; name: string; quota_usd: number }> }>('GET', '/api/team')).items;
  assert.deepEqual([team.name, team.quota_usd], ['Platform', 25]);

  await teams.getByRole('link', { name: 'Platform' }).click();
  await admin.getByRole('heading', { level: 2, name: 'Platform' }).waitFor();
  await admin.getByRole('button', { name: tr(L, 'teams.addMember') }).click();
  const add = admin.getByRole('dialog', { name: tr(L, 'teams.addMember') });
  await add.getByLabel(label(L, 'teams.username')).fill('ana');
  await add.getByLabel(label(L, 'teams.role')).click();
  await admin.getByRole('option', { name: tr(L, 'teams.roles.owner') }).click();
  await add.getByRole('button', { name: tr(L, 'teams.add') }).click();
  await expectText(admin.getByRole('table', { name: tr(L, 'teams.members') }), tr(L, 'teams.roles.owner'));
  // The team's settings: its models, a rate limit, and leave for its admins to top up.
  await admin.getByRole('tab', { name: tr(L, 'teams.settings') }).click();
  await admin.getByLabel(label(L, 'teams.models')).fill('team-model');
  await admin.getByLabel(label(L, 'limits.rpm')).fill('600');
  await admin.getByLabel(tr(L, 'teams.allowAdminTopup')).check({ force: true });
  await admin.getByRole('button', { name: tr(L, 'common.save') }).click();
  await eventually(async () => {
    const saved = await api.ok<{ models: string[] | null; rpm: number; settings: { allow_admin_topup?: boolean } }>(
      'GET',
      `/api/team/${team.id}`,
    );
    assert.deepEqual([saved.models, saved.rpm, saved.settings.allow_admin_topup], [['team-model'], 600, true]);
  });
  await assertAccessible(admin, 'team settings');
  adminProblems.assertNone('root on the teams pages');

  // ---- ana (owner): add ben with a $5 daily budget and vic as viewer; invite cam by email ----
  const { page: owner, problems: ownerProblems } = await signIn(L, 'ana', 'ana-password-1');
  await expectPage(owner, L, 'nav.overview');
  await owner.getByRole('combobox', { name: tr(L, 'teams.switcher') }).click();
  await owner.getByRole('option', { name: 'Platform' }).click();
  await owner.getByRole('heading', { level: 2, name: 'Platform' }).waitFor();
  for (const [who, role, budget] of [
    ['ben', 'member', '5'],
    ['vic', 'viewer', ''],
  ] as const) {
    await owner.getByRole('button', { name: tr(L, 'teams.addMember') }).click();
    const dialog = owner.getByRole('dialog', { name: tr(L, 'teams.addMember') });
    await dialog.getByLabel(label(L, 'teams.username')).fill(who);
    await dialog.getByLabel(label(L, 'teams.role')).click();
    await owner.getByRole('option', { name: tr(L, `teams.roles.${role}`) }).click();
    if (budget) {
      await dialog.getByLabel(label(L, 'teams.budget')).fill(budget);
      await dialog.getByLabel(label(L, 'teams.period')).click();
      await owner.getByRole('option', { name: tr(L, 'teams.periods.day') }).click();
    }
    await dialog.getByRole('button', { name: tr(L, 'teams.add') }).click();
    await dialog.waitFor({ state: 'hidden' });
  }
  const members = owner.getByRole('table', { name: tr(L, 'teams.members') });
  await expectText(members, `$5.00 / ${tr(L, 'teams.periods.day')}`);
  await expectText(members, tr(L, 'teams.roles.viewer'));
  await assertAccessible(owner, 'team members');
  await screenshot(owner, 'en-team-members');

  // A redemption code bought elsewhere goes into the team's wallet.
  const [bought] = await api.ok<string[]>('POST', '/api/redemption', { name: 'for the team', quota_usd: 5 });
  await owner.getByRole('button', { name: tr(L, 'teams.redeem') }).click();
  const redeem = owner.getByRole('dialog', { name: tr(L, 'teams.redeem') });
  await redeem.getByLabel(label(L, 'teams.code')).fill(bought);
  await redeem.getByRole('button', { name: tr(L, 'teams.redeemSubmit') }).click();
  await redeem.waitFor({ state: 'hidden' });
  await expectText(owner.locator('main'), '$30.00');

  // Paid online: the checkout comes back to the team's page; the verified event credits the wallet.
  await owner.getByRole('button', { name: tr(L, 'teams.pay') }).click();
  const payDialog = owner.getByRole('dialog', { name: tr(L, 'teams.pay') });
  await payDialog.getByLabel(label(L, 'topup.amount', { currency: 'USD' })).fill('10');
  await payDialog.getByRole('button', { name: tr(L, 'topup.pay') }).click();
  await owner.waitForURL(new RegExp(`/team/${team.id}\\?payment=pay_`));
  const session = stripe.created.at(-1)!;
  const paid = sessionEvent('checkout.session.completed', {
    id: session.id,
    client_reference_id: session.params.get('client_reference_id'),
    payment_status: 'paid',
    amount_total: 1000,
    currency: 'usd',
  });
  assert.equal((await deliverStripe(gw.url, paid, WEBHOOK_SECRET)).body.message, 'credited');
  await owner.reload();
  await owner.getByRole('heading', { level: 2, name: 'Platform' }).waitFor();
  await expectText(owner.locator('main'), '$40.00');

  await owner.getByRole('tab', { name: tr(L, 'teams.invitations') }).click();
  await owner.getByRole('button', { name: tr(L, 'teams.invite') }).click();
  const invite = owner.getByRole('dialog', { name: tr(L, 'teams.invite') });
  await invite.getByLabel(label(L, 'teams.email')).fill('cam@example.com');
  await invite.getByRole('button', { name: tr(L, 'teams.send') }).click();
  const link = await invite.getByLabel(label(L, 'teams.inviteLink')).inputValue();
  assert.match(link, /\/team-invite\?token=/);
  await owner.keyboard.press('Escape');
  await expectText(owner.getByRole('table', { name: tr(L, 'teams.invitations') }), 'cam@example.com');
  ownerProblems.assertNone('the owner on the team page');

  // ---- cam: opens the link signed out, signs in, accepts once ----
  const path = new URL(link).pathname + new URL(link).search;
  const { page: invitee } = await signIn(L, 'cam', 'cam-password-1', path);
  await invitee.getByRole('button', { name: tr(L, 'teams.accept') }).click();
  await invitee.getByRole('heading', { level: 2, name: 'Platform' }).waitFor();
  const cam = await Api.login(gw.url, 'cam', 'cam-password-1');
  const again = await cam.call('POST', '/api/team/invitations/accept', { token: new URL(link).searchParams.get('token') });
  assert.equal(again.status, 409);

  // ---- ben (member): switch to the team, create a team key, spend the team's money ----
  const { page: member, problems: memberProblems } = await signIn(L, 'ben', 'ben-password-1');
  await expectPage(member, L, 'nav.overview');
  await member.getByRole('combobox', { name: tr(L, 'teams.switcher') }).click();
  await member.getByRole('option', { name: 'Platform' }).click();
  await member.getByRole('tab', { name: tr(L, 'teams.keys') }).click();
  await member.getByRole('button', { name: tr(L, 'teams.newKey') }).click();
  const newKey = member.getByRole('dialog', { name: tr(L, 'teams.newKey') });
  await newKey.getByLabel(label(L, 'teams.keyName')).fill('agent');
  await newKey.getByRole('button', { name: tr(L, 'common.create') }).click();
  const shown = member.getByRole('dialog', { name: tr(L, 'teams.keyCreated') });
  const key = await shown.getByLabel(label(L, 'teams.key')).inputValue();
  assert.match(key, /^sk-/);
  await member.keyboard.press('Escape');
  await expectText(member.getByRole('table', { name: tr(L, 'teams.keys') }), 'agent');
  const called = await cam.call(
    'POST',
    '/v1/chat/completions',
    { model: 'team-model', max_tokens: 7, messages: [{ role: 'user', content: 'hi' }] },
    { authorization: `Bearer ${key}` },
  );
  assert.equal(called.status, 200, JSON.stringify(called.body));
  await eventually(async () => {
    const t = await api.ok<{ quota_usd: number; used_quota_usd: number }>('GET', `/api/team/${team.id}`);
    assert.equal(t.used_quota_usd, 0.007);
    assert.equal(t.quota_usd, 39.993);
  });
  const benSelf = await (await Api.login(gw.url, 'ben', 'ben-password-1')).ok<{ used_quota: number }>('GET', '/api/user/self');
  assert.equal(benSelf.used_quota, 0, "the member's own balance pays nothing");
  // The call's log row is written in the log writer's next batch: the usage shows it from then on.
  await eventually(async () => {
    const u = await api.ok<{ members: Array<{ username: string; calls: number }> }>('GET', `/api/team/${team.id}/usage`);
    assert.deepEqual(
      u.members.map((m) => [m.username, m.calls]),
      [['ben', 1]],
    );
  });
  await member.getByRole('tab', { name: tr(L, 'teams.usage') }).click();
  await expectText(member.getByRole('table', { name: tr(L, 'teams.usageByMember') }), 'ben');
  await assertAccessible(member, 'team usage');
  memberProblems.assertNone('the member on the team page');

  // ---- vic (viewer): usage only ----
  const { page: viewer } = await signIn(L, 'vic', 'vic-password-1', `/team/${team.id}`);
  await viewer.getByRole('heading', { level: 2, name: 'Platform' }).waitFor();
  await viewer.getByRole('tab', { name: tr(L, 'teams.usage') }).waitFor();
  assert.equal(await viewer.getByRole('tab', { name: tr(L, 'teams.keys') }).count(), 0);
  assert.equal(await viewer.getByRole('tab', { name: tr(L, 'teams.members') }).count(), 0);
});

test("a team's owner buys a plan for the team from its wallet on the Plan tab; a member has no Plan tab", async () => {
  const L = 'en';
  const api = await Api.login(gw.url);
  for (const u of ['olga', 'max']) await api.ok('POST', '/api/user', { username: u, password: `${u}-password-1` });
  const team = await api.ok<{ id: number }>('POST', '/api/team', { name: 'Studio' });
  await api.ok('POST', `/api/team/${team.id}/members`, { username: 'olga', role: 'owner' });
  await api.ok('POST', `/api/team/${team.id}/members`, { username: 'max', role: 'member' });
  await api.ok('POST', `/api/team/${team.id}/quota`, { quota_usd: 10, ref: 'studio-start' });
  await api.ok('POST', '/api/plan', { name: 'Team Pro', price_usd: 3, windows: [{ every: '5h', quota_usd: 2 }] });

  const { page: owner, problems } = await signIn(L, 'olga', 'olga-password-1', `/team/${team.id}`);
  await owner.getByRole('heading', { level: 2, name: 'Studio' }).waitFor();
  await owner.getByRole('tab', { name: tr(L, 'teams.plan') }).click();
  const card = owner.getByRole('article', { name: 'Team Pro' });
  await card.getByRole('button', { name: tr(L, 'teams.planBuy') }).click();
  await owner.getByRole('heading', { name: 'Team Pro', level: 3 }).waitFor();
  await card.getByRole('button', { name: tr(L, 'teams.planRenew') }).waitFor();
  await owner.getByRole('group', { name: tr(L, 'plans.windowOf', { every: '5h' }) }).waitFor();
  await expectText(owner.locator('main'), '$7.00');
  const held = await api.ok<{ plan: { name: string } | null }>('GET', `/api/team/${team.id}/plan`);
  assert.equal(held.plan?.name, 'Team Pro');
  const olga = await (await Api.login(gw.url, 'olga', 'olga-password-1')).ok<{ quota: number }>('GET', '/api/user/self');
  assert.equal(olga.quota, 0, "the owner's own balance paid nothing");
  await assertAccessible(owner, 'team plan');
  await screenshot(owner, 'en-team-plan');
  problems.assertNone('the owner on the team plan tab');

  const { page: member } = await signIn(L, 'max', 'max-password-1', `/team/${team.id}`);
  await member.getByRole('tab', { name: tr(L, 'teams.keys') }).waitFor();
  assert.equal(await member.getByRole('tab', { name: tr(L, 'teams.plan') }).count(), 0);
});

test('My teams in Chinese', async () => {
  const L = 'zh-CN';
  const api = await Api.login(gw.url);
  await api.ok('POST', '/api/user', { username: 'zoe', password: 'zoe-password-1' });
  const t = await api.ok<{ id: number }>('POST', '/api/team', { name: '研发部' });
  await api.ok('POST', `/api/team/${t.id}/members`, { username: 'zoe', role: 'admin' });
  const { page, problems } = await signIn(L, 'zoe', 'zoe-password-1');
  await expectPage(page, L, 'nav.overview');
  await navLink(page, L, 'nav.myTeams').click();
  await expectPage(page, L, 'nav.myTeams');
  const table = page.getByRole('table', { name: tr(L, 'nav.myTeams') });
  await expectText(table, '研发部');
  await expectText(table, tr(L, 'teams.standing.admin'));
  await assertAccessible(page, 'my teams (zh-CN)');
  await screenshot(page, 'zh-my-teams');
  problems.assertNone('my teams (zh-CN)');
});
