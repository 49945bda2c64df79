/**
 * The rules of the task kinds' channels: a task plugin channel names its plugin (and needs no key or
 * model); a peer gateway channel needs its address, its plugins and a key; the rules every model-call
 * channel shares.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelType } from './types.ts';
import { bindingField, checkTaskChannel, modelChannelBasics, type ChannelSettingsInput } from './settings-check.ts';

const none: ChannelSettingsInput = { base_url: '', keys: [], models: [], settings: {} };
const fields = (type: number, c: Partial<ChannelSettingsInput>) => checkTaskChannel(type, { ...none, ...c }).map((i) => [i.field, i.code]);

test('task_plugin: the plugin key is required and short; no key or model is', () => {
  assert.deepEqual(fields(ChannelType.task_plugin, {}), [['settings.plugin', 'channel_setting_required']]);
  assert.deepEqual(fields(ChannelType.task_plugin, { settings: { plugin: 'x'.repeat(31) } }), [
    ['settings.plugin', 'channel_setting_required'],
  ]);
  assert.deepEqual(fields(ChannelType.task_plugin, { settings: { plugin: 'img-gen' } }), []);
  assert.equal(bindingField(ChannelType.task_plugin), 'settings.plugin');
});

test('gateway: a base URL, a list of plugin keys and a key', () => {
  assert.deepEqual(fields(ChannelType.gateway, {}), [
    ['base_url', 'channel_setting_required'],
    ['settings.plugins', 'channel_setting_required'],
    ['keys', 'channel_setting_required'],
  ]);
  assert.deepEqual(fields(ChannelType.gateway, { base_url: 'https://peer.example.com', keys: ['k'], settings: { plugins: [''] } }), [
    ['settings.plugins', 'channel_setting_required'],
  ]);
  assert.deepEqual(fields(ChannelType.gateway, { base_url: 'https://peer.example.com', keys: ['k'], settings: { plugins: ['img'] } }), []);
  assert.equal(bindingField(ChannelType.gateway), 'settings.plugins');
});

test('model-call channels: a model, and a key unless keyless', () => {
  assert.deepEqual(
    modelChannelBasics(none).map((i) => i.field),
    ['keys', 'models'],
  );
  assert.deepEqual(
    modelChannelBasics(none, { keyless: true }).map((i) => i.field),
    ['models'],
  );
  assert.deepEqual(modelChannelBasics({ ...none, keys: ['k'], models: ['m'] }), []);
});
