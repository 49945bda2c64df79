/**
 * The registry of providers: every channel type has its provider (the task types none), every wire
 * format its codec with the sides it speaks, Vertex picks its format by model, and every
 * OpenAI-compatible preset resolves to its API root on the OpenAI provider.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelType, isTaskChannelType } from '../../channels/types.ts';
import { resolveBaseUrl } from '../channels.ts';
import { upstreamUrl } from './endpoint.ts';
import { OPENAI_COMPATIBLE_PRESETS, presetRoot } from './openai/presets.ts';
import { channelFormat, channelProvider, codecOf, formatProvider, PROVIDERS, providerOfType, WIRE_FORMATS } from './registry.ts';

const CALLER_SIDE = ['decodeRequest', 'encodeResponse', 'createStreamEncoder', 'streamError', 'errorBody'] as const;
const UPSTREAM_SIDE = [
  'encodeRequest',
  'decodeResponse',
  'createStreamDecoder',
  'usageFromResponse',
  'usageFromStreamEvent',
  'errorMessage',
] as const;

test('every channel type maps to one provider with an endpoint; the task types to none', () => {
  for (const [name, type] of Object.entries(ChannelType)) {
    const p = providerOfType(type);
    if (isTaskChannelType(type)) {
      assert.equal(p, undefined, name);
      assert.equal(channelProvider(type).name, 'openai', name);
      continue;
    }
    assert.ok(p?.endpoint, `${name} has a provider with an endpoint`);
    assert.equal(PROVIDERS.filter((q) => q.channelTypes.includes(type)).length, 1, `${name} is served by one provider`);
    assert.ok(WIRE_FORMATS.includes(channelFormat(type, 'some-model')), name);
  }
});

test('every wire format has one provider whose codec speaks its sides', () => {
  const callers = new Set(['openai', 'anthropic', 'gemini', 'responses']);
  const upstreams = new Set(['openai', 'anthropic', 'gemini', 'bedrock']);
  for (const f of WIRE_FORMATS) {
    assert.equal(PROVIDERS.filter((p) => p.format === f).length, 1, f);
    assert.equal(formatProvider(f).format, f);
    const codec = codecOf(f);
    for (const k of CALLER_SIDE) assert.equal(typeof codec[k] === 'function', callers.has(f), `${f} ${k}`);
    for (const k of UPSTREAM_SIDE) assert.equal(typeof codec[k] === 'function', upstreams.has(f), `${f} ${k}`);
  }
  for (const p of PROVIDERS) assert.ok(p.format || p.endpoint, `${p.name} has a codec or an endpoint`);
});

test('a channel speaks its provider format; Vertex picks Anthropic or Gemini by model', () => {
  assert.equal(channelFormat(ChannelType.openai), 'openai');
  assert.equal(channelFormat(ChannelType.azure), 'openai');
  assert.equal(channelFormat(ChannelType.anthropic), 'anthropic');
  assert.equal(channelFormat(ChannelType.gemini), 'gemini');
  assert.equal(channelFormat(ChannelType.bedrock, 'anthropic.claude-sonnet-4'), 'bedrock');
  assert.equal(channelFormat(ChannelType.vertex, 'claude-sonnet-4@20250514'), 'anthropic');
  assert.equal(channelFormat(ChannelType.vertex, 'gemini-2.5-pro'), 'gemini');
  assert.equal(channelFormat(ChannelType.gateway), 'openai');
});

test('every OpenAI-compatible preset resolves to its API root on the OpenAI provider', () => {
  for (const [name, preset] of Object.entries(OPENAI_COMPATIBLE_PRESETS)) {
    const settings: Record<string, unknown> = { preset: name };
    for (const k of preset.needs ?? []) settings[k] = 'acct-1';
    const root = presetRoot(name, settings);
    assert.ok(root, name);
    const { url, apiRoot } = resolveBaseUrl(ChannelType.openai, '', settings);
    assert.deepEqual({ url, apiRoot }, { url: root.replace(/\/+$/, ''), apiRoot: true }, name);
    const ch = { type: ChannelType.openai, baseUrl: url, apiRoot, keys: [], settings };
    assert.equal(upstreamUrl(ch, 'chat', 'm', false).href, `${url}/chat/completions`, name);
    if (preset.needs?.length) assert.equal(presetRoot(name, { preset: name }), null, `${name} needs ${preset.needs.join(', ')}`);
  }
  assert.equal(presetRoot('no-such-vendor', {}), null);
});
