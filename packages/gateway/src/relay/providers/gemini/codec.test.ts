import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../../../platform/errors.ts';
import {
  createStreamDecoder,
  createStreamEncoder,
  decodeRequest,
  decodeResponse,
  encodeRequest,
  encodeResponse,
  usageFromResponse,
  usageFromStreamEvent,
} from '../index.ts';
import { fixture, sseFixture, sseJson } from '../fixtures/load.ts';

test('gemini request decodes contents, pairs function responses with calls, keeps thought signatures', () => {
  const req = decodeRequest('gemini', fixture('gemini-request.json'));
  assert.equal(req.model, '');
  assert.equal(req.stream, false);
  assert.deepEqual(
    req.messages.map((m) => m.role),
    ['system', 'user', 'assistant', 'tool', 'tool'],
  );
  assert.deepEqual(req.messages[1].parts.slice(1), [
    { type: 'image', source: { kind: 'base64', mediaType: 'image/webp', data: 'UklGRiQAAABXRUJQ' } },
    { type: 'file', mediaType: 'application/pdf', url: 'https://generativelanguage.googleapis.com/v1beta/files/abc123' },
  ]);
  const a = req.messages[2];
  assert.ok(a.role === 'assistant');
  assert.deepEqual(a.parts, [{ type: 'thinking', text: 'Checking opening hours.', from: 'gemini', signature: 'CiQBdGhvdWdodA==' }]);
  assert.equal(a.toolCalls.length, 2);
  assert.equal(a.toolCalls[0].thoughtSignature, 'Cp8BAXLI2nw+sig/1==');
  assert.equal(a.toolCalls[1].thoughtSignature, undefined);
  const [t1, t2] = req.messages.slice(3);
  assert.ok(t1.role === 'tool' && t2.role === 'tool');
  assert.equal(t1.toolCallId, a.toolCalls[0].id);
  assert.equal(t2.toolCallId, a.toolCalls[1].id);
  assert.notEqual(t1.toolCallId, t2.toolCallId);
  assert.deepEqual(t1.parts, [{ type: 'text', text: '{"open":"09:00","close":"19:00"}' }]);
  assert.deepEqual(t2.parts, [{ type: 'text', text: '08:00-18:00' }]);
  assert.deepEqual(req.toolChoice, { name: 'opening_hours' });
  assert.deepEqual(req.tools?.[0].parameters, { type: 'object', properties: { site: { type: 'string' } }, required: ['site'] });
  assert.equal(req.tools?.[1].native?.format, 'gemini');
  assert.equal(req.temperature, 0.7);
  assert.equal(req.maxTokens, 1000);
  assert.equal(req.n, 2);
  assert.deepEqual(req.stop, ['STOP!']);
  assert.equal(req.responseFormat?.type, 'json_schema');
  assert.equal(req.reasoning?.budgetTokens, 2048);
  assert.deepEqual(Object.keys(req.extra), ['safetySettings']);
  const toOpenAI = encodeRequest('openai', req, 'gpt') as any;
  assert.equal(toOpenAI.n, 2);
  assert.ok(req.dropped.includes('generationConfig.responseModalities'));
  assert.ok(req.dropped.includes('safetySettings'));
  assert.ok(req.dropped.includes('tools.googleSearch (native gemini tool)'));
});

test('gemini → gemini keeps signatures, native tools and unknown generationConfig keys', () => {
  const src = fixture('gemini-request.json');
  const body = encodeRequest('gemini', decodeRequest('gemini', src), 'gemini-2.5-flash') as any;
  assert.equal(body.model, undefined);
  assert.deepEqual(body.systemInstruction, src.systemInstruction);
  assert.deepEqual(body.contents[0], src.contents[0]);
  assert.deepEqual(body.contents[1].parts[0], src.contents[1].parts[0]);
  assert.equal(body.contents[1].parts[1].thoughtSignature, 'Cp8BAXLI2nw+sig/1==');
  assert.deepEqual(body.contents[1].parts[1].functionCall.args, { site: 'Colosseum' });
  assert.equal(body.contents[2].parts.length, 2);
  assert.deepEqual(body.contents[2].parts[0].functionResponse.response, { open: '09:00', close: '19:00' });
  assert.deepEqual(body.contents[2].parts[1].functionResponse.response, { content: '08:00-18:00' });
  assert.equal(body.contents[2].parts[0].functionResponse.id, body.contents[1].parts[1].functionCall.id);
  assert.deepEqual(body.tools[1], { googleSearch: {} });
  assert.deepEqual(body.toolConfig, src.toolConfig);
  assert.deepEqual(body.generationConfig.responseModalities, ['TEXT']);
  assert.equal(body.generationConfig.candidateCount, 2);
  assert.deepEqual(body.generationConfig.thinkingConfig, { thinkingBudget: 2048, includeThoughts: true });
  assert.deepEqual(body.safetySettings, src.safetySettings);
  assert.deepEqual(body.generationConfig.responseSchema, src.generationConfig.responseSchema);
  assert.equal(body.generationConfig.responseJsonSchema, undefined);
  const lvl = encodeRequest(
    'gemini',
    decodeRequest('gemini', { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { thinkingConfig: { thinkingLevel: 'LOW' } } }),
    'g',
  ) as any;
  assert.deepEqual(lvl.generationConfig, { thinkingConfig: { thinkingLevel: 'LOW' } });
});

test('gemini input requires contents; bad roles are named', () => {
  const cases: [unknown, RegExp][] = [
    [{}, /contents is required/],
    [{ contents: {} }, /contents must be an array/],
    [{ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, /contents\[0\]\.role/],
    [{ contents: [{ role: 'user' }] }, /contents\[0\]\.parts/],
    [{ contents: [{ role: 'user', parts: [] }], generationConfig: { temperature: 'x' } }, /generationConfig\.temperature/],
  ];
  for (const [body, re] of cases) {
    assert.throws(
      () => decodeRequest('gemini', body),
      (e: unknown) => e instanceof GatewayError && e.status === 400 && re.test(e.message),
      String(re),
    );
  }
});

test('openai → gemini request: systemInstruction, roles, inlineData images, function responses named from the call', () => {
  const req = decodeRequest('openai', fixture('openai-request-tools.json'));
  const body = encodeRequest('gemini', req, 'gemini-2.5-pro') as any;
  assert.deepEqual(body.systemInstruction, { parts: [{ text: 'You are a weather bot.' }] });
  assert.deepEqual(
    body.contents.map((c: any) => c.role),
    ['user', 'model', 'user', 'model', 'user'],
  );
  assert.deepEqual(body.contents[0].parts[1], { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUg==' } });
  assert.deepEqual(
    body.contents[2].parts.map((p: any) => p.functionResponse.name),
    ['get_weather', 'get_weather'],
  );
  assert.deepEqual(body.contents[2].parts[0].functionResponse.response, { temp: 21, sky: 'sunny' });
  assert.deepEqual(body.generationConfig, {
    temperature: 0.3,
    topP: 0.9,
    maxOutputTokens: 512,
    stopSequences: ['END'],
    responseMimeType: 'text/plain',
    thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
  });
  const decl = body.tools[0].functionDeclarations[0];
  assert.equal(decl.parameters.additionalProperties, undefined);
  assert.deepEqual(body.toolConfig, { functionCallingConfig: { mode: 'AUTO' } });
  assert.ok(req.dropped.includes('logprobs'));
});

test('a tool result whose call is unknown is rejected when the upstream needs the function name', () => {
  const req = decodeRequest('openai', {
    model: 'm',
    messages: [
      { role: 'user', content: 'x' },
      { role: 'tool', tool_call_id: 'nope', content: 'r' },
    ],
  });
  assert.throws(
    () => encodeRequest('gemini', req, 'g'),
    (e: unknown) => e instanceof GatewayError && e.status === 400 && /messages\[1\]\.tool_call_id/.test(e.message),
  );
});

test('gemini usage counts thoughts as output and cached content inside input', () => {
  const body = fixture('gemini-response.json');
  const expected = { inputTokens: 120, outputTokens: 130, cachedInputTokens: 64, cacheWriteTokens: 0, reasoningTokens: 100 };
  assert.deepEqual(usageFromResponse('gemini', body), expected);
  const res = decodeResponse('gemini', body);
  assert.deepEqual(res.usage, expected);
  const oa = encodeResponse('openai', res, 'g', 'r') as any;
  assert.equal(oa.usage.completion_tokens, 130);
  assert.equal(oa.usage.completion_tokens_details.reasoning_tokens, 100);
  const back = encodeResponse('gemini', res, 'gemini-2.5-flash', 'r') as any;
  assert.deepEqual(back.usageMetadata, {
    promptTokenCount: 120,
    candidatesTokenCount: 30,
    totalTokenCount: 250,
    cachedContentTokenCount: 64,
    thoughtsTokenCount: 100,
  });
});

test('gemini response → openai response: thoughts as reasoning, function call with signature, finish tool_calls', () => {
  const res = decodeResponse('gemini', fixture('gemini-response.json'));
  assert.equal(res.choices[0].finishReason, 'tool_calls');
  const oa = encodeResponse('openai', res, 'gemini-client', 'r') as any;
  const m = oa.choices[0].message;
  assert.equal(m.reasoning_content, 'The user wants Rome hours.');
  assert.equal(m.content, 'I will check the Colosseum.');
  assert.equal(m.tool_calls[0].function.name, 'opening_hours');
  assert.equal(m.tool_calls[0].function.arguments, '{"site":"Colosseum"}');
  assert.deepEqual(m.tool_calls[0].extra_content, { google: { thought_signature: 'CsUCAXLI2nyTnU+Ypx/Vr1Ba2zU=' } });
  assert.match(m.tool_calls[0].id, /^call_[0-9a-zA-Z]+__ts__[A-Za-z0-9_-]+$/);
  assert.equal(oa.choices[0].finish_reason, 'tool_calls');
  const g = encodeResponse('gemini', res, 'gemini-2.5-flash', 'r') as any;
  assert.equal(g.candidates[0].finishReason, 'STOP');
  assert.equal(g.candidates[0].content.parts[2].thoughtSignature, 'CsUCAXLI2nyTnU+Ypx/Vr1Ba2zU=');
});

test('gemini finish reasons map to canonical terms', () => {
  const mk = (finishReason: string) =>
    decodeResponse('gemini', { candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason }] }).choices[0]
      .finishReason;
  assert.equal(mk('STOP'), 'stop');
  assert.equal(mk('MAX_TOKENS'), 'length');
  assert.equal(mk('SAFETY'), 'content_filter');
  assert.equal(mk('RECITATION'), 'content_filter');
  assert.equal(mk('MALFORMED_FUNCTION_CALL'), 'error');
  const blocked = decodeResponse('gemini', { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5 } });
  assert.equal(blocked.choices[0].finishReason, 'content_filter');
});

test('gemini stream transcript → openai chunks with tool call, signature and usage at the end', () => {
  const dec = createStreamDecoder('gemini');
  const enc = createStreamEncoder('openai', { model: 'gemini-client', requestId: 'r5', includeUsage: true });
  let out = '';
  for (const e of sseFixture('gemini-stream-tool.sse')) for (const c of dec.push(e)) out += enc.push(c);
  out += enc.end();
  const chunks = sseJson(out);
  const deltas = chunks.flatMap((c) => c.choices.map((x: any) => x.delta));
  assert.equal(deltas.map((d: any) => d.reasoning_content ?? '').join(''), 'Planning the day.');
  assert.equal(deltas.map((d: any) => d.content ?? '').join(''), 'Let me check the hours.');
  const tc = deltas.flatMap((d: any) => d.tool_calls ?? []);
  assert.equal(tc[0].function.name, 'opening_hours');
  assert.equal(tc.map((t: any) => t.function.arguments).join(''), '{"site":"Colosseum"}');
  assert.equal(tc[0].extra_content.google.thought_signature, 'CsUCAXLI2nyTnU+Ypx/Vr1Ba2zU=');
  assert.equal(chunks.flatMap((c) => c.choices).find((x: any) => x.finish_reason)?.finish_reason, 'tool_calls');
  const last = chunks[chunks.length - 1];
  assert.deepEqual(last.usage, {
    prompt_tokens: 40,
    completion_tokens: 70,
    total_tokens: 110,
    prompt_tokens_details: { cached_tokens: 8 },
    completion_tokens_details: { reasoning_tokens: 50 },
  });
  const pass = sseFixture('gemini-stream-tool.sse')
    .map((e) => usageFromStreamEvent('gemini', e))
    .filter(Boolean);
  assert.equal(pass.length, 4);
  assert.deepEqual(pass[3], { inputTokens: 40, outputTokens: 70, cachedInputTokens: 8, cacheWriteTokens: 0, reasoningTokens: 50 });
});

test('openai stream transcript → gemini SSE: whole function calls, final chunk with finish reason and usage', () => {
  const dec = createStreamDecoder('openai');
  const enc = createStreamEncoder('gemini', { model: 'gemini-client', requestId: 'r6', includeUsage: true });
  let out = '';
  for (const e of sseFixture('openai-stream-tool.sse')) for (const c of dec.push(e)) out += enc.push(c);
  out += enc.end();
  assert.ok(!out.includes('[DONE]'));
  const chunks = sseJson(out);
  const parts = chunks.flatMap((c) => c.candidates.flatMap((x: any) => x.content.parts));
  assert.equal(
    parts
      .filter((p: any) => p.text)
      .map((p: any) => p.text)
      .join(''),
    'Checking now.',
  );
  const calls = parts.filter((p: any) => p.functionCall).map((p: any) => p.functionCall);
  assert.deepEqual(
    calls.map((c: any) => [c.id, c.name, c.args]),
    [
      ['call_DdmO9pD3xa9XTPNJ32zg2hcA', 'get_weather', { city: 'Paris' }],
      ['call_second', 'get_weather', { city: 'Rome' }],
    ],
  );
  const last = chunks[chunks.length - 1];
  assert.equal(last.candidates[0].finishReason, 'STOP');
  assert.deepEqual(last.usageMetadata, {
    promptTokenCount: 82,
    candidatesTokenCount: 40,
    totalTokenCount: 122,
    cachedContentTokenCount: 64,
  });
  assert.ok(chunks.every((c) => c.modelVersion === 'gemini-client'));
});

test('gemini streamGenerateContent JSON array (no alt=sse) folds into one response', () => {
  const chunks = sseFixture('gemini-stream-tool.sse').map((e) => JSON.parse(e.data));
  const res = decodeResponse('gemini', chunks);
  assert.equal(
    res.choices[0].parts
      .filter((p) => p.type === 'text')
      .map((p) => (p as any).text)
      .join(''),
    'Let me check the hours.',
  );
  assert.equal(res.choices[0].toolCalls[0].arguments, '{"site":"Colosseum"}');
  assert.equal(res.usage.outputTokens, 70);
  assert.equal(usageFromResponse('gemini', chunks)?.inputTokens, 40);
});
