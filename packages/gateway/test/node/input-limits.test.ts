/**
 * What a caller can make the gateway read, hold and compute before paying: credentials are checked
 * before a body is read, slow bodies time out, uploads have one total cap, token counting never
 * stalls other tenants, and errors do not echo huge input. Each test is the attack, over raw HTTP
 * or the official SDKs, against a real gateway.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startTestGateway } from '../harness.ts';
import { startFakeOpenAI } from '../fakes/upstreams/openai.ts';
import { createCaller, createChannel, setPrice } from '../relay-fixtures.ts';
import { AdminClient } from '../admin-client.ts';
import { installPlugins } from '../fakes/vendor/fixtures.ts';

interface Sent {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  bytesSent: number;
  total: number;
}

/**
 * Sends `total` body bytes (from `chunk()`) as fast as the server reads them, `delayMs` apart, and
 * stops when the answer arrives. `bytesSent < total` means the server answered before reading the body.
 */
function sendBody(
  url: string,
  path: string,
  headers: Record<string, string>,
  total: number,
  chunk: (i: number) => Buffer,
  delayMs = 0,
  agent: http.Agent | false = false,
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    let bytesSent = 0;
    let answered = false;
    let failed: Error | null = null;
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path,
      method: 'POST',
      headers: { ...headers, 'content-length': String(total) },
      agent,
    });
    req.on('response', (res) => {
      answered = true;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, bytesSent, total });
        req.destroy();
      });
      res.on('error', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, bytesSent, total }));
    });
    req.on('error', (e) => {
      // The server closing the connection while we still write is expected once it answered.
      if (!answered) failed = e;
    });
    req.on('close', () => {
      if (!answered) reject(failed ?? new Error(`closed without an answer after ${bytesSent} of ${total} bytes`));
    });
    let i = 0;
    const pump = () => {
      while (!answered && !req.destroyed && bytesSent < total) {
        let c = chunk(i++);
        if (bytesSent + c.length > total) c = c.subarray(0, total - bytesSent);
        bytesSent += c.length;
        const more = req.write(c);
        if (delayMs > 0) {
          setTimeout(pump, delayMs);
          return;
        }
        if (!more) {
          req.once('drain', pump);
          return;
        }
      }
      if (bytesSent >= total && !answered) req.end();
    };
    pump();
  });
}

/** POSTs a JSON body; `sent` resolves when all of it was handed to the connection. */
function postJson(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: string,
): { sent: Promise<void>; answer: Promise<{ status: number; body: string }> } {
  const u = new URL(url);
  const req = http.request({
    host: u.hostname,
    port: u.port,
    path,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    agent: false,
  });
  const sent = new Promise<void>((resolve) => req.on('finish', () => resolve()));
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
  });
  req.end(body);
  return { sent, answer };
}

const MB = 1024 * 1024;
const filler = Buffer.alloc(64 * 1024, 'a');

test('a bad credential is refused before the body is read, in every family; login takes small bodies only', async () => {
  const gw = await startTestGateway();
  try {
    const total = 60 * MB;
    const cases: Array<{ path: string; headers: Record<string, string>; status: number; envelope: (b: any) => unknown }> = [
      {
        path: '/v1/chat/completions',
        headers: { authorization: 'Bearer sk-wrong', 'content-type': 'application/json' },
        status: 401,
        envelope: (b) => b.error.code,
      },
      {
        path: '/v1/messages',
        headers: { 'x-api-key': 'sk-wrong', 'content-type': 'application/json' },
        status: 401,
        envelope: (b) => b.type === 'error' && b.error.type,
      },
      {
        path: '/v1beta/models/m:generateContent',
        headers: { 'x-goog-api-key': 'sk-wrong', 'content-type': 'application/json' },
        status: 401,
        envelope: (b) => b.error.status,
      },
      {
        path: '/v1/images/edits',
        headers: { authorization: 'Bearer sk-wrong', 'content-type': 'multipart/form-data; boundary=x' },
        status: 401,
        envelope: (b) => b.error.code,
      },
      {
        path: '/v1/tasks/anything',
        headers: { authorization: 'Bearer sk-wrong', 'content-type': 'multipart/form-data; boundary=x' },
        status: 401,
        envelope: (b) => b.error.code,
      },
      {
        path: '/api/channel',
        headers: { authorization: 'Bearer gh-wrong', 'content-type': 'application/json' },
        status: 401,
        envelope: (b) => b.success === false && b.message,
      },
      {
        path: '/api/user/login',
        headers: { 'content-type': 'application/json' },
        status: 413,
        envelope: (b) => b.success === false && b.message,
      },
    ];
    for (const c of cases) {
      const r = await sendBody(gw.url, c.path, c.headers, total, () => filler);
      assert.equal(r.status, c.status, `${c.path}: ${r.body}`);
      assert.ok(c.envelope(JSON.parse(r.body)), `${c.path}: the family's envelope: ${r.body}`);
      assert.ok(r.bytesSent < total, `${c.path}: answered after the whole body (${r.bytesSent} bytes)`);
      assert.equal(r.headers.connection, 'close', `${c.path}: the rest of the body is not read either`);
    }
    // A client that keeps connections alive is told the connection closes too (the body stays unread).
    const keepAlive = new http.Agent({ keepAlive: true });
    const r = await sendBody(gw.url, '/v1/chat/completions', cases[0].headers, total, () => filler, 0, keepAlive);
    keepAlive.destroy();
    assert.equal(r.status, 401);
    assert.ok(r.bytesSent < total, `answered after the whole body (${r.bytesSent} bytes)`);
    assert.equal(r.headers.connection, 'close');
  } finally {
    await gw.stop();
  }
});

test('a body sent too slowly is cut off with 408 (REQUEST_TIMEOUT_SECONDS)', async () => {
  const gw = await startTestGateway({ env: { REQUEST_TIMEOUT_SECONDS: '1' } });
  try {
    const c = await createCaller(gw, { quota: 1_000_000 });
    // A valid key: the gateway waits for the body, one byte every 50 ms — 1,000 bytes would take 50 s.
    const r = await sendBody(
      gw.url,
      '/v1/chat/completions',
      { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      1000,
      () => Buffer.from(' '),
      50,
    );
    assert.equal(r.status, 408);
    assert.ok(r.bytesSent < r.total);
  } finally {
    await gw.stop();
  }
});

test('task uploads: an unknown plugin is refused before the body is read; the files of one request have one total cap', async () => {
  const gw = await startTestGateway({ env: { MAX_UPLOAD_MB: '2' } });
  try {
    await installPlugins(gw, ['loopback-video.js']);
    const c = await createCaller(gw, { quota: 1_000_000 });
    const auth = { authorization: `Bearer ${c.key}` };
    const boundary = 'gatehouse-test-boundary';
    const multipart = { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` };

    const unknown = await sendBody(gw.url, '/v1/tasks/no-such-plugin', multipart, 200 * MB, () => filler);
    assert.equal(unknown.status, 404, unknown.body);
    assert.equal(JSON.parse(unknown.body).error.code, 'plugin_not_found');
    assert.ok(unknown.bytesSent < unknown.total, `read ${unknown.bytesSent} bytes for an unknown plugin`);

    // Many files, each under the per-file limit, together past the total: 413 in the task envelope
    // while the client is still sending (the rest is neither buffered nor read).
    const part = (i: number) =>
      Buffer.from(
        `--${boundary}\r\ncontent-disposition: form-data; name="image"; filename="f${i}.bin"\r\ncontent-type: application/octet-stream\r\n\r\n${'x'.repeat(512 * 1024)}\r\n`,
      );
    const head = Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="model"\r\n\r\nlv-1\r\n`);
    const big = await sendBody(gw.url, '/v1/tasks/loopback-video', multipart, 32 * 520 * 1024 + head.length, (i) =>
      i === 0 ? head : part(i),
    );
    assert.equal(big.status, 413, big.body);
    const e = JSON.parse(big.body).error;
    assert.equal(e.code, 'request_too_large');
    assert.match(e.message, /2 MiB/);
    assert.ok(big.bytesSent < big.total, `read all ${big.bytesSent} bytes`);

    // One file past the limit is refused at the first byte over it, not at the end of the part.
    const oneFile = Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="video"; filename="v.bin"\r\n\r\n`);
    const single = await sendBody(gw.url, '/v1/tasks/loopback-video', multipart, 200 * MB, (i) =>
      i === 0 ? Buffer.concat([head, oneFile]) : filler,
    );
    assert.equal(single.status, 413, single.body);
    assert.match(JSON.parse(single.body).error.message, /per file/);
    assert.ok(single.bytesSent < single.total, `read all ${single.bytesSent} bytes`);

    // The same decoder and cap on the protocol endpoints (OpenAI envelope).
    const edits = await sendBody(gw.url, '/v1/images/edits', multipart, 32 * 520 * 1024 + head.length, (i) => (i === 0 ? head : part(i)));
    assert.equal(edits.status, 413, edits.body);
    assert.equal(JSON.parse(edits.body).error.code, 'request_too_large');
  } finally {
    await gw.stop();
  }
});

test("large count_tokens calls run off the event loop: another tenant's chat answers before any of them; limits and balance hold", async () => {
  const gw = await startTestGateway();
  const up = await startFakeOpenAI();
  try {
    await createChannel(gw, { baseUrl: up.url, models: ['count-model'] });
    await setPrice(gw, 'count-model', { input: 1, output: 1 });
    const broke = await createCaller(gw, { quota: 0 });
    const counter = await createCaller(gw, { quota: 1 });
    const other = await createCaller(gw, { quota: 10_000_000 });

    // Counting is free, but only for a caller who could pay for a call.
    const refused = await new Anthropic({ apiKey: broke.key, baseURL: gw.url, maxRetries: 0 }).messages
      .countTokens({ model: 'count-model', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => null,
        (e: { status: number }) => e,
      );
    assert.equal(refused?.status, 429);
    const brokeGemini = await fetch(`${gw.url}/v1beta/models/count-model:countTokens`, {
      method: 'POST',
      headers: { 'x-goog-api-key': broke.key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    assert.equal(brokeGemini.status, 429);
    assert.equal(((await brokeGemini.json()) as { error: { status: string } }).error.status, 'RESOURCE_EXHAUSTED');

    // About 4 M characters of varied text each: a second or more of tokenizing apiece.
    const words = ['alpha', 'beta', 'gamma', 'delta', '入力', 'テスト', '12345', 'foo_bar', '{"x":1}', 'naïve'];
    const parts: string[] = [];
    for (let i = 0, n = 0; n < 4_000_000; i++) {
      const w = words[(i * 7919) % words.length];
      parts.push(w);
      n += w.length + 1;
    }
    const text = parts.join(' ');
    const body = JSON.stringify({ model: 'count-model', messages: [{ role: 'user', content: text }] });
    // A first small count loads the tokenizer, so the large ones below start counting at once.
    const warm = await fetch(`${gw.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': counter.key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'count-model', messages: [{ role: 'user', content: 'hello' }] }),
    });
    assert.equal(warm.status, 200);
    const order: string[] = [];
    const count = (i: number) => {
      const r = postJson(gw.url, '/v1/messages/count_tokens', { 'x-api-key': counter.key, 'anthropic-version': '2023-06-01' }, body);
      return {
        sent: r.sent,
        answer: r.answer.then((a) => {
          order.push(`count${i}`);
          return { status: a.status, body: JSON.parse(a.body) as { input_tokens: number } };
        }),
      };
    };
    const started = [count(1), count(2), count(3)];
    const counts = started.map((c) => c.answer);
    // Once the three bodies are with the gateway (sent, and a moment to read them), the other tenant
    // asks for a chat completion. Counting in place would hold the event loop for seconds from here.
    await Promise.all(started.map((c) => c.sent));
    await new Promise((r) => setTimeout(r, 200));
    const chat = new OpenAI({ apiKey: other.key, baseURL: `${gw.url}/v1`, maxRetries: 0 }).chat.completions
      .create({ model: 'count-model', messages: [{ role: 'user', content: 'hi' }] })
      .then((r) => {
        order.push('chat');
        return r;
      });
    const [answer, ...done] = await Promise.all([chat, ...counts]);
    assert.ok(answer.choices.length > 0);
    assert.equal(order[0], 'chat', `the chat waited for the counts: ${order.join(', ')}`);
    for (const d of done) {
      assert.equal(d.status, 200, JSON.stringify(d.body));
      assert.equal(d.body.input_tokens, done[0].body.input_tokens);
      assert.ok(d.body.input_tokens > 1_000_000);
    }

    // Past the bound: 413 in the caller's envelope, before counting.
    const huge = { role: 'user', content: 'a '.repeat(4_300_000) };
    const tooLong = await new Anthropic({ apiKey: counter.key, baseURL: gw.url, maxRetries: 0 }).messages
      .countTokens({ model: 'count-model', messages: [huge as never] })
      .then(
        () => null,
        (e: unknown) => e as { status: number; error: { error: { type: string } } },
      );
    assert.equal(tooLong?.status, 413);
    assert.equal(tooLong?.error.error.type, 'request_too_large');
    const gem = await fetch(`${gw.url}/v1beta/models/count-model:countTokens`, {
      method: 'POST',
      headers: { 'x-goog-api-key': counter.key, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'a '.repeat(4_300_000) }] }] }),
    });
    assert.equal(gem.status, 413);
    assert.equal(((await gem.json()) as { error: { code: number } }).error.code, 413);

    // Counting is a request like a model call: the request limit applies.
    const o = gw.services.admin.options;
    await o.set('ModelRequestRateLimitCount', 2);
    await o.set('ModelRequestRateLimitEnabled', true);
    const small = () =>
      fetch(`${gw.url}/v1/messages/count_tokens`, {
        method: 'POST',
        headers: { 'x-api-key': counter.key, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'count-model', messages: [{ role: 'user', content: 'hello' }] }),
      });
    assert.equal((await small()).status, 200);
    assert.equal((await small()).status, 200);
    assert.equal((await small()).status, 429);
  } finally {
    await gw.stop();
    await up.close();
  }
});

test('a new password ends access tokens and sessions; logout is POST only; /api answers are nosniff and no-store; huge model names are not echoed', async () => {
  const gw = await startTestGateway();
  const up = await startFakeOpenAI();
  try {
    const root = await AdminClient.login(gw.url);
    const id = (await root.ok<{ id: number }>('POST', '/api/user', { username: 'pat-user', password: 'first-password-1', quota: 1000 })).id;
    const login = await fetch(`${gw.url}/api/user/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'pat-user', password: 'first-password-1' }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0];
    const issued = await fetch(`${gw.url}/api/user/token`, { method: 'POST', headers: { cookie } });
    const token = ((await issued.json()) as { data: { access_token: string } }).data.access_token;
    const self = (h: Record<string, string>) => fetch(`${gw.url}/api/user/self`, { headers: h });
    assert.equal((await self({ authorization: `Bearer ${token}` })).status, 200);
    assert.equal((await self({ cookie })).status, 200);

    // Logout by GET (a link or an image on another page) does nothing.
    const viaGet = await fetch(`${gw.url}/api/user/logout`, { headers: { cookie } });
    assert.ok(viaGet.status >= 400, String(viaGet.status));
    assert.equal((await self({ cookie })).status, 200, 'the session survived a GET');

    await root.ok('PUT', `/api/user/${id}`, { password: 'second-password-2' });
    const afterToken = await self({ authorization: `Bearer ${token}` });
    assert.equal(afterToken.status, 401, 'the access token was revoked with the password change');
    assert.equal((await self({ cookie })).status, 401, 'the session ended with the password change');

    // Every /api answer, success or error, carries nosniff and no-store.
    for (const r of [afterToken, await self({ authorization: `Bearer ${root.token}` }), await fetch(`${gw.url}/api/no-such-thing`)]) {
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(r.headers.get('cache-control'), 'no-store');
    }

    // A 1 MB model name comes back cut to 200 characters in every family.
    await createChannel(gw, { baseUrl: up.url, models: ['real-model'] });
    const caller = await createCaller(gw, { quota: 1_000_000 });
    const name = 'm'.repeat(1024 * 1024);
    const openaiErr = await new OpenAI({ apiKey: caller.key, baseURL: `${gw.url}/v1`, maxRetries: 0 }).chat.completions
      .create({ model: name, messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => null,
        (e: { status: number; message: string }) => e,
      );
    const anthropicErr = await new Anthropic({ apiKey: caller.key, baseURL: gw.url, maxRetries: 0 }).messages
      .create({ model: name, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => null,
        (e: { status: number; message: string }) => e,
      );
    const countErr = await fetch(`${gw.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': caller.key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: name, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const taskErr = await fetch(`${gw.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: name, prompt: 'x' }),
    });
    for (const [what, status, text] of [
      ['openai', openaiErr?.status, openaiErr?.message],
      ['anthropic', anthropicErr?.status, anthropicErr?.message],
      ['count_tokens', countErr.status, await countErr.text()],
      ['images', taskErr.status, await taskErr.text()],
    ] as Array<[string, number | undefined, string | undefined]>) {
      assert.ok(status && status >= 400, `${what}: ${status}`);
      assert.ok(
        text && text.includes('m'.repeat(200)) && !text.includes('m'.repeat(201)),
        `${what}: the model name is cut to 200 characters (${text?.length} characters)`,
      );
    }
  } finally {
    await gw.stop();
    await up.close();
  }
});
