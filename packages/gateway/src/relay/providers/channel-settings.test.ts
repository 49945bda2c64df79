/**
 * Each provider's check of its channels' settings: the field at fault and its code for each rule of
 * OpenAI (presets, local presets without keys), Azure (base URL, API version), Bedrock (region, keys),
 * Vertex AI (location, service-account keys), Anthropic and Gemini (a key and a model); no issue for a
 * channel that is fine. Every channel type of a provider has a check.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelType } from '../../channels/types.ts';
import type { ChannelSettingsInput } from '../../channels/settings-check.ts';
import { checkChannelSettings, PROVIDERS } from './registry.ts';

const ok: ChannelSettingsInput = { base_url: 'https://api.example.com', keys: ['sk-1'], models: ['m'], settings: {} };
const SA = JSON.stringify({ client_email: 'sa@proj.iam.gserviceaccount.com', private_key: 'PEM', project_id: 'proj' });
const AK = 'AKIAGATEHOUSETEST001|wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY|us-east-1';

/** The (field, code) of each issue of a channel of `type`. */
const issues = (type: number, c: Partial<ChannelSettingsInput>) =>
  checkChannelSettings(type, { ...ok, ...c }).map((i) => [i.field, i.code.replace('channel_setting_', '')]);

test('every provider that serves channel types checks their settings', () => {
  for (const p of PROVIDERS) if (p.channelTypes.length) assert.equal(typeof p.checkChannel, 'function', p.name);
});

test('openai: a known preset, the account a preset needs without a base URL, a key unless the preset is local', () => {
  assert.deepEqual(issues(ChannelType.openai, {}), []);
  assert.deepEqual(issues(ChannelType.openai, { settings: { preset: 'nowhere' } }), [['settings.preset', 'invalid']]);
  assert.deepEqual(issues(ChannelType.openai, { base_url: '', settings: { preset: 'cloudflare' } }), [['settings.account_id', 'required']]);
  assert.deepEqual(issues(ChannelType.openai, { base_url: '', settings: { preset: 'cloudflare', account_id: 'acct-1' } }), []);
  assert.deepEqual(issues(ChannelType.openai, { keys: [] }), [['keys', 'required']]);
  assert.deepEqual(issues(ChannelType.openai, { keys: [], settings: { preset: 'ollama' } }), []);
  assert.deepEqual(issues(ChannelType.openai, { models: [] }), [['models', 'required']]);
  const [first] = checkChannelSettings(ChannelType.openai, { ...ok, settings: { preset: 'nowhere' } });
  assert.match(first.message, /^must be one of openai, /);
});

test('azure: a base URL and an API version of the right shape', () => {
  assert.deepEqual(issues(ChannelType.azure, { settings: { api_version: '2024-10-21' } }), []);
  assert.deepEqual(issues(ChannelType.azure, { base_url: '' }), [['base_url', 'required']]);
  assert.deepEqual(issues(ChannelType.azure, { settings: { api_version: 'latest' } }), [['settings.api_version', 'invalid']]);
  assert.deepEqual(issues(ChannelType.azure, { base_url: '', keys: [] }), [
    ['base_url', 'required'],
    ['keys', 'required'],
  ]);
  assert.match(checkChannelSettings(ChannelType.azure, { ...ok, base_url: '' })[0].message, /openai\.azure\.com/);
});

test('bedrock: an AWS region, and keys that are access key pairs or API keys with a region', () => {
  assert.deepEqual(issues(ChannelType.bedrock, { keys: [AK] }), []);
  assert.deepEqual(issues(ChannelType.bedrock, { keys: [AK], settings: { region: 'not a region' } }), [['settings.region', 'invalid']]);
  assert.deepEqual(issues(ChannelType.bedrock, { keys: [AK, 'AKIAGATEHOUSETEST001|SECRET'] }), [['keys[1]', 'invalid']]);
  assert.deepEqual(issues(ChannelType.bedrock, { keys: [] }), [['keys', 'required']]);
});

test('vertex: a location, and service-account keys naming a project (or a project_id setting)', () => {
  assert.deepEqual(issues(ChannelType.vertex, { keys: [SA], settings: { region: 'us-east5' } }), []);
  assert.deepEqual(issues(ChannelType.vertex, { keys: [SA], settings: { region: 'US EAST' } }), [['settings.region', 'invalid']]);
  assert.deepEqual(issues(ChannelType.vertex, { keys: ['AIza-not-a-service-account'] }), [['keys[0]', 'invalid']]);
  const noProject = JSON.stringify({ client_email: 'sa@x', private_key: 'PEM' });
  assert.deepEqual(issues(ChannelType.vertex, { keys: [noProject] }), [['keys[0]', 'required']]);
  assert.deepEqual(issues(ChannelType.vertex, { keys: [noProject], settings: { project_id: 'proj' } }), []);
});

test('anthropic and gemini: a key and a model', () => {
  for (const type of [ChannelType.anthropic, ChannelType.gemini]) {
    assert.deepEqual(issues(type, {}), []);
    assert.deepEqual(issues(type, { base_url: '' }), []);
    assert.deepEqual(issues(type, { keys: [], models: [] }), [
      ['keys', 'required'],
      ['models', 'required'],
    ]);
  }
});
