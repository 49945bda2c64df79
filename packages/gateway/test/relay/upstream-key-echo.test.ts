/**
 * Channel keys never come back through upstream error text: an upstream that echoes the credentials
 * it received in 400/401/429/500 error bodies (raw, URL-encoded and JSON-escaped), or in a body cut
 * off by a dropped connection, shows none of them to the caller — OpenAI, Azure, Anthropic and Gemini
 * channels, streamed and not, in the channel's own format and converted, and a pass-through
 * endpoint, and an upstream stream error event converted for the caller — nor in the log rows
 * (admin and user log APIs, and the table itself) or the process log; nor does a task plugin's vendor through a
 * rejected submit or a failure reason.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createTestDatabase, TEST_CRYPTO_SECRET, TEST_ROOT_PASSWORD, type TestDatabase } from '../harness.ts';
import { startGateway, type Gateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createChannel } from '../relay-fixtures.ts';
import { api, createTaskChannel, createUser, installPlugins, setTaskPrice, type TestUser } from '../fakes/vendor/fixtures.ts';
import { AdminClient } from '../admin-client.ts';

/** Keys with characters that change when URL-encoded or JSON-escaped. */
const KEYS: Record<string, string> = {
  openai: 'sk-echo-openai/4f1c+9a2b=="x"',
  azure: 'az-echo-azure/77aa+e1e1==',
  anthropic: 'sk-ant-echo/5b6c+d7e8==',
  gemini: 'AIza-echo-gemini/0d0e+f1f2==',
  plugin: 'vendor-echo-key/31d4+a1b2==',
};
const TYPES: Record<string, number> = { openai: 1, azure: 3, anthropic: 14, gemini: 24 };

function leaks(text: string): string | null {
  for (const k of Object.values(KEYS)) {
    for (const form of [k, encodeURIComponent(k), JSON.stringify(k).slice(1, -1), k.slice(0, 20)]) if (text.includes(form)) return form;
  }
  return null;
}

let gw: Gateway;
let db: TestDatabase;
/** The gateway's process log, at debug level. */
const processLog: string[] = [];
let echo: Server;
let base = '';
let user: TestUser;
let n = 0;

before(async () => {
  // Echoes every credential it got: in the error body of the status the model name asks for
  // (`echo-400`), or in the first bytes of a 500 whose connection then drops (`echo-drop`).
  echo = createServer((req, res) => {
    let b = '';
    req.on('data', (c) => (b += c));
    req.on('end', () => {
      const key = String(
        req.headers['x-api-key'] ?? req.headers['x-goog-api-key'] ?? req.headers['api-key'] ?? req.headers.authorization ?? '',
      ).replace(/^Bearer /, '');
      const text = `invalid credentials ${key} (sent as ${req.headers.authorization ?? ''}; encoded ${encodeURIComponent(key)})`;
      const anthropic = !!req.headers['x-api-key'];
      const gemini = !!req.headers['x-goog-api-key'];
      // Task vendor: a submit that is queued and then fails, or fails at once, quoting the key.
      const json = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (/echo-queue/.test(b)) return json(200, { id: 'vt_q', status: 'queued' });
      if (/echo-immediate/.test(b)) return json(200, { id: 'vt_i', status: 'failed', error: text });
      if (req.method === 'GET' && /\/v1\/video\/tasks\/vt_q$/.test(req.url ?? ''))
        return json(200, { id: 'vt_q', status: 'failed', error: text });
      if (/echo-sse/.test(b)) {
        // A stream that fails with an error event (Anthropic's format) quoting the key.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: text } })}\n\n`);
        return;
      }
      const what = /echo-(\d{3}|drop)/.exec(req.url + b)?.[1] ?? '400';
      const status = what === 'drop' ? 500 : Number(what);
      const body = JSON.stringify(
        anthropic
          ? { type: 'error', error: { type: 'invalid_request_error', message: text }, echo: key }
          : gemini
            ? { error: { code: status, message: text, status: 'INVALID_ARGUMENT' }, echo: key }
            : { error: { message: text, type: 'invalid_request_error', code: key }, echo: key },
      );
      if (what === 'drop') {
        res.writeHead(500, { 'content-type': 'application/json', 'content-length': String(body.length + 1000) });
        res.write(body);
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    });
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  db = await createTestDatabase();
  gw = await startGateway({
    env: {
      CRYPTO_SECRET: TEST_CRYPTO_SECRET,
      GATEHOUSE_ROOT_PASSWORD: TEST_ROOT_PASSWORD,
      CACHE_SYNC_INTERVAL_SECONDS: '0.2',
      DATABASE_URL: db.url,
      RELAY_ALLOW_UNPRICED_MODELS: 'true',
      TASK_POLL_INTERVAL_SECONDS: '0.05',
      CONSOLE_ENABLED: 'false',
    },
    config: { port: 0, host: '127.0.0.1' },
    log: createLogger(
      'debug',
      new Writable({
        write(c, _e, cb) {
          processLog.push(String(c));
          cb();
        },
      }) as never,
    ),
  });
  user = await createUser(gw, { name: 'echoer', quota: 1_000_000_000 });
});

after(async () => {
  await gw?.close();
  await db?.drop();
  echo?.close();
});

type Caller = 'openai' | 'anthropic' | 'gemini';

async function call(caller: Caller, model: string, stream: boolean): Promise<{ status: number; text: string; requestId: string }> {
  const msg = [{ role: 'user', content: 'hi' }];
  let url: string;
  let body: unknown;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (caller === 'openai') {
    url = `${gw.url}/v1/chat/completions`;
    body = { model, messages: msg, stream };
    headers.authorization = `Bearer ${user.key}`;
  } else if (caller === 'anthropic') {
    url = `${gw.url}/v1/messages`;
    body = { model, max_tokens: 16, messages: msg, stream };
    headers['x-api-key'] = user.key;
  } else {
    url = `${gw.url}/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
    body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    headers['x-goog-api-key'] = user.key;
  }
  const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: r.status, text: await r.text(), requestId: r.headers.get('x-request-id') ?? '' };
}

test('upstream error bodies and failures that echo the channel key reach neither the caller nor the logs', async () => {
  const requestIds: string[] = [];
  for (const type of Object.keys(TYPES)) {
    const callers: Caller[] = type === 'anthropic' ? ['anthropic', 'openai'] : type === 'gemini' ? ['gemini', 'openai'] : ['openai'];
    for (const caller of callers) {
      for (const what of ['400', '401', '429', '500', 'drop']) {
        for (const stream of [false, true]) {
          // One channel per call: failures put channels in cooldown or disable their key.
          const model = `echo-${what}-${type}-${n++}`;
          await createChannel(gw, {
            type: TYPES[type],
            baseUrl: base,
            keys: [KEYS[type]],
            models: [model],
            headerOverride: { 'x-extra-auth': 'Token {api_key}' },
          });
          const r = await call(caller, model, stream);
          const label = `${type} channel, ${caller} caller, upstream ${what}, stream ${stream}`;
          assert.ok(r.status >= 400, `${label}: ${r.status} ${r.text}`);
          if (what === '400') assert.equal(r.status, 400, `${label}: ${r.text}`);
          else assert.equal(r.status, 502, `${label}: ${r.text}`);
          if (what !== 'drop') assert.match(r.text, /\[redacted\]/, `${label}: the echo is answered redacted: ${r.text}`);
          assert.equal(leaks(r.text), null, `${label}: the caller saw the key: ${r.text}`);
          requestIds.push(r.requestId);
        }
      }
    }
  }
  // An upstream stream error event converted for the caller loses the key too.
  {
    const model = `echo-sse-${n++}`;
    await createChannel(gw, { type: TYPES.anthropic, baseUrl: base, keys: [KEYS.anthropic], models: [model] });
    const r = await call('openai', model, true);
    assert.equal(r.status, 200);
    assert.match(r.text, /\[redacted\]/, r.text);
    assert.equal(leaks(r.text), null, `converted stream error: the caller saw the key: ${r.text}`);
  }
  // A pass-through endpoint (Responses) reads upstream errors the same way.
  for (const what of ['400', '500']) {
    const model = `echo-${what}-responses-${n++}`;
    await createChannel(gw, { type: TYPES.openai, baseUrl: base, keys: [KEYS.openai], models: [model] });
    const r = await fetch(`${gw.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: 'hi' }),
    });
    const text = await r.text();
    assert.ok(r.status >= 400, text);
    assert.match(text, /\[redacted\]/, text);
    assert.equal(leaks(text), null, `responses ${what}: the caller saw the key: ${text}`);
  }
  await gw.services.relay.logs.flush();
  const rows = await gw.core.h.db.selectFrom('logs').selectAll().execute();
  assert.ok(rows.length >= requestIds.length, 'every call left a log row');
  assert.equal(leaks(JSON.stringify(rows)), null, 'a log row holds the key');
  const root = await AdminClient.login(gw.url);
  const own = await AdminClient.login(gw.url, 'echoer', 'echoer-password');
  for (let page = 1; page <= Math.ceil(rows.length / 100); page++) {
    const all = await root.call('GET', `/api/log?page_size=100&page=${page}`);
    assert.equal(all.status, 200);
    assert.equal(leaks(all.text), null, 'the admin log API shows the key');
    const mine = await own.call('GET', `/api/log/self?page_size=100&page=${page}`);
    assert.equal(mine.status, 200);
    assert.equal(leaks(mine.text), null, 'the user log API shows the key');
  }
  assert.ok((await own.call('GET', `/api/log/self?request_id=${requestIds[0]}`)).body.data.total >= 1);
  assert.ok(processLog.length > 0, 'the process log was captured');
  assert.equal(leaks(processLog.join('')), null, 'the process log holds the key');
});

test('a task vendor that echoes the plugin credentials in a rejected submit: neither the caller nor the task shows them', async () => {
  await installPlugins(gw, ['loopback-video.js']);
  await createTaskChannel(gw, { name: 'echo-vendor', plugin: 'loopback-video', baseUrl: base, key: KEYS.plugin });
  await setTaskPrice(gw, 'lv-1', { perRequest: 0.01 });
  for (const what of ['400', '500']) {
    const r = await api(gw.url, user.key, 'POST', '/v1/tasks/loopback-video', { model: 'lv-1', prompt: `echo-${what}` });
    assert.ok(r.status >= 400, JSON.stringify(r.body));
    const text = r.raw.toString('utf8');
    assert.match(text, /\[redacted\]/, text);
    assert.equal(leaks(text), null, `the caller saw the key: ${text}`);
  }
  // Failure reasons the plugin reads from its vendor: at once, and from a poll.
  for (const prompt of ['echo-immediate', 'echo-queue']) {
    const r = await api(gw.url, user.key, 'POST', '/v1/tasks/loopback-video', { model: 'lv-1', prompt });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    let t: any = null;
    for (let i = 0; i < 400 && t?.status !== 'FAILURE'; i++) {
      t = (await api(gw.url, user.key, 'GET', `/v1/tasks/${r.body.id}`)).body;
      if (t?.status !== 'FAILURE') await new Promise((res) => setTimeout(res, 25));
    }
    assert.equal(t.status, 'FAILURE', JSON.stringify(t));
    assert.match(t.fail_reason, /\[redacted\]/, t.fail_reason);
    assert.equal(leaks(JSON.stringify(t)), null, `${prompt}: the task shows the key: ${t.fail_reason}`);
  }
  const tasks = await gw.core.h.db.selectFrom('tasks').selectAll().execute();
  assert.ok(tasks.length >= 4);
  // (A task's stored vendor data is the vendor's own 200 answer, never shown to users: not checked.)
  assert.equal(leaks(JSON.stringify(tasks.map((t) => [t.fail_reason, t.flag_reason]))), null, 'a task row holds the key');
  await gw.services.relay.logs.flush();
  assert.equal(leaks(JSON.stringify(await gw.core.h.db.selectFrom('logs').selectAll().execute())), null, 'a log row holds the key');
  const list = await api(gw.url, user.key, 'GET', '/v1/tasks?limit=50');
  assert.equal(leaks(list.raw.toString('utf8')), null);
  assert.equal(leaks(processLog.join('')), null, 'the process log holds the key');
});
