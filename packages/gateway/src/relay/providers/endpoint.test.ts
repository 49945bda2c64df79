/**
 * The upstream URL of a call (relay/providers/endpoint.ts): parsed once per channel, model and call
 * shape, the same object for the same shape, and the URL the endpoint builds for every shape.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelType } from '../../channels/types.ts';
import { endpointOf } from './registry.ts';
import { upstreamUrl } from './endpoint.ts';
import type { RelayKind, UpstreamChannel } from './provider.ts';

test('upstreamUrl: one parsed URL per channel, model and shape, the one the endpoint builds', () => {
  const openai: UpstreamChannel = {
    type: ChannelType.openai,
    baseUrl: 'https://api.example.com/v1',
    apiRoot: true,
    keys: [],
    settings: {},
  };
  const gemini: UpstreamChannel = {
    type: ChannelType.gemini,
    baseUrl: 'https://gemini.example.com',
    apiRoot: false,
    keys: [],
    settings: {},
  };
  const shapes: Array<[UpstreamChannel, RelayKind, string, boolean, string | undefined]> = [];
  for (const ch of [openai, gemini])
    for (const kind of ['chat', 'completions', 'embeddings'] as const)
      for (const model of ['m-1', 'm-2'])
        for (const stream of [false, true])
          for (const action of [undefined, 'embedContent', 'batchEmbedContents']) shapes.push([ch, kind, model, stream, action]);
  const seen = new Map<string, URL>();
  for (const [ch, kind, model, stream, action] of shapes) {
    let want: string;
    try {
      want = endpointOf(ch.type).url(ch, kind, model, stream, action).href;
    } catch {
      continue; // a shape the endpoint does not serve
    }
    const u = upstreamUrl(ch, kind, model, stream, action);
    assert.equal(u.href, want, `${ch.type} ${kind} ${model} ${stream} ${action}`);
    assert.equal(upstreamUrl(ch, kind, model, stream, action), u, 'the same object for the same shape');
    const k = `${ch.type}|${kind}|${model}|${stream}|${action}`;
    for (const [other, v] of seen) if (v === u) assert.fail(`${k} shares its URL object with ${other}`);
    seen.set(k, u);
  }
  assert.ok(seen.size >= 24);
  // A reloaded channel (a new object) gets its own URLs.
  const again = { ...openai, baseUrl: 'https://other.example.com/v1' };
  assert.equal(upstreamUrl(again, 'chat', 'm-1', false).href, 'https://other.example.com/v1/chat/completions');
});
