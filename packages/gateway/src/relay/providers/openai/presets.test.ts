/**
 * Every OpenAI-compatible preset reaches the path its vendor documents: the chat endpoint each vendor's
 * own API reference shows, the API root for other OpenAI paths and realtime, and the settings a root needs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelType } from '../../../channels/types.ts';
import { OPENAI_COMPATIBLE_PRESETS } from './presets.ts';
import { resolveBaseUrl, type RuntimeChannel } from '../../channels.ts';
import { upstreamUrl } from '../endpoint.ts';
import { passUrl } from '../../pass-kinds.ts';
import { realtimeUrl } from '../../realtime.ts';

/** The chat completions URL in each vendor's documentation. */
const DOCUMENTED_CHAT: Record<string, string> = {
  openai: 'https://api.openai.com/v1/chat/completions',
  deepseek: 'https://api.deepseek.com/chat/completions',
  moonshot: 'https://api.moonshot.cn/v1/chat/completions',
  qwen: 'https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions',
  zhipu: 'https://open.bigmodel.cn/api/paas/v4/chat/completions',
  volcengine: 'https://ark.cn-beijing.volces.com/api/v3/chat/completions',
  qianfan: 'https://qianfan.baidubce.com/v2/chat/completions',
  siliconflow: 'https://api.siliconflow.cn/v1/chat/completions',
  xai: 'https://api.x.ai/v1/chat/completions',
  mistral: 'https://api.mistral.ai/v1/chat/completions',
  groq: 'https://api.groq.com/openai/v1/chat/completions',
  together: 'https://api.together.xyz/v1/chat/completions',
  fireworks: 'https://api.fireworks.ai/inference/v1/chat/completions',
  openrouter: 'https://openrouter.ai/api/v1/chat/completions',
  perplexity: 'https://api.perplexity.ai/chat/completions',
  cloudflare: 'https://api.cloudflare.com/client/v4/accounts/acc-123/ai/v1/chat/completions',
  ollama: 'http://127.0.0.1:11434/v1/chat/completions',
  vllm: 'http://127.0.0.1:8000/v1/chat/completions',
  lmstudio: 'http://127.0.0.1:1234/v1/chat/completions',
};

function channel(settings: Record<string, unknown>, baseUrl = ''): RuntimeChannel {
  const b = resolveBaseUrl(ChannelType.openai, baseUrl, settings);
  return {
    id: 1,
    name: 'c',
    type: ChannelType.openai,
    baseUrl: b.url,
    apiRoot: b.apiRoot,
    settings,
    modelMapping: {},
  } as unknown as RuntimeChannel;
}

test('every preset has its documented chat URL, and every documented vendor has a preset', () => {
  assert.deepEqual(Object.keys(OPENAI_COMPATIBLE_PRESETS).sort(), Object.keys(DOCUMENTED_CHAT).sort());
  for (const [name, url] of Object.entries(DOCUMENTED_CHAT)) {
    const ch = channel({ preset: name, account_id: 'acc-123' });
    assert.equal(upstreamUrl(ch, 'chat', 'm', false).href, url, name);
  }
});

test('other OpenAI paths and realtime hang off the same root', () => {
  const ds = channel({ preset: 'deepseek' });
  assert.equal(upstreamUrl(ds, 'embeddings', 'm', false).href, 'https://api.deepseek.com/embeddings');
  assert.equal(passUrl(ds, 'responses', 'm').href, 'https://api.deepseek.com/responses');
  const zp = channel({ preset: 'zhipu' });
  assert.equal(passUrl(zp, 'images', 'm').href, 'https://open.bigmodel.cn/api/paas/v4/images/generations');
  assert.equal(realtimeUrl(channel({ preset: 'openai' }), 'gpt-rt'), 'wss://api.openai.com/v1/realtime?model=gpt-rt');
});

test('an own base URL wins over the preset and keeps the /v1 rule', () => {
  const ch = channel({ preset: 'deepseek' }, 'http://127.0.0.1:9000/');
  assert.equal(upstreamUrl(ch, 'chat', 'm', false).href, 'http://127.0.0.1:9000/v1/chat/completions');
  assert.equal(upstreamUrl(channel({}, 'http://h/api/v3'), 'chat', 'm', false).href, 'http://h/api/v3/chat/completions');
});

test('a preset whose root needs a setting has no root without it', () => {
  const ch = channel({ preset: 'cloudflare' });
  assert.equal(ch.apiRoot, false, 'falls back to the type default');
  assert.equal(channel({ preset: 'cloudflare', account_id: '../x' }).apiRoot, false, 'a setting is never a path');
});
