import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createStreamDecoder,
  createStreamEncoder,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  upstreamErrorMessage,
} from './index.ts';
import type { CanonicalRequest, WireFormat } from './index.ts';
import { fixture, sseFixture, sseJson } from './fixtures/load.ts';

/** The parts of an OpenAI conversation a round trip must preserve. */
function essence(body: any) {
  return body.messages.map((m: any) => ({
    role: m.role,
    content: typeof m.content === 'string' ? m.content : m.content === null ? '' : m.content,
    tool_calls: m.tool_calls?.map((c: any) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) })),
    tool_call_id: m.tool_call_id,
  }));
}

for (const via of ['anthropic', 'gemini'] as WireFormat[]) {
  test(`openai → ${via} → openai round trip keeps the tool conversation`, () => {
    const src = fixture('openai-request-tools.json');
    const req = decodeRequest('openai', src);
    const upstream = encodeRequest(via, req, 'upstream-model');
    assert.ok(req.dropped.includes('messages[1]: image detail'));
    delete src.messages[1].content[1].image_url.detail;
    const again = decodeRequest(via, JSON.parse(JSON.stringify(upstream)));
    const back = encodeRequest('openai', again, 'gpt-4o') as any;
    const want = essence(src);
    const got = essence(back);
    assert.deepEqual(got, want);
    assert.equal(back.tools[0].function.name, 'get_weather');
    assert.deepEqual(back.tools[0].function.parameters.properties.city, { type: 'string' });
    assert.deepEqual(back.stop, ['END']);
    assert.equal(back.temperature, 0.3);
  });
}

test('anthropic → gemini → anthropic round trip keeps tool ids, inputs and results', () => {
  const src = fixture('anthropic-request.json');
  const g = encodeRequest('gemini', decodeRequest('anthropic', src), 'g');
  const back = encodeRequest('anthropic', decodeRequest('gemini', JSON.parse(JSON.stringify(g))), 'claude') as any;
  const tu = back.messages[1].content.find((b: any) => b.type === 'tool_use');
  assert.deepEqual(tu, { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'lookup_breed', input: { query: 'tabby' } });
  assert.deepEqual(back.messages[2].content[0], {
    type: 'tool_result',
    tool_use_id: 'toolu_01A09q90qw90lq917835lq9',
    content: 'Tabby is a coat pattern.',
  });
  assert.deepEqual(back.messages[2].content[1], { type: 'text', text: 'Summarise please.' });
  // the Anthropic thinking signature cannot go to Gemini: it is dropped and noted
  assert.ok(!JSON.stringify(g).includes('EqQBCkYIBxgCKkBsig=='));
});

test('gemini thought signatures survive a round trip through the OpenAI format', () => {
  // 1. Gemini upstream answers an OpenAI client with a signed function call
  const res = decodeResponse('gemini', fixture('gemini-response.json'));
  const oa = encodeResponse('openai', res, 'gemini-2.5-flash', 'r1') as any;
  const call = oa.choices[0].message.tool_calls[0];
  // 2. a client that drops unknown fields sends the call back with only id/type/function
  const next = {
    model: 'gemini-2.5-flash',
    messages: [
      { role: 'user', content: 'Plan Rome' },
      {
        role: 'assistant',
        content: oa.choices[0].message.content,
        tool_calls: [{ id: call.id, type: 'function', function: call.function }],
      },
      { role: 'tool', tool_call_id: call.id, content: '{"open":"09:00"}' },
    ],
  };
  const body = encodeRequest('gemini', decodeRequest('openai', next), 'gemini-2.5-flash') as any;
  const fcPart = body.contents[1].parts.find((p: any) => p.functionCall);
  assert.equal(fcPart.thoughtSignature, 'CsUCAXLI2nyTnU+Ypx/Vr1Ba2zU=');
  const fr = body.contents[2].parts[0].functionResponse;
  assert.equal(fr.name, 'opening_hours');
  assert.equal(fr.id, fcPart.functionCall.id);
  assert.ok(!fcPart.functionCall.id.includes('__ts__'));
  // 3. a client that keeps extra_content works too
  const keep = structuredClone(next);
  keep.messages[1].tool_calls = [{ ...call, id: 'call_plain' }];
  keep.messages[2].tool_call_id = 'call_plain';
  const body2 = encodeRequest('gemini', decodeRequest('openai', keep), 'g') as any;
  assert.equal(body2.contents[1].parts.find((p: any) => p.functionCall).thoughtSignature, 'CsUCAXLI2nyTnU+Ypx/Vr1Ba2zU=');
  // 4. the long signed id is not sent to an OpenAI upstream
  const toOpenAI = encodeRequest('openai', decodeRequest('openai', next), 'gpt') as any;
  assert.equal(toOpenAI.messages[1].tool_calls[0].id, fcPart.functionCall.id);
  assert.equal(toOpenAI.messages[2].tool_call_id, fcPart.functionCall.id);
});

test('gemini thought signatures survive a round trip through the Anthropic format (stream)', () => {
  const dec = createStreamDecoder('gemini');
  const enc = createStreamEncoder('anthropic', { model: 'claude-client', requestId: 'r7', includeUsage: true });
  let out = '';
  for (const e of sseFixture('gemini-stream-tool.sse')) for (const c of dec.push(e)) out += enc.push(c);
  out += enc.end();
  const events = sseJson(out);
  const tu = events.find((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use').content_block;
  const input = JSON.parse(
    events
      .filter((e) => e.delta?.type === 'input_json_delta')
      .map((e) => e.delta.partial_json)
      .join(''),
  );
  assert.deepEqual(input, { site: 'Colosseum' });
  assert.match(tu.id, /^[a-zA-Z0-9_-]+$/);
  assert.equal(events.find((e) => e.type === 'message_delta').delta.stop_reason, 'tool_use');
  const next = {
    model: 'claude-client',
    max_tokens: 100,
    messages: [
      { role: 'user', content: 'Plan Rome' },
      { role: 'assistant', content: [{ type: 'tool_use', id: tu.id, name: tu.name, input }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: tu.id, content: 'open 9-19' }] },
    ],
  };
  const body = encodeRequest('gemini', decodeRequest('anthropic', next), 'g') as any;
  assert.equal(body.contents[1].parts[0].thoughtSignature, 'CsUCAXLI2nyTnU+Ypx/Vr1Ba2zU=');
  assert.deepEqual(body.contents[2].parts[0].functionResponse, {
    name: 'opening_hours',
    response: { content: 'open 9-19' },
    id: body.contents[1].parts[0].functionCall.id,
  });
  // the same history sent to Anthropic carries a plain id on both sides
  const toClaude = encodeRequest('anthropic', decodeRequest('anthropic', next), 'claude') as any;
  assert.equal(toClaude.messages[1].content[0].id, toClaude.messages[2].content[0].tool_use_id);
  assert.ok(!toClaude.messages[1].content[0].id.includes('__ts__'));
});

test('image parts: data URL ⇄ base64 block ⇄ inlineData, and http URLs', () => {
  const req = decodeRequest('openai', {
    model: 'm',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/AAAA' } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
    ],
  });
  const a = encodeRequest('anthropic', req, 'c') as any;
  assert.deepEqual(a.messages[0].content, [
    { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/AAAA' } },
    { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
  ]);
  const g = encodeRequest('gemini', req, 'g') as any;
  assert.deepEqual(g.contents[0].parts, [
    { inlineData: { mimeType: 'image/jpeg', data: '/9j/AAAA' } },
    { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/a.png' } },
  ]);
  const fromA = encodeRequest('openai', decodeRequest('anthropic', { model: 'c', max_tokens: 5, messages: a.messages }), 'o') as any;
  assert.deepEqual(fromA.messages[0].content, [
    { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/AAAA' } },
    { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
  ]);
  const fromG = encodeRequest('openai', decodeRequest('gemini', { contents: g.contents }), 'o') as any;
  assert.deepEqual(fromG.messages[0].content, fromA.messages[0].content);
});

test('audio input parts go to Gemini as inlineData and are noted as dropped for Anthropic', () => {
  const mk = (): CanonicalRequest =>
    decodeRequest('openai', {
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'listen' },
            { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
          ],
        },
      ],
    });
  const g = encodeRequest('gemini', mk(), 'g') as any;
  assert.deepEqual(g.contents[0].parts[1], { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } });
  const r = mk();
  const a = encodeRequest('anthropic', r, 'c') as any;
  assert.deepEqual(a.messages[0].content, [{ type: 'text', text: 'listen' }]);
  assert.ok(r.dropped.some((d) => d.includes('audio')));
  const back = encodeRequest('openai', decodeRequest('gemini', g), 'o') as any;
  assert.deepEqual(back.messages[0].content[1], { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } });
});

test('response_format and tool_choice convert between formats', () => {
  const req = () =>
    decodeRequest('openai', {
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      tools: [
        { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: ['string', 'null'] } } } } },
      ],
      tool_choice: { type: 'function', function: { name: 'f' } },
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'out', schema: { type: 'object', properties: { x: { type: 'number' } } }, strict: true },
      },
    });
  const g = encodeRequest('gemini', req(), 'g') as any;
  assert.deepEqual(g.toolConfig, { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } });
  assert.deepEqual(g.tools[0].functionDeclarations[0].parameters.properties.a, { type: 'string', nullable: true });
  assert.equal(g.generationConfig.responseMimeType, 'application/json');
  assert.deepEqual(g.generationConfig.responseJsonSchema, { type: 'object', properties: { x: { type: 'number' } } });
  const a = encodeRequest('anthropic', req(), 'c') as any;
  assert.deepEqual(a.tool_choice, { type: 'tool', name: 'f' });
  const back = encodeRequest('openai', decodeRequest('gemini', g), 'o') as any;
  assert.deepEqual(back.tool_choice, { type: 'function', function: { name: 'f' } });
  assert.equal(back.response_format.type, 'json_schema');
});

test('upstream error messages are extracted from each family envelope', () => {
  assert.equal(
    upstreamErrorMessage('openai', 400, '{"error":{"message":"Invalid model","type":"invalid_request_error","param":"model","code":null}}'),
    'Invalid model',
  );
  assert.equal(
    upstreamErrorMessage(
      'anthropic',
      529,
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}',
    ),
    'Overloaded',
  );
  assert.equal(
    upstreamErrorMessage('gemini', 400, '{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}'),
    'API key not valid.',
  );
  assert.equal(
    upstreamErrorMessage('gemini', 429, '[{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}}]'),
    'Quota exceeded',
  );
  assert.equal(upstreamErrorMessage('openai', 502, '  <html>Bad Gateway</html>\n'), '<html>Bad Gateway</html>');
  assert.equal(upstreamErrorMessage('openai', 500, 'x'.repeat(800)).length, 500);
  assert.equal(upstreamErrorMessage('anthropic', 503, ''), 'upstream returned status 503');
  assert.equal(upstreamErrorMessage('openai', 400, '{"error":"plain string"}'), 'plain string');
});

test('OpenAI n > 1 to Anthropic is noted as dropped; Gemini gets candidateCount', () => {
  const req = decodeRequest('openai', { model: 'm', messages: [{ role: 'user', content: 'x' }], n: 3 });
  encodeRequest('anthropic', req, 'c');
  assert.ok(req.dropped.some((d) => d.startsWith('n ')));
  const g = encodeRequest('gemini', decodeRequest('openai', { model: 'm', messages: [{ role: 'user', content: 'x' }], n: 3 }), 'g') as any;
  assert.equal(g.generationConfig.candidateCount, 3);
});

test('several system blocks stay separate; tool results with images become text for OpenAI with a note', () => {
  const req = () =>
    decodeRequest('anthropic', {
      model: 'c',
      max_tokens: 50,
      system: [
        { type: 'text', text: 'Rule one.' },
        { type: 'text', text: 'Rule two.' },
      ],
      messages: [
        { role: 'user', content: 'draw' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'render', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_1',
              is_error: true,
              content: [
                { type: 'text', text: 'failed' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
              ],
            },
          ],
        },
      ],
    });
  const r = req();
  const o = encodeRequest('openai', r, 'gpt') as any;
  assert.deepEqual(o.messages[0], {
    role: 'system',
    content: [
      { type: 'text', text: 'Rule one.' },
      { type: 'text', text: 'Rule two.' },
    ],
  });
  assert.deepEqual(o.messages[3], { role: 'tool', tool_call_id: 'toolu_1', content: 'Error: failed' });
  assert.ok(r.dropped.includes('messages[3]: non-text tool result content'));
  const g = encodeRequest('gemini', req(), 'g') as any;
  assert.deepEqual(g.systemInstruction, { parts: [{ text: 'Rule one.' }, { text: 'Rule two.' }] });
  assert.deepEqual(g.contents[2].parts[0].functionResponse.response, { content: 'failed' });
});

test('anthropic thinking signatures reach OpenAI-format callers as thinking_blocks and come back with the next turn', () => {
  const upstream = fixture('anthropic-response.json');
  upstream.content.splice(1, 0, { type: 'redacted_thinking', data: 'ENCRYPTED==' });
  const shown = encodeResponse('openai', decodeResponse('anthropic', upstream), 'claude', 'r1') as any;
  const m = shown.choices[0].message;
  assert.equal(m.reasoning_content, 'Need the weather tool.');
  assert.deepEqual(m.thinking_blocks, [
    { type: 'thinking', thinking: 'Need the weather tool.', signature: upstream.content[0].signature },
    { type: 'redacted_thinking', data: 'ENCRYPTED==' },
  ]);
  // The caller sends the assistant turn back as it got it; the Anthropic upstream gets its blocks.
  const next = decodeRequest('openai', {
    model: 'claude',
    messages: [
      { role: 'user', content: 'weather?' },
      { ...m, role: 'assistant' },
      { role: 'tool', tool_call_id: m.tool_calls[0].id, content: 'sunny' },
    ],
  });
  const body = encodeRequest('anthropic', next, 'claude-up') as any;
  const assistant = body.messages.find((x: any) => x.role === 'assistant');
  assert.deepEqual(assistant.content.slice(0, 2), [
    { type: 'thinking', thinking: 'Need the weather tool.', signature: upstream.content[0].signature },
    { type: 'redacted_thinking', data: 'ENCRYPTED==' },
  ]);
  assert.ok(!next.dropped.some((d) => /thinking/.test(d)), next.dropped.join());
});

test('malformed thinking_blocks are a 400 naming the field', () => {
  assert.throws(
    () => decodeRequest('openai', { model: 'm', messages: [{ role: 'assistant', content: 'x', thinking_blocks: [{ type: 'thinking' }] }] }),
    (e: Error & { status?: number }) => e.status === 400 && /messages\[0\]\.thinking_blocks\[0\]/.test(e.message),
  );
  assert.throws(
    () => decodeRequest('openai', { model: 'm', messages: [{ role: 'assistant', content: 'x', thinking_blocks: 'no' }] }),
    /thinking_blocks/,
  );
});

test("streams: an Anthropic thinking block reaches OpenAI callers whole, with its signature, and an OpenAI-format upstream's blocks reach Anthropic callers", () => {
  const dec = createStreamDecoder('anthropic');
  const enc = createStreamEncoder('openai', { model: 'c', requestId: 'r5', includeUsage: true });
  let out = '';
  for (const e of sseFixture('anthropic-stream-tool.sse')) for (const c of dec.push(e)) out += enc.push(c);
  out += enc.end();
  const deltas = sseJson(out).flatMap((j) => j.choices.map((c: any) => c.delta));
  const blocks = deltas.flatMap((d) => d.thinking_blocks ?? []);
  assert.deepEqual(blocks, [
    { type: 'thinking', thinking: 'I should call the weather tool.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' },
  ]);
  assert.equal(deltas.map((d) => d.reasoning_content ?? '').join(''), 'I should call the weather tool.');

  // That OpenAI stream read back (an OpenAI-format upstream that carries blocks) and shown to an Anthropic caller.
  const dec2 = createStreamDecoder('openai');
  const enc2 = createStreamEncoder('anthropic', { model: 'c', requestId: 'r6', includeUsage: true });
  let out2 = '';
  for (const e of sseJson(out)) for (const c of dec2.push({ data: JSON.stringify(e) })) out2 += enc2.push(c);
  out2 += enc2.end();
  const events = sseJson(out2);
  assert.equal(
    events.find((e) => e.delta?.type === 'signature_delta')?.delta.signature,
    'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
  );
  assert.equal(
    events
      .filter((e) => e.delta?.type === 'thinking_delta')
      .map((e) => e.delta.thinking)
      .join(''),
    'I should call the weather tool.',
  );
});
