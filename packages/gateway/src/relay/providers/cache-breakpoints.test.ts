/** Where prompt-cache breakpoints go on converted calls to Claude, and where they do not. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeRequest, encodeRequest, type CanonicalRequest } from './index.ts';
import { conversationHead, countBreakpoints, minCacheableTokens, withCacheBreakpoints, type CacheTarget } from './cache-breakpoints.ts';

const LONG = 'The repository holds a gateway written in TypeScript. '.repeat(120); // about 1,600 tokens
const sonnet: CacheTarget = { format: 'anthropic', model: 'claude-sonnet-4-5', settings: {} };
const TOOLS = [
  { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } },
];

/** An agent conversation in the OpenAI format: system, a user turn, a tool call, its result, and `more` turns after it. */
function agentTurn(system = LONG, more: unknown[] = []): CanonicalRequest {
  return decodeRequest('openai', {
    model: 'claude-sonnet-4-5',
    tools: TOOLS,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: 'Read the readme.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'A gateway.' },
      ...more,
    ],
  });
}

/** The blocks of an encoded Anthropic body that carry cache_control, as `where:type`. */
function marks(body: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const t of (body.tools as any[]) ?? []) if (t.cache_control) out.push(`tools:${t.name}`);
  if (Array.isArray(body.system)) for (const b of body.system) if (b.cache_control) out.push('system:text');
  (body.messages as any[]).forEach((m, i) => {
    if (Array.isArray(m.content)) for (const b of m.content) if (b.cache_control) out.push(`messages[${i}]:${b.type}`);
  });
  return out;
}

test('a converted agent turn gets breakpoints on its newest message, the previous turn end, the last answer and the system prompt', () => {
  const req = agentTurn(LONG, [
    { role: 'assistant', content: 'The readme says it is a gateway.' },
    { role: 'user', content: 'Now list the sources.' },
  ]);
  const placed = withCacheBreakpoints(req, sonnet);
  assert.equal(countBreakpoints(placed), 4);
  const body = encodeRequest('anthropic', placed, 'claude-sonnet-4-5');
  // messages: user, assistant(tool_use), user(tool_result), assistant(text), user(text)
  assert.deepEqual(marks(body), ['system:text', 'messages[2]:tool_result', 'messages[3]:text', 'messages[4]:text']);
  assert.deepEqual((body.system as any[])[0].cache_control, { type: 'ephemeral' });
  // The caller's request is left as it was (a retry on another channel, a kept Responses conversation).
  assert.equal(countBreakpoints(req), 0);
});

test('the newest message of one turn is the marked previous-turn end of the next, so the entry it wrote is read back', () => {
  const first = agentTurn();
  const second = agentTurn(LONG, [
    { role: 'assistant', content: 'Done.' },
    { role: 'user', content: 'Thanks.' },
  ]);
  const a = marks(encodeRequest('anthropic', withCacheBreakpoints(first, sonnet), 'claude-sonnet-4-5'));
  const b = marks(encodeRequest('anthropic', withCacheBreakpoints(second, sonnet), 'claude-sonnet-4-5'));
  assert.ok(a.includes('messages[2]:tool_result'), a.join());
  assert.ok(b.includes('messages[2]:tool_result'), b.join());
});

test('an assistant turn that ends in tool calls is marked on its last call', () => {
  const req = agentTurn(LONG, [
    { role: 'user', content: 'And the licence?' },
    {
      role: 'assistant',
      content: 'Reading.',
      tool_calls: [{ id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{"path":"LICENSE"}' } }],
    },
  ]);
  const body = encodeRequest('anthropic', withCacheBreakpoints(req, sonnet), 'claude-sonnet-4-5');
  assert.ok(marks(body).includes('messages[3]:tool_use'), marks(body).join());
});

test('no breakpoint below the model minimum: 1024 tokens for most Claude models, more for Haiku and the newest Opus', () => {
  assert.equal(minCacheableTokens('claude-sonnet-4-5'), 1024);
  assert.equal(minCacheableTokens('claude-3-5-haiku-20241022'), 2048);
  assert.equal(minCacheableTokens('anthropic.claude-3-haiku-20240307-v1:0'), 2048);
  assert.equal(minCacheableTokens('claude-haiku-4-5@20251001'), 4096);
  assert.equal(minCacheableTokens('claude-opus-4-5'), 4096);
  const short = agentTurn('Be brief.');
  assert.equal(withCacheBreakpoints(short, sonnet), short, 'a short prompt is sent as it was');
  // About 1,600 tokens: enough for Sonnet, not for Haiku 3.5.
  const req = agentTurn();
  assert.ok(countBreakpoints(withCacheBreakpoints(req, sonnet)) > 0);
  assert.equal(withCacheBreakpoints(req, { ...sonnet, model: 'claude-3-5-haiku-20241022' }), req);
});

test('only converted calls to Claude with caching on: not for Anthropic callers, other models, or prompt_cache off', () => {
  const req = agentTurn();
  assert.equal(withCacheBreakpoints(req, { ...sonnet, settings: { prompt_cache: 'off' } }), req);
  assert.equal(withCacheBreakpoints(req, { format: 'gemini', model: 'gemini-2.5-pro', settings: {} }), req);
  assert.equal(withCacheBreakpoints(req, { format: 'openai', model: 'claude-sonnet-4-5', settings: {} }), req);
  assert.equal(withCacheBreakpoints(req, { format: 'bedrock', model: 'amazon.nova-pro-v1:0', settings: {} }), req);
  assert.notEqual(
    withCacheBreakpoints(req, { format: 'bedrock', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', settings: {} }),
    req,
  );
  const own = decodeRequest('anthropic', {
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    system: LONG,
    messages: [{ role: 'user', content: [{ type: 'text', text: LONG }] }],
  });
  assert.equal(withCacheBreakpoints(own, { format: 'bedrock', model: 'anthropic.claude-sonnet-4-5-20250929-v1:0', settings: {} }), own);
});

test('at most four breakpoints, counting those the request already has', () => {
  const req = agentTurn(LONG, [
    { role: 'assistant', content: 'Done.' },
    { role: 'user', content: 'Next.' },
  ]);
  // Three of its own (as a decoder that keeps them would give): one more fits, on the newest message.
  const mine = { type: 'ephemeral' };
  const own: CanonicalRequest = {
    ...req,
    tools: req.tools!.map((t) => ({ ...t, cacheControl: mine })),
    messages: req.messages.map((m, i) =>
      i === 1 || i === 2 ? { ...m, parts: [{ type: 'text' as const, text: 'x', cacheControl: mine }] } : m,
    ),
  };
  assert.equal(countBreakpoints(own), 3);
  const placed = withCacheBreakpoints(own, sonnet);
  assert.equal(countBreakpoints(placed), 4);
  const last = placed.messages[placed.messages.length - 1];
  assert.ok('cacheControl' in last.parts[0] && last.parts[0].cacheControl);
  const full = { ...own, messages: own.messages.map((m, i) => (i === 3 ? { ...m, cacheControl: mine } : m)) };
  assert.equal(withCacheBreakpoints(full, sonnet), full);
});

test('the one-hour TTL reaches Anthropic and Bedrock bodies', () => {
  const hour = withCacheBreakpoints(agentTurn(), { ...sonnet, settings: { prompt_cache_ttl: '1h' } });
  const body = encodeRequest('anthropic', hour, 'claude-sonnet-4-5');
  assert.deepEqual((body.system as any[])[0].cache_control, { type: 'ephemeral', ttl: '1h' });
  const model = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
  const br = encodeRequest(
    'bedrock',
    withCacheBreakpoints(agentTurn(), { format: 'bedrock', model, settings: { prompt_cache_ttl: '1h' } }),
    model,
  );
  assert.deepEqual((br.system as any[]).at(-1), { cachePoint: { type: 'default', ttl: '1h' } });
  const five = encodeRequest('bedrock', withCacheBreakpoints(agentTurn(), { format: 'bedrock', model, settings: {} }), model);
  assert.deepEqual((five.system as any[]).at(-1), { cachePoint: { type: 'default' } });
});

test('tools without a system prompt get their own breakpoint', () => {
  const tools = [{ type: 'function', function: { name: 'search', description: LONG, parameters: { type: 'object' } } }];
  const req = decodeRequest('openai', { model: 'm', tools, messages: [{ role: 'user', content: 'hi' }] });
  const body = encodeRequest('anthropic', withCacheBreakpoints(req, sonnet), 'claude-sonnet-4-5');
  assert.deepEqual(marks(body), ['tools:search', 'messages[0]:text']);
});

test('a conversation is named by its head, the same on every turn; a short prompt by nothing', () => {
  const one = conversationHead(agentTurn());
  const two = conversationHead(
    agentTurn(LONG, [
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'more' },
    ]),
  );
  assert.ok(one);
  assert.equal(one, two);
  assert.notEqual(conversationHead(agentTurn(LONG + 'other')), one);
  assert.equal(conversationHead(agentTurn('Be brief.')), null);
});
