import test from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { addBase64, downloadImage, shapeImageResult, wantsB64 } from './image.ts';
import { createLogger } from '../platform/logger.ts';
import { hostname } from 'node:os';
import { lookup } from 'node:dns/promises';
import { Outbound } from '../platform/outbound.ts';
import { isPrivateAddress } from '../platform/ssrf.ts';

test('render results are checked and created is added when missing', () => {
  assert.deepEqual(shapeImageResult({ data: [{ url: 'u', revised_prompt: 'r', junk: 1 }] }, 123), {
    created: 123,
    data: [{ url: 'u', revised_prompt: 'r' }],
  });
  assert.equal(shapeImageResult({ created: 99, data: [{ b64_json: 'QQ==' }] }, 123).created, 99);
  assert.throws(() => shapeImageResult({ data: [{}] }, 1), /url or b64_json/);
  assert.throws(() => shapeImageResult({ images: [] }, 1), /data array/);
});

test('response_format b64_json from JSON or form fields', () => {
  assert.equal(wantsB64({ kind: 'json', value: { response_format: 'b64_json' } }), true);
  assert.equal(wantsB64({ kind: 'multipart', fields: { response_format: ['b64_json'] } }), true);
  assert.equal(wantsB64({ kind: 'json', value: { response_format: 'url' } }), false);
});

test('b64 download keeps the URL, respects the size limit, and warns on failure', async () => {
  const srv = createServer((req, res) => {
    if (req.url === '/ok.png') {
      res.end(Buffer.from('PNGDATA'));
      return;
    }
    if (req.url === '/big.png') {
      res.end(Buffer.alloc(2048));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  const lines: string[] = [];
  const log = createLogger(
    'warn',
    new Writable({
      write(c, _e, cb) {
        lines.push(String(c));
        cb();
      },
    }) as never,
  );
  const open = new Outbound({ relayTimeoutMs: 5000, allowPrivateContent: true });
  const closed = new Outbound({ relayTimeoutMs: 5000, allowPrivateContent: false });
  try {
    const lim = { maxBytes: 1024, timeoutMs: 5000, dispatcher: open.content };
    const out = await addBase64(
      { created: 1, data: [{ url: `${base}/ok.png` }, { url: `${base}/big.png` }, { url: `${base}/missing.png` }, { b64_json: 'x' }] },
      lim,
      log,
      'task_1',
    );
    assert.deepEqual(out.data[0], { url: `${base}/ok.png`, b64_json: Buffer.from('PNGDATA').toString('base64') });
    assert.deepEqual(out.data[1], { url: `${base}/big.png` });
    assert.deepEqual(out.data[2], { url: `${base}/missing.png` });
    assert.deepEqual(out.data[3], { b64_json: 'x' });
    assert.equal(lines.filter((l) => /b64_json failed/.test(l)).length, 2);
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::]', '0.0.0.0', '2130706433', 'localhost.']) {
      await assert.rejects(
        downloadImage(base.replace('127.0.0.1', host) + '/ok.png', { ...lim, dispatcher: closed.content }),
        /not public/,
        host,
      );
    }
    assert.equal((await downloadImage('data:image/png;base64,QUJD', lim)).toString(), 'ABC');
  } finally {
    await open.close();
    await closed.close();
    srv.close();
  }
});

test('b64 download through the content dispatcher: a name that resolves to a private address is refused', async (t) => {
  // The machine's own name resolves to a loopback or private address here and is not a literal the
  // host check can see; only the dispatcher's check after the DNS lookup refuses it.
  const name = hostname();
  const addr = await lookup(name).then(
    (a) => a.address,
    () => null,
  );
  if (!addr || !isPrivateAddress(addr) || /^(localhost|\d)/.test(name)) {
    t.skip(`${name} does not resolve to a private address here`);
    return;
  }
  const srv = createServer((_req, res) => res.end(Buffer.from('PNGDATA')));
  await new Promise<void>((r) => srv.listen(0, addr, r));
  const url = `http://${name}:${(srv.address() as AddressInfo).port}/ok.png`;
  const out = new Outbound({ relayTimeoutMs: 5000, allowPrivateContent: false });
  try {
    const lim = { maxBytes: 1024, timeoutMs: 5000, dispatcher: out.content };
    await assert.rejects(downloadImage(url, lim), /not public/);
    const open = new Outbound({ relayTimeoutMs: 5000, allowPrivateContent: true });
    assert.equal((await downloadImage(url, { ...lim, dispatcher: open.content })).toString(), 'PNGDATA');
    await open.close();
  } finally {
    await out.close();
    srv.close();
  }
});
