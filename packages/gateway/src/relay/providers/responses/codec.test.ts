/** The Responses codec: request items to canonical messages, and canonical answers to Response objects and events. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../../../platform/errors.ts';
import { createStreamEncoder, customToolNames, decodeRequest, encodeResponse, namespacedToolNames, outputMessages } from './codec.ts';

test('input items become canonical messages: instructions, messages, calls and outputs, custom tools', () => {
  const req = decodeRequest({
    model: 'm',
    instructions: 'Be brief.',
    max_output_tokens: 100,
    reasoning: { effort: 'low' },
    store: false,
    input: [
      { role: 'developer', content: 'rules' },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'hi' },
          { type: 'input_image', image_url: 'https://x/i.png' },
        ],
      },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'thinking' }], encrypted_content: 'opaque' },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":1}' },
      { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch' },
      { type: 'function_call_output', call_id: 'c1', output: 'one' },
      { type: 'custom_tool_call_output', call_id: 'c2', output: 'patched' },
      { type: 'web_search_call', id: 'ws_1' },
    ],
    tools: [
      { type: 'function', name: 'f', parameters: { type: 'object' } },
      { type: 'custom', name: 'apply_patch', description: 'patch' },
      { type: 'web_search' },
    ],
  });
  assert.deepEqual(
    req.messages.map((m) => m.role),
    ['system', 'system', 'user', 'assistant', 'tool', 'tool'],
  );
  const a = req.messages[3];
  assert.ok(a.role === 'assistant');
  assert.deepEqual(
    a.toolCalls.map((c) => [c.id, c.name, c.arguments]),
    [
      ['c1', 'f', '{"a":1}'],
      ['c2', 'apply_patch', '{"input":"*** Begin Patch"}'],
    ],
  );
  assert.equal(a.parts[0].type, 'thinking');
  assert.equal(req.maxTokens, 100);
  assert.equal(req.reasoning?.effort, 'low');
  assert.deepEqual(
    req.tools?.map((t) => t.name),
    ['f', 'apply_patch'],
  );
  assert.deepEqual([...customToolNames(req)], ['apply_patch']);
  assert.ok(
    req.dropped.some((d) => d.includes('web_search')),
    'hosted tools and their items are noted, not sent',
  );
});

test('bad input is a 400 naming the field', () => {
  for (const [body, re] of [
    [{ input: 'x' }, /model/],
    [{ model: 'm', input: 5 }, /input/],
    [{ model: 'm', input: [{ type: 'function_call' }] }, /input\[0\]\.name/],
    [{ model: 'm', input: [{ role: 'robot', content: 'x' }] }, /input\[0\]\.role/],
  ] as const) {
    assert.throws(
      () => decodeRequest(body),
      (e: unknown) => e instanceof GatewayError && e.status === 400 && re.test(e.message),
    );
  }
});

test('an answer becomes a Response: message, function and custom calls, usage, incomplete on length', () => {
  const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 2, cacheWriteTokens: 0, reasoningTokens: 1 };
  const r = encodeResponse(
    {
      id: 'x',
      choices: [
        {
          index: 0,
          parts: [{ type: 'text', text: 'ok' }],
          toolCalls: [
            { id: 'c1', name: 'f', arguments: '{}' },
            { id: 'c2', name: 'apply_patch', arguments: '{"input":"P"}' },
          ],
          finishReason: 'length',
        },
      ],
      usage,
    },
    'm',
    'req1',
    { customTools: new Set(['apply_patch']) },
  );
  assert.equal(r.id, 'resp_req1');
  assert.equal(r.status, 'incomplete');
  assert.deepEqual(r.incomplete_details, { reason: 'max_output_tokens' });
  const out = r.output as Array<Record<string, unknown>>;
  assert.deepEqual(
    out.map((o) => o.type),
    ['message', 'function_call', 'custom_tool_call'],
  );
  assert.equal(out[2].input, 'P');
  assert.deepEqual(r.usage, {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 2 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 1 },
    total_tokens: 15,
  });
  // Output items read back as the assistant turn of a conversation.
  const back = outputMessages(out);
  assert.equal(back.length, 1);
  assert.ok(back[0].role === 'assistant' && back[0].toolCalls.length === 2);
});

test('stream events: created, in_progress, items with their parts and deltas in order, completed with the usage', () => {
  let kept: unknown[] = [];
  const enc = createStreamEncoder({ model: 'm', requestId: 'r1', includeUsage: true }, {}, (o) => {
    kept = o;
  });
  let s = enc.push({ type: 'start' });
  s += enc.push({ type: 'thinking', index: 0, text: 'hmm' });
  s += enc.push({ type: 'text', index: 0, text: 'Hel' });
  s += enc.push({ type: 'text', index: 0, text: 'lo' });
  s += enc.push({ type: 'tool_call_start', index: 0, toolIndex: 0, id: 'c1', name: 'f' });
  s += enc.push({ type: 'tool_call_args', index: 0, toolIndex: 0, delta: '{"a"' });
  s += enc.push({ type: 'tool_call_args', index: 0, toolIndex: 0, delta: ':1}' });
  s += enc.push({ type: 'finish', index: 0, reason: 'tool_calls' });
  s += enc.push({
    type: 'usage',
    usage: { inputTokens: 3, outputTokens: 4, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
  });
  s += enc.end();
  const events = s
    .trim()
    .split('\n\n')
    .map((b) => JSON.parse(b.split('\n')[1].slice(6)) as Record<string, any>);
  assert.deepEqual(
    events.map((e) => e.sequence_number),
    events.map((_, i) => i),
  );
  assert.deepEqual(
    events.map((e) => e.type),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ],
  );
  const done = events.at(-1)!.response;
  assert.deepEqual(
    done.output.map((o: { type: string }) => o.type),
    ['reasoning', 'message', 'function_call'],
  );
  assert.equal(done.output[2].arguments, '{"a":1}');
  assert.equal(done.usage.total_tokens, 7);
  assert.equal(kept.length, 3);
});

test('namespace tool groups: each tool offered as <namespace>__<name>, its calls answered and read back with the namespace', () => {
  const body = {
    model: 'm',
    input: [
      { role: 'user', content: 'spawn one' },
      { type: 'function_call', call_id: 'c0', namespace: 'agents', name: 'spawn', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c0', output: 'spawned' },
    ],
    tools: [
      { type: 'function', name: 'shell', parameters: { type: 'object' } },
      {
        type: 'namespace',
        name: 'agents',
        description: 'Sub-agents.',
        tools: [
          { type: 'function', name: 'spawn', description: 'Start one.', parameters: { type: 'object' } },
          { type: 'custom', name: 'note', description: 'Free text.' },
        ],
      },
    ],
  };
  const req = decodeRequest(body);
  assert.deepEqual(
    req.tools!.map((t) => [t.name, t.description]),
    [
      ['shell', undefined],
      ['agents__spawn', 'Sub-agents.\n\nStart one.'],
      ['agents__note', 'Sub-agents.\n\nFree text.'],
    ],
  );
  assert.deepEqual(req.dropped, [], 'nothing of the group is left out');
  const call = req.messages.find((m) => m.role === 'assistant');
  assert.ok(call?.role === 'assistant' && call.toolCalls[0].name === 'agents__spawn', 'a call in the history names the offered tool');

  const echo = { customTools: customToolNames(req), namespacedTools: namespacedToolNames(req) };
  const answer = {
    id: 'x',
    model: 'm',
    choices: [
      {
        index: 0,
        parts: [],
        toolCalls: [
          { id: 'c1', name: 'agents__spawn', arguments: '{"n":1}' },
          { id: 'c2', name: 'agents__note', arguments: '{"input":"hi"}' },
          { id: 'c3', name: 'shell', arguments: '{}' },
        ],
        finishReason: 'tool_calls' as const,
      },
    ],
    usage: { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
  };
  const out = encodeResponse(answer, 'm', 'r2', echo).output as Array<Record<string, unknown>>;
  assert.deepEqual(
    out.map((o) => [o.type, o.namespace, o.name]),
    [
      ['function_call', 'agents', 'spawn'],
      ['custom_tool_call', 'agents', 'note'],
      ['function_call', undefined, 'shell'],
    ],
  );
  const back = outputMessages(out);
  assert.ok(back[0].role === 'assistant');
  assert.deepEqual(
    back[0].toolCalls.map((t) => t.name),
    ['agents__spawn', 'agents__note', 'shell'],
    'a stored Response reads back as the names offered',
  );

  const enc = createStreamEncoder({ model: 'm', requestId: 'r3', includeUsage: false }, echo);
  let s = enc.push({ type: 'start' });
  s += enc.push({ type: 'tool_call_start', index: 0, toolIndex: 0, id: 'c1', name: 'agents__spawn' });
  s += enc.push({ type: 'tool_call_args', index: 0, toolIndex: 0, delta: '{}' });
  s += enc.push({ type: 'finish', index: 0, reason: 'tool_calls' });
  s += enc.end();
  const events = s
    .trim()
    .split('\n\n')
    .map((b) => JSON.parse(b.split('\n')[1].slice(6)) as Record<string, any>);
  const items = events.filter((e) => e.type.startsWith('response.output_item.')).map((e) => [e.item.namespace, e.item.name]);
  assert.deepEqual(items, [
    ['agents', 'spawn'],
    ['agents', 'spawn'],
  ]);
  assert.deepEqual(
    events.at(-1)!.response.output.map((o: Record<string, unknown>) => [o.namespace, o.name]),
    [['agents', 'spawn']],
  );
});
