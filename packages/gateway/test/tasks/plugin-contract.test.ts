import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createHash, createHmac } from 'node:crypto';
import { jwtVerify } from 'jose';
import { loadPlugin, type LoadedPlugin } from '../../src/plugins/runtime/index.ts';
import { fixtureCases, runFixtureCases } from '../../src/plugins/runtime/fixtures.ts';

const root = new URL('../../../../', import.meta.url);
const examples = new URL('examples/plugins/', root);
const rejected = new URL('packages/gateway/test/fakes/plugins/rejected/', root);
const opts = { timeoutMs: 2000, memoryMb: 32, poolSize: 1 };
const loaded: LoadedPlugin[] = [];
after(() => {
  for (const p of loaded) p.dispose();
});

for (const f of readdirSync(examples)
  .filter((x) => x.endsWith('.js'))
  .sort()) {
  test(`example ${f} loads, validates, and every hook returns well-formed results for its recorded cases`, async () => {
    const p = await loadPlugin(readFileSync(new URL(f, examples), 'utf8'), opts);
    loaded.push(p);
    const fx = new URL(f.replace(/\.js$/, '.fixture.json'), examples);
    assert.ok(existsSync(fx), `${f} has no recorded cases: add ${f.replace(/\.js$/, '.fixture.json')} beside it`);
    const cases = fixtureCases(JSON.parse(readFileSync(fx, 'utf8')));
    const results = await runFixtureCases(p, cases);
    for (const r of results) assert.ok(r.ok, `${f} ${r.name}: ${r.detail}`);
    const canon = (h: string) => h.replace(/^protocols\.openai_/, 'protocols.compat_');
    const covered = new Set(cases.map((c) => canon(c.member ? `${c.hook}.${c.member}` : c.hook)));
    for (const h of p.exports) assert.ok(covered.has(h), `${f}: export ${h} has no recorded case`);
  });
}

test('the example set covers per_task, batch, native routes, the three protocols, artifacts and SSE submit', async () => {
  const all = loaded.length ? loaded : [];
  assert.ok(all.some((p) => p.manifest.fetchMode === 'batch'));
  assert.ok(all.some((p) => p.manifest.fetchMode === 'per_task'));
  assert.ok(
    all.some((p) => p.manifest.routes.some((r) => r.type === 'query')) &&
      all.some((p) => p.manifest.routes.some((r) => r.type === 'dynamic')),
  );
  for (const c of ['image', 'video', 'responses'] as const)
    assert.ok(
      all.some((p) => p.claims[c]),
      c,
    );
  assert.ok(all.some((p) => p.has('listArtifacts')));
  assert.ok(all.some((p) => p.manifest.submitResponseTypes.includes('sse')));
});

test('market spellings are accepted and normalised, the original kept in the raw manifest', async () => {
  const p = loaded.find((x) => x.key === 'tunebatch')!;
  assert.deepEqual(p.manifest.upstreams, ['vendor', 'gateway_api']);
  assert.equal(p.manifest.protocols[0].name, 'compat_responses');
  assert.deepEqual(p.manifest.protocols[0].supports, ['stream', 'sync', 'background']);
  assert.deepEqual(p.rawManifest.protocols, ['openai_responses']);
  assert.equal(p.batchStyle, 'ids');
  const img = loaded.find((x) => x.key === 'pixelmint')!;
  assert.ok(img.has('protocols.compat_image.render') && img.has('protocols.openai_image.render'));
  assert.deepEqual(img.usageSchemaFor('mint-image-hd').profile, 0);
  assert.deepEqual(img.usageSchemaFor('x', 'MINT-IMAGE-HD').profile, 0);
  assert.equal(img.usageSchemaFor('mint-image').profile, null);
  const video = loaded.find((x) => x.key === 'clipforge')!;
  assert.equal(video.manifest.baseUrl, 'https://api.clipforge.example');
  assert.deepEqual(video.manifest.description, {
    en: 'Text-to-video through the Clipforge API.',
    'zh-CN': '通过 Clipforge API 生成视频。',
  });
});

for (const f of readdirSync(rejected)
  .filter((x) => x.endsWith('.js'))
  .sort()) {
  test(`rejected: ${f}`, async () => {
    const src = readFileSync(new URL(f, rejected), 'utf8');
    const expect = /^\/\/ expect: (.*)$/m.exec(src)![1];
    await assert.rejects(loadPlugin(src, opts), (e: Error) => {
      assert.ok(e.message.includes(expect), `got: ${e.message}\nwant: ${expect}`);
      return true;
    });
  });
}

// --- utils against known vectors ------------------------------------------------------------------

const UTILS_PLUGIN = `export const meta = { apiVersion: 1, key: 'utilsprobe', name: 'u', version: '1.0.0', author: { name: 'a' }, models: ['m'], fetchMode: 'per_task', requiredCapabilities: ['json-clone@1'] };
export function buildSubmitRequest() { return { url: 'https://x.example/' }; }
export function parseSubmitResponse() { return { taskId: 'a' }; }
export function buildQueryRequest() { return { url: 'https://x.example/' }; }
export function parseTaskResult() { return { status: 'SUCCESS' }; }
export const native = {
  run(c) { const f = c.path.split('.').reduce((o, k) => o[k], utils); return f.apply(null, c.args); },
  cloneProto() { const src = JSON.parse('{"__proto__": {"x": 1}, "a": [1, "\\ud800"]}'); const c = utils.json.clone(src); return { own: Object.keys(c), protoIsObject: Object.getPrototypeOf(c) === Object.prototype, a: c.a, x: c.x === undefined }; },
  cloneIndependent() { const src = { a: { b: 1 } }; const c = utils.json.clone(src); c.a.b = 2; return src.a.b; },
  cloneBad(c) {
    const cases = { undef: undefined, fn: () => 1, date: new Date(0), nan: NaN, holes: [1, , 3], deep: JSON.parse('['.repeat(34) + ']'.repeat(34)), wide: new Array(40000).fill(0), big: 'x'.repeat(1100000), map: new Map() };
    try { utils.json.clone(cases[c.which]); return 'accepted'; } catch (e) { return e.name + ': ' + e.message; }
  },
  cloneLimitsOk() { const d = JSON.parse('['.repeat(32) + ']'.repeat(32)); utils.json.clone(d); utils.json.clone(new Array(32767).fill(0)); return true; },
  caps() { return [utils.hasCapability('json-clone@1'), utils.hasCapability('submit-sse-delta@1'), utils.hasCapability('nope@1')]; },
};`;

const fixedNow = 1_700_000_000;
const probe = await loadPlugin(UTILS_PLUGIN, { ...opts, now: () => fixedNow });
loaded.push(probe);
const u = (path: string, ...args: unknown[]) => probe.call('native.run', { path, args });

test('utils: base64, base64URL, base64URLDecode (strict), hmacSHA256, uuid, unixNow, hasCapability', async () => {
  assert.equal(await u('base64', 'héllo?>'), Buffer.from('héllo?>').toString('base64'));
  assert.equal(await u('base64URL', 'héllo?>'), Buffer.from('héllo?>').toString('base64url'));
  assert.ok(!String(await u('base64URL', 'ab')).includes('='));
  assert.equal(await u('base64URLDecode', 'aMOpbGxvPz4'), 'héllo?>');
  await assert.rejects(u('base64URLDecode', 'aGk='), /illegal base64url/);
  await assert.rejects(u('base64URLDecode', 'a+b/'), /illegal base64url/);
  await assert.rejects(u('base64URLDecode', 'abcde'), /illegal base64url/);
  assert.equal(await u('base64', null), '');
  assert.equal(
    await u('hmacSHA256', 'The quick brown fox jumps over the lazy dog', 'key'),
    'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
  );
  assert.match(String(await u('uuid')), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(await u('unixNow'), fixedNow);
  assert.deepEqual(await probe.call('native.caps'), [true, true, false]);
});

test('utils.jwtSignHS256 produces a token jose verifies, with the golang-jwt header', async () => {
  const token = String(await u('jwtSignHS256', { iss: 'ak', exp: fixedNow + 60, nbf: fixedNow - 5 }, 's3cret'));
  const [h] = token.split('.');
  assert.equal(Buffer.from(h, 'base64url').toString(), '{"alg":"HS256","typ":"JWT"}');
  const { payload } = await jwtVerify(token, new TextEncoder().encode('s3cret'), { currentDate: new Date(fixedNow * 1000) });
  assert.equal(payload.iss, 'ak');
  const empty = String(await u('jwtSignHS256', null, 'k'));
  assert.equal(Buffer.from(empty.split('.')[1], 'base64url').toString(), '{}');
  await assert.rejects(u('jwtSignHS256', [1], 'k'), /claims must be an object/);
});

/** Volcengine V4, computed here step by step from the published algorithm. */
function volcReference(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string,
  ak: string,
  sk: string,
  region: string,
  service: string,
  ts: number,
) {
  const sha = (s: string) => createHash('sha256').update(s).digest('hex');
  const mac = (k: Buffer | string, s: string) => createHmac('sha256', k).update(s).digest();
  const d = new Date(ts * 1000);
  const p2 = (n: number) => String(n).padStart(2, '0');
  const xdate = `${d.getUTCFullYear()}${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())}T${p2(d.getUTCHours())}${p2(d.getUTCMinutes())}${p2(d.getUTCSeconds())}Z`;
  const u = new URL(url);
  const bodyHash = sha(body);
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) h[k.toLowerCase()] = v.trim();
  h.host = u.host;
  h['x-date'] = xdate;
  h['x-content-sha256'] = bodyHash;
  const names = Object.keys(h).sort();
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  const query = [...u.searchParams.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .join('&');
  const creq = `${method}\n${u.pathname}\n${query}\n${names.map((n) => `${n}:${h[n]}\n`).join('')}\n${names.join(';')}\n${bodyHash}`;
  const scope = `${xdate.slice(0, 8)}/${region}/${service}/request`;
  const sts = `HMAC-SHA256\n${xdate}\n${scope}\n${sha(creq)}`;
  const key = mac(mac(mac(mac(sk, xdate.slice(0, 8)), region), service), 'request');
  return {
    Authorization: `HMAC-SHA256 Credential=${ak}/${scope}, SignedHeaders=${names.join(';')}, Signature=${createHmac('sha256', key).update(sts).digest('hex')}`,
    'X-Date': xdate,
    'X-Content-Sha256': bodyHash,
  };
}

test('utils.volcSignV4 matches an independent computation, with capitalised and lowercase field names', async () => {
  const url = 'https://visual.volcengineapi.com/?Version=2022-08-31&Action=CVSync2AsyncSubmitTask';
  const body = '{"req_key":"jimeng_vgfm_t2v_l20","prompt":"a cat"}';
  const want = volcReference(
    'POST',
    url,
    { 'Content-Type': 'application/json' },
    body,
    'AKLTtest',
    'c2VjcmV0',
    'cn-north-1',
    'cv',
    1_720_000_000,
  );
  const goCased = await u('volcSignV4', {
    Method: 'POST',
    URL: url,
    Headers: { 'Content-Type': 'application/json' },
    Body: body,
    AccessKey: 'AKLTtest',
    SecretKey: 'c2VjcmV0',
    Region: 'cn-north-1',
    Service: 'cv',
    Timestamp: 1_720_000_000,
  });
  assert.deepEqual(goCased, want);
  const lower = await u('volcSignV4', {
    method: 'POST',
    url,
    headers: { 'Content-Type': 'application/json' },
    body,
    accessKey: 'AKLTtest',
    secretKey: 'c2VjcmV0',
    timestamp: 1_720_000_000,
  });
  assert.deepEqual(lower, want, 'region and service default to cn-north-1 and cv');
  const now = (await u('volcSignV4', { method: 'GET', url: 'https://a.example/x', accessKey: 'a', secretKey: 'b' })) as Record<
    string,
    string
  >;
  assert.equal(now['X-Date'], volcReference('GET', 'https://a.example/x', {}, '', 'a', 'b', 'cn-north-1', 'cv', fixedNow)['X-Date']);
});

test('utils.json.clone: deep copy, __proto__ as data, repaired strings, and its limits', async () => {
  assert.deepEqual(await probe.call('native.cloneProto'), { own: ['__proto__', 'a'], protoIsObject: true, a: [1, '\ufffd'], x: true });
  assert.equal(await probe.call('native.cloneIndependent'), 1);
  assert.equal(await probe.call('native.cloneLimitsOk'), true);
  const bad = async (which: string, re: RegExp) => assert.match(String(await probe.call('native.cloneBad', { which })), re, which);
  await bad('undef', /TypeError: .*undefined/);
  await bad('fn', /TypeError: .*unsupported function/);
  await bad('date', /TypeError: .*plain objects/);
  await bad('map', /TypeError: .*plain objects/);
  await bad('nan', /TypeError: .*non-finite/);
  await bad('holes', /TypeError: .*hole/);
  await bad('deep', /TypeError: .*deeper than 32/);
  await bad('wide', /TypeError: .*32768 nodes/);
  await bad('big', /TypeError: .*1 MiB/);
});
