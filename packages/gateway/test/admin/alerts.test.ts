/**
 * Alerts end to end, against receivers on loopback: operator webhooks when a channel key and its
 * channel are auto-disabled and enabled again and when a task ends in an unknown outcome; a user's
 * low-balance webhook, once per crossing. Every signature is checked; a delivery that failed is
 * retried with the same idempotency id; e-mails reach a real SMTP server (smtp-server).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { SMTPServer } from 'smtp-server';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/upstreams/openai.ts';
import { createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';
import { startVendor, type Vendor } from '../fakes/vendor/server.ts';
import { api, createTaskChannel, createUser, installPlugins, setTaskPrice } from '../fakes/vendor/fixtures.ts';
import { AlertDelivery } from '../../src/alerts/delivery.ts';

interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  status: number;
}
interface Receiver {
  url: string;
  got: Received[];
  failNext: number;
  server: Server;
}

async function receiver(): Promise<Receiver> {
  const r: Receiver = { url: '', got: [], failNext: 0, server: null as never };
  r.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = r.failNext > 0 ? 500 : 200;
      if (r.failNext > 0) r.failNext--;
      r.got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((ok) => r.server.listen(0, '127.0.0.1', ok));
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/hook`;
  return r;
}

interface Mail {
  from: string;
  to: string[];
  text: string;
}

const OPS_SECRET = 'ops-signing-secret-0123456789';
const Q = 500_000;

let gw: TestGateway;
let ops: Receiver;
let users: Receiver;
let smtp: SMTPServer;
const mails: Mail[] = [];
const fakes: FakeOpenAI[] = [];
let vendor: Vendor;
let root: AdminClient;

const verify = (secret: string, r: Received) => {
  const want = `sha256=${createHmac('sha256', secret).update(r.body).digest('hex')}`;
  assert.equal(r.headers['x-gatehouse-signature'], want, 'signature over the body');
};
const events = (r: Receiver, kind: string) =>
  r.got.filter((g) => g.status === 200 && JSON.parse(g.body).kind === kind).map((g) => ({ ...JSON.parse(g.body), raw: g }));

before(async () => {
  ops = await receiver();
  users = await receiver();
  smtp = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _s, cb) {
      cb(auth.username === 'mailer' && auth.password === 'mail-pass' ? null : new Error('bad login'), { user: auth.username });
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((x) => x.address),
          text: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((ok) => smtp.listen(0, '127.0.0.1', ok));
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  vendor = await startVendor();
  gw = await startTestGateway({
    env: {
      RELAY_PROBE_INTERVAL_SECONDS: '0.3',
      CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true',
      TASK_POLL_INTERVAL_SECONDS: '0.05',
      SMTP_URL: `smtp://mailer:mail-pass@127.0.0.1:${smtpPort}`,
      MAIL_FROM: 'Gatehouse Alerts <alerts@gatehouse.test>',
    },
  });
  root = await AdminClient.login(gw.url);
  await root.ok('PUT', '/api/option', {
    options: {
      AutoDisableFailureThreshold: 1,
      AlertWebhookUrl: ops.url,
      AlertWebhookSecret: OPS_SECRET,
      AlertEmailTo: 'ops@example.com',
      AlertDeliveryIntervalSeconds: 1,
      AlertRetryBaseSeconds: 1,
    },
  });
});

after(async () => {
  await gw?.stop();
  await Promise.all(fakes.map((f) => f.close()));
  await vendor?.close();
  ops?.server.close();
  users?.server.close();
  await new Promise<void>((ok) => (smtp ? smtp.close(() => ok()) : ok()));
});

test('the operator secret is never listed; a stored one shows as [set]', async () => {
  const list = await root.ok<any[]>('GET', '/api/option');
  assert.equal(list.find((o) => o.key === 'AlertWebhookSecret').value, '[set]');
  assert.ok(!JSON.stringify(list).includes(OPS_SECRET));
});

test('operator alerts: a key and its channel auto-disabled, then enabled again; signed, retried with the same idempotency id, e-mailed', async () => {
  const up = await startFakeOpenAI({ keys: ['ok'] });
  const other = await startFakeOpenAI();
  fakes.push(up, other);
  const id = await createChannel(gw, { baseUrl: up.url, models: ['al-chan'], keys: ['revoked'], priority: 10 });
  await createChannel(gw, { baseUrl: other.url, models: ['al-chan'], priority: 0 });
  await setPrice(gw, 'al-chan', { input: 1, output: 1 });
  const c = await createCaller(gw);
  ops.failNext = 1; // the first delivery fails once
  const client = new OpenAI({ apiKey: c.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  await client.chat.completions.create({ model: 'al-chan', messages: [{ role: 'user', content: 'hi' }] });

  await waitFor(
    () => events(ops, 'channel.auto_disabled').length === 1 && events(ops, 'channel.key_auto_disabled').length === 1,
    15_000,
    'disable alerts',
  );
  const keyEv = events(ops, 'channel.key_auto_disabled')[0];
  assert.equal(keyEv.data.channel_id, id);
  assert.equal(keyEv.data.key_index, 0);
  assert.match(keyEv.data.reason, /401/);
  assert.ok(!ops.got.some((g) => g.body.includes('revoked')), 'the channel key never reaches an alert');
  for (const g of ops.got) {
    verify(OPS_SECRET, g);
    assert.equal(g.headers['content-type'], 'application/json');
    assert.ok(typeof g.headers['x-idempotency-id'] === 'string');
    assert.equal(g.headers['x-gatehouse-event'], JSON.parse(g.body).kind);
  }
  // The failed attempt and its retry: same id, same body.
  const failed = ops.got.find((g) => g.status === 500)!;
  assert.ok(failed);
  const retry = ops.got.filter((g) => g.headers['x-idempotency-id'] === failed.headers['x-idempotency-id']);
  assert.deepEqual(
    retry.map((g) => g.status),
    [500, 200],
  );
  assert.equal(retry[0].body, retry[1].body);
  assert.equal(JSON.parse(failed.body).id, failed.headers['x-idempotency-id']);

  // The upstream takes the key again: the probe enables key and channel, and says so.
  up.keys!.add('revoked');
  await waitFor(
    () => events(ops, 'channel.enabled').length === 1 && events(ops, 'channel.key_enabled').length === 1,
    15_000,
    'recovery alerts',
  );
  assert.equal(events(ops, 'channel.enabled')[0].data.channel_id, id);

  // The same events by e-mail, each with its own idempotency id.
  const mail = await waitFor(() => mails.find((m) => /channel\.auto_disabled/.test(m.text)), 15_000, 'alert e-mail');
  assert.deepEqual(mail.to, ['ops@example.com']);
  assert.equal(mail.from, 'alerts@gatehouse.test');
  assert.match(mail.text, /X-Idempotency-Id: alr_[A-Za-z0-9]+:email/i);

  const outbox = await root.ok('GET', '/api/alert?target=operator&transport=webhook&page_size=100');
  const hooks = outbox.items.filter((a: any) => a.transport === 'webhook' && a.kind.startsWith('channel.'));
  assert.equal(hooks.length, 4);
  await waitFor(
    async () =>
      (await root.ok('GET', '/api/alert?target=operator&page_size=100')).items
        .filter((a: any) => a.kind.startsWith('channel.'))
        .every((a: any) => a.status === 'delivered'),
    15_000,
    'every channel alert delivered',
  );
  const retried = (await root.ok('GET', '/api/alert?page_size=100')).items.find((a: any) => a.id === failed.headers['x-idempotency-id']);
  assert.equal(retried.attempts, 2);
  assert.equal(retried.last_error, null);
});

test('operator alert: a task that ends in an unknown outcome', async () => {
  await installPlugins(gw, ['loopback-video.js']);
  await createTaskChannel(gw, { name: 'al-lv', plugin: 'loopback-video', baseUrl: vendor.url });
  await setTaskPrice(gw, 'lv-1', { expression: 'u("seconds") * 0.1' });
  const u = await createUser(gw, { name: 'tasker', quota: 100 * Q });
  const limits = gw.services.tasks.service.limits;
  const saved = limits.headersTimeoutMs;
  limits.headersTimeoutMs = 300;
  let taskId: string;
  try {
    const r = await api(gw.url, u.key, 'POST', '/v1/tasks/loopback-video', { model: 'lv-1', scenario: 'hang-submit', seconds: 1 });
    assert.equal(r.status, 502, JSON.stringify(r.body));
    taskId = /task_[A-Za-z0-9]{32}/.exec(r.body.error.message)![0];
  } finally {
    limits.headersTimeoutMs = saved;
  }
  const ev = await waitFor(() => events(ops, 'task.unknown_outcome').find((e) => e.data.task_id === taskId), 15_000, 'task alert');
  assert.equal(ev.data.user_id, u.userId);
  assert.equal(ev.data.plugin, 'loopback-video');
  assert.match(ev.data.reason, /submit outcome unknown/);
  verify(OPS_SECRET, ev.raw);
});

test("low balance: a user's threshold and webhook; one alert per crossing below, signed with the user's secret", async () => {
  const alice = await createUser(gw, { name: 'alice', quota: 10 * Q });
  const ui = await AdminClient.login(gw.url, 'alice', 'alice-password');
  assert.deepEqual(await ui.ok('GET', '/api/user/self/alerts'), {
    low_balance_threshold: 0,
    low_balance_threshold_usd: 0,
    email: null,
    webhook_url: null,
    webhook_secret_set: false,
    low_balance_alerted: false,
  });
  await ui.fails(400, 'PUT', '/api/user/self/alerts', { webhook_url: 'ftp://x' }, 'webhook_url');
  await ui.fails(400, 'PUT', '/api/user/self/alerts', { email: 'not-an-address' }, 'email');
  await ui.fails(400, 'PUT', '/api/user/self/alerts', { low_balance_threshold: -1 }, 'low_balance_threshold');
  const saved = await ui.call('PUT', '/api/user/self/alerts', {
    low_balance_threshold_usd: 5,
    webhook_url: users.url,
    email: 'alice@example.com',
  });
  assert.equal(saved.status, 200, saved.text);
  const secret = saved.body.data.webhook_secret as string;
  assert.match(secret, /^whsec_/);
  assert.equal(saved.body.data.low_balance_threshold, 5 * Q);
  assert.equal(saved.body.data.webhook_secret_set, true);
  assert.equal((await ui.ok('GET', '/api/user/self/alerts')).webhook_secret, undefined, 'the secret is shown once');

  const lowEvents = () => events(users, 'user.low_balance').filter((e) => e.data.user_id === alice.userId);
  const alerted = async (v: boolean) =>
    waitFor(async () => (await ui.ok('GET', '/api/user/self/alerts')).low_balance_alerted === v, 15_000, `alerted=${v}`);

  // 10 → 4 USD: below 5, one alert.
  await root.ok('POST', `/api/user/${alice.userId}/quota`, { mode: 'set', amount: 4 * Q });
  const first = await waitFor(() => lowEvents()[0], 15_000, 'low-balance alert');
  verify(secret, first.raw);
  assert.equal(first.target, `user:${alice.userId}`);
  assert.equal(first.data.balance, 4 * Q);
  assert.equal(first.data.threshold, 5 * Q);
  await alerted(true);
  // Further down: the same crossing, no new alert. Back up: re-armed. Down again: a second alert.
  await root.ok('POST', `/api/user/${alice.userId}/quota`, { mode: 'set', amount: 3 * Q });
  await root.ok('POST', `/api/user/${alice.userId}/quota`, { mode: 'set', amount: 8 * Q });
  await alerted(false);
  await root.ok('POST', `/api/user/${alice.userId}/quota`, { mode: 'set', amount: 2 * Q });
  await waitFor(() => lowEvents().length === 2, 15_000, 'second low-balance alert');
  assert.equal(lowEvents()[1].data.balance, 2 * Q);
  assert.notEqual(lowEvents()[0].id, lowEvents()[1].id);
  const rows = await gw.core.h.db.selectFrom('alerts').selectAll().where('target', '=', `user:${alice.userId}`).execute();
  assert.equal(rows.filter((r) => r.transport === 'webhook').length, 2, 'one webhook row per crossing');
  assert.equal(rows.filter((r) => r.transport === 'email').length, 2, 'one e-mail row per crossing');
  await waitFor(() => mails.filter((m) => m.to.includes('alice@example.com')).length === 2, 15_000, 'low-balance e-mails');

  // Off: no threshold, no alert.
  await ui.ok('PUT', '/api/user/self/alerts', { low_balance_threshold: 0 });
  assert.equal((await ui.ok('GET', '/api/user/self/alerts')).low_balance_alerted, false);
  // Users see only their own settings; the outbox is for admins.
  assert.equal((await ui.call('GET', '/api/alert')).status, 403);
});

test('two nodes: one holds the delivery lease and sends; a delivery is sent once', async () => {
  // This gateway's own worker steps aside (and gives its lease up); two nodes compete for the lease.
  const { alerts, delivery } = gw.services.alerts;
  await delivery.stop();
  const options = gw.services.admin.options;
  const a = new AlertDelivery(gw.core, alerts, options, 'node-a');
  const b = new AlertDelivery(gw.core, alerts, options, 'node-b');
  const ev = await alerts.test('root');
  await Promise.all([a.round(), b.round()]);
  assert.equal(Number(a.holdsLease) + Number(b.holdsLease), 1, 'exactly one node holds the lease');
  const holder = a.holdsLease ? a : b;
  const other = a.holdsLease ? b : a;
  // The holder keeps it; the other stays out while it is valid.
  await Promise.all([holder.round(), other.round(), other.round()]);
  assert.equal(holder.holdsLease, true);
  assert.equal(other.holdsLease, false);
  const got = ops.got.filter((g) => g.headers['x-idempotency-id'] === ev.id);
  assert.equal(got.length, 1, 'sent once');
  verify(OPS_SECRET, got[0]);
  assert.equal(JSON.parse(got[0].body).kind, 'test');
  // The holder stops and gives the lease up: the other node takes over at once.
  await holder.stop();
  await other.round();
  assert.equal(other.holdsLease, true);
  await other.stop();
});
