import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { startTestGateway, TEST_ROOT_PASSWORD } from '../harness.ts';
import { checkChannelBinding, effectiveBaseUrl } from '../../src/plugins/runtime/index.ts';

const ex = (f: string) => readFileSync(new URL(`../../../../examples/plugins/${f}`, import.meta.url), 'utf8');
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function login(url: string) {
  const r = await fetch(`${url}/api/user/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'root', password: TEST_ROOT_PASSWORD }),
  });
  return r.headers.get('set-cookie')!.split(';')[0];
}

function client(url: string, cookie: string) {
  return async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${url}/api/plugin/task${path}`, {
      method,
      headers: { cookie, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const json = (await r.json()) as { success: boolean; message: string; data: any };
    return { status: r.status, ...json };
  };
}

test('plugin administration: upload, list, conflicts, versions, activation, generation swap, cascade, dry run, delete, restart', async () => {
  // The market below is on loopback: market downloads reach it only with private addresses allowed.
  const gw = await startTestGateway({ env: { CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  let gw2: Awaited<ReturnType<typeof startTestGateway>> | null = null;
  try {
    const anon = await fetch(`${gw.url}/api/plugin/task`);
    assert.equal(anon.status, 401);
    const api = client(gw.url, await login(gw.url));
    const host = gw.services.plugins;

    const video = ex('example-video.js');
    const badSha = await api('POST', '', { source: video, sourceSha256: '0'.repeat(64) });
    assert.equal(badSha.status, 400);
    assert.match(badSha.message, /sourceSha256 does not match/);

    const up = await api('POST', '', { source: video, sourceSha256: sha(video).toUpperCase(), remark: 'first' });
    assert.equal(up.status, 200, up.message);
    assert.equal(up.data.plugin, 'clipforge');
    assert.equal(up.data.layer, 'override');
    const gen1 = host.current();
    assert.ok(gen1.plugins.has('clipforge'));
    assert.equal(gen1.routes.match('GET', '/clipforge/v1/videos/task_1')?.params.id, 'task_1');
    assert.equal(gen1.protocolClaims.video[0].key, 'clipforge');

    const rejected = await api('POST', '', { source: 'export const meta = {};' });
    assert.equal(rejected.status, 400);
    assert.match(rejected.message, /meta\.apiVersion: is required/);

    // A second plugin with the same route shape is refused naming the counterpart, unless stored disabled.
    const clash = video
      .replace("key: 'clipforge'", "key: 'clipclash'")
      .replace("models: ['clip-1', 'clip-1-pro']", "models: ['other']")
      .replace(/models: \['clip-1', 'clip-1-pro'\] \}/, '}');
    const c1 = await api('POST', '', { source: clash });
    assert.equal(c1.status, 409);
    assert.match(c1.message, /route POST \/clipforge\/v1\/videos .* of plugin "clipforge"/);
    const c2 = await api('POST', '', { source: clash, enabled: false });
    assert.equal(c2.status, 200, c2.message);
    const en = await api('POST', '/clipclash/status', { enabled: true });
    assert.equal(en.status, 409);

    // Versions are immutable.
    const changed = video.replace("name: 'Clipforge Video'", "name: 'Clipforge Video X'");
    const imm = await api('POST', '', { source: changed });
    assert.equal(imm.status, 409);
    assert.match(imm.message, /already stored with a different source/);

    const list = await api('GET', '');
    const item = list.data.find((i: any) => i.key === 'clipforge');
    assert.equal(item.runtime_status, 'registered');
    assert.equal(item.remark, 'first');
    assert.equal(list.data.find((i: any) => i.key === 'clipclash').runtime_status, 'disabled');

    // A generation swap under concurrent calls loses no call.
    const v2 = changed.replace("version: '1.2.0'", "version: '1.3.0'");
    const pinned = host.current().plugins.get('clipforge')!;
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) calls.push(pinned.call('buildQueryRequest', { baseUrl: 'https://a', taskId: `t${i}` }));
    const upload2 = api('POST', '', { source: v2 });
    for (let i = 0; i < 200; i++)
      calls.push(
        host
          .current()
          .plugins.get('clipforge')!
          .call('buildQueryRequest', { baseUrl: 'https://a', taskId: `u${i}` }),
      );
    assert.equal((await upload2).status, 200);
    const results = await Promise.allSettled(calls);
    assert.equal(results.filter((r) => r.status === 'rejected').length, 0);
    assert.equal(host.current().plugins.get('clipforge')!.version, '1.3.0');
    assert.ok(host.current().revision > gen1.revision);
    assert.equal(gen1.plugins.get('clipforge')!.version, '1.2.0', 'an old generation is immutable');
    assert.ok(
      await pinned.call('buildQueryRequest', { baseUrl: 'https://a', taskId: 'late' }),
      'a pinned request can still call its version',
    );

    const versions = await api('GET', '/clipforge/versions');
    assert.deepEqual(
      versions.data.map((v: any) => [v.version, v.active]),
      [
        ['1.3.0', true],
        ['1.2.0', false],
      ],
    );
    const act = await api('POST', '/clipforge/activate', { version: '1.2.0' });
    assert.equal(act.status, 200, act.message);
    assert.equal(host.current().plugins.get('clipforge')!.version, '1.2.0');
    const detail = await api('GET', '/clipforge?version=1.3.0');
    assert.equal(detail.data.meta.name, 'Clipforge Video X');

    const dry = await api('POST', '/clipforge/dryrun', {
      hook: 'native',
      member: 'decodeSubmit',
      args: [{ body: { kind: 'json', value: { prompt: 'p' } } }],
    });
    assert.equal(dry.status, 200, dry.message);
    assert.equal(dry.data.output.kind, 'submit');
    const dryErr = await api('POST', '/clipforge/dryrun', { hook: 'native.decodeSubmit', args: [{ body: { kind: 'json', value: {} } }] });
    assert.equal(dryErr.status, 400);
    assert.match(dryErr.message, /prompt is required/);

    // Channels: binding rules, base URL, and the disable cascade.
    const gen = host.current();
    checkChannelBinding(gen, 61, { plugin: 'clipforge' });
    assert.throws(() => checkChannelBinding(gen, 61, { plugin: 'nope' }), /"nope" is not installed or is disabled/);
    assert.throws(() => checkChannelBinding(gen, 61, {}), /needs settings.plugin/);
    checkChannelBinding(gen, 60, { plugins: ['clipforge'] });
    assert.throws(() => checkChannelBinding(gen, 1, { plugin: 'clipforge' }), /does not bind plugins/);
    assert.equal(effectiveBaseUrl(gen, { type: 61, base_url: '', settings: '{"plugin":"clipforge"}' }), 'https://api.clipforge.example');
    assert.equal(
      effectiveBaseUrl(gen, { type: 61, base_url: 'http://10.0.0.2:8080/', settings: '{"plugin":"clipforge"}' }),
      'http://10.0.0.2:8080',
    );
    const channels = gw.services.admin.channels;
    const ch = (name: string, type: number, settings: Record<string, unknown>) =>
      channels.create(
        channels.parse({ name, type, base_url: type === 60 ? 'https://peer.example.com' : '', keys: ['k'], settings }, 'create'),
        '',
        { requireInstalled: false },
      );
    await ch('c61', 61, { plugin: 'clipforge' });
    await ch('c60', 60, { plugins: ['clipforge', 'other'] });
    const inUse = await api('POST', '/clipforge/status', { enabled: false });
    assert.equal(inUse.status, 409);
    assert.equal(inUse.message, 'task plugin is still in use');
    assert.equal(inUse.data.channels.length, 2);
    const off = await api('POST', '/clipforge/status?cascade=true', { enabled: false });
    assert.equal(off.status, 200, off.message);
    assert.equal(off.data.disabled_channels.length, 1);
    assert.equal(off.data.unbound_channels.length, 1);
    const rows = await gw.core.h.db.selectFrom('channels').select(['name', 'status', 'settings']).orderBy('name').execute();
    assert.deepEqual(JSON.parse(rows.find((r) => r.name === 'c60')!.settings).plugins, ['other']);
    assert.equal(rows.find((r) => r.name === 'c61')!.status, 2);
    assert.ok(!host.current().plugins.has('clipforge'));
    // Now the clashing plugin can be enabled.
    assert.equal((await api('POST', '/clipclash/status', { enabled: true })).status, 200);
    assert.ok(host.current().plugins.has('clipclash'));

    const status = await api('GET', '/runtime/status');
    assert.equal(status.data.current_generation, host.current().revision);
    assert.equal(status.data.last_rebuild.status, 'success');
    assert.ok(status.data.database_revision > 0);

    const del = await api('DELETE', '/clipforge/versions/1.3.0');
    assert.equal(del.status, 200, del.message);
    assert.deepEqual(
      (await api('GET', '/clipforge/versions')).data.map((v: any) => v.version),
      ['1.2.0'],
    );

    // Market install from a local index, sha256 verified.
    const img = ex('example-image.js');
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" height="1"/></svg>';
    const files: Record<string, string> = {
      '/market/plugins/tasks/pixelmint/2.0.1/plugin.js': img,
      '/market/plugins/tasks/pixelmint/icon.svg': svg,
      '/market/plugins/tasks/tampered/1.0.0/plugin.js': img,
    };
    const index = {
      indexVersion: 1,
      name: 'local',
      plugins: [
        {
          key: 'pixelmint',
          latest: '2.0.1',
          iconFile: { path: 'plugins/tasks/pixelmint/icon.svg', sha256: sha(svg) },
          versions: [
            { version: '2.0.1', path: 'plugins/tasks/pixelmint/2.0.1/plugin.js', sha256: sha(img), minApiVersion: 1, kind: 'task' },
          ],
        },
        {
          key: 'tampered',
          versions: [{ version: '1.0.0', path: 'plugins/tasks/tampered/1.0.0/plugin.js', sha256: '1'.repeat(64), kind: 'task' }],
        },
      ],
    };
    files['/market/index.json'] = JSON.stringify(index);
    const srv = createServer((req, res) => {
      const f = files[req.url!];
      res.writeHead(f ? 200 : 404);
      res.end(f ?? '');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    try {
      const indexUrl = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/market/index.json`;
      assert.equal((await api('PUT', '/marketplace/sources', [{ name: 'local', index_url: indexUrl }])).status, 200);
      assert.equal((await api('GET', '/marketplace/sources')).data[0].name, 'local');
      const bad = await api('POST', '/marketplace/install', { source: 'local', key: 'tampered' });
      assert.equal(bad.status, 502);
      assert.match(bad.message, /the index says 1111/);
      const inst = await api('POST', '/marketplace/install', { source: 'local', key: 'pixelmint' });
      assert.equal(inst.status, 200, inst.message);
      assert.equal(inst.data.has_icon, true);
      const icon = await fetch(`${gw.url}/api/plugin/task/pixelmint/icon`, { headers: { cookie: await login(gw.url) } });
      assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
      assert.equal(await icon.text(), svg);
    } finally {
      srv.close();
    }

    // The runtime is rebuilt from the database on start.
    await gw.stop({ keepDb: true });
    gw2 = await startTestGateway({ db: gw.db, env: { CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
    const g2 = gw2.services.plugins.current();
    assert.deepEqual([...g2.plugins.keys()].sort(), ['clipclash', 'pixelmint']);
  } finally {
    if (gw2) await gw2.stop();
    else await gw.stop();
  }
});
