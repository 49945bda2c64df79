/**
 * Each channel type's settings rules through the admin API: creating, and updating a channel that was
 * fine, with a missing or invalid setting of each rule-bearing type answers 400 in the admin envelope
 * with the field at fault (`field`, and the message starting with it) and the rule's code
 * (`X-Error-Code`); nothing is written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';

const SA = JSON.stringify({ client_email: 'sa@proj.iam.gserviceaccount.com', private_key: 'PEM', project_id: 'proj' });
const AK = 'AKIAGATEHOUSETEST001|wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY|us-east-1';

interface Case {
  /** A channel of the type that is fine. */
  good: Record<string, unknown>;
  /** Changes that break one rule, each with the field and code of the refusal. */
  bad: Array<[change: Record<string, unknown>, field: string, code: 'channel_setting_required' | 'channel_setting_invalid']>;
}

const CASES: Record<string, Case> = {
  openai: {
    good: { type: 'openai', keys: ['sk-1'], models: ['m'] },
    bad: [
      [{ settings: { preset: 'nowhere' } }, 'settings.preset', 'channel_setting_invalid'],
      [{ base_url: '', settings: { preset: 'cloudflare' } }, 'settings.account_id', 'channel_setting_required'],
      [{ keys: [] }, 'keys', 'channel_setting_required'],
      [{ models: [] }, 'models', 'channel_setting_required'],
    ],
  },
  azure: {
    good: { type: 'azure', base_url: 'https://acme.openai.azure.com', keys: ['az-1'], models: ['gpt-4o'] },
    bad: [
      [{ base_url: '' }, 'base_url', 'channel_setting_required'],
      [{ settings: { api_version: 'latest' } }, 'settings.api_version', 'channel_setting_invalid'],
    ],
  },
  bedrock: {
    good: { type: 'bedrock', keys: [AK], models: ['claude'] },
    bad: [
      [{ settings: { region: 'not a region' } }, 'settings.region', 'channel_setting_invalid'],
      [{ keys: [AK, 'AKIAGATEHOUSETEST001|SECRET'] }, 'keys[1]', 'channel_setting_invalid'],
    ],
  },
  vertex: {
    good: { type: 'vertex', keys: [SA], models: ['gemini-2.5-pro'] },
    bad: [
      [{ settings: { region: 'US EAST' } }, 'settings.region', 'channel_setting_invalid'],
      [{ keys: ['AIza-not-a-service-account'] }, 'keys[0]', 'channel_setting_invalid'],
    ],
  },
  anthropic: {
    good: { type: 'anthropic', keys: ['sk-ant-1'], models: ['claude'] },
    bad: [[{ models: [] }, 'models', 'channel_setting_required']],
  },
  gemini: {
    good: { type: 'gemini', keys: ['AIza-1'], models: ['gemini-2.5-pro'] },
    bad: [[{ keys: [] }, 'keys', 'channel_setting_required']],
  },
  task_plugin: {
    good: { type: 'task_plugin', settings: { plugin: 'img-gen' } },
    bad: [
      [{ settings: {} }, 'settings.plugin', 'channel_setting_required'],
      [{ settings: { plugin: 'x'.repeat(31) } }, 'settings.plugin', 'channel_setting_required'],
    ],
  },
  gateway: {
    good: { type: 'gateway', base_url: 'https://peer.example.com', keys: ['peer-1'], settings: { plugins: ['img-gen'] } },
    bad: [
      [{ base_url: '' }, 'base_url', 'channel_setting_required'],
      [{ settings: { plugins: [] } }, 'settings.plugins', 'channel_setting_required'],
      [{ keys: [] }, 'keys', 'channel_setting_required'],
    ],
  },
};

test('a missing or invalid setting of each channel type is refused on create and update, naming the field and the code', async () => {
  const gw = await startTestGateway();
  try {
    const root = await AdminClient.login(gw.url);
    const refused = async (method: string, path: string, body: unknown, field: string, code: string) => {
      const r = await root.fails(400, method, path, body, field);
      assert.equal((r.body as { field?: string }).field, field, `${method} ${path} ${JSON.stringify(body)}: ${r.text}`);
      assert.equal(r.code, code, `${method} ${path} ${JSON.stringify(body)}: ${r.text}`);
    };
    for (const [type, c] of Object.entries(CASES)) {
      for (const [change, field, code] of c.bad) {
        await refused('POST', '/api/channel', { name: `${type}-new`, ...c.good, ...change }, field, code);
      }
      // A channel of the type that is fine; a task channel's plugin is not installed here, which the
      // configuration file allows (its binding to installed plugins is the plugin runtime's check).
      const channels = gw.services.admin.channels;
      const made = /^(task_plugin|gateway)$/.test(type)
        ? await channels.create(channels.parse({ name: type, ...c.good }, 'create'), '', { requireInstalled: false })
        : await root.ok('POST', '/api/channel', { name: type, ...c.good });
      for (const [change, field, code] of c.bad) {
        await refused('PUT', `/api/channel/${made.id}`, change, field, code);
      }
      const after = await root.ok('GET', `/api/channel/${made.id}`);
      assert.deepEqual(
        { base_url: after.base_url, key_count: after.key_count, models: after.models, settings: after.settings },
        { base_url: made.base_url, key_count: made.key_count, models: made.models, settings: made.settings },
        `${type}: a refused update changes nothing`,
      );
    }
    const list = await root.ok('GET', '/api/channel?page_size=100');
    assert.equal(list.items.filter((x: { name: string }) => x.name.endsWith('-new')).length, 0, 'no refused channel was created');
  } finally {
    await gw.stop();
  }
});
