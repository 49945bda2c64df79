/**
 * One loopback vendor for structured-output tests that speaks four wire formats by path — OpenAI chat
 * (`/v1/chat/completions`), Anthropic (`/v1/messages`), Gemini (`/v1beta/models/{m}:generateContent`,
 * `:streamGenerateContent`) and Bedrock Converse (`/model/{id}/converse`, `/converse-stream`, with a
 * Bedrock API key) — stream and not.
 *
 * Each format answers with JSON only when the request asks for it in that vendor's own form, and then
 * with an object that follows the schema it received (every property, the first enum value …):
 * OpenAI `response_format` (`json_schema` or `json_object`), Anthropic `output_config.format` or a
 * forced tool (`tool_choice: {type: 'tool'}`, answered with a `tool_use` block whose input is the
 * object), Gemini `responseMimeType: application/json` with `responseJsonSchema` / `responseSchema`,
 * Bedrock `outputConfig.textFormat` (the schema as JSON text) or a forced tool (`toolChoice.tool`).
 * Anything else gets prose, so a caller parsing the answer fails when the schema was lost on the way.
 * Every model call is recorded with the form it asked in.
 */
import type { ServerResponse } from 'node:http';
import { frame } from './bedrock.ts';
import { json, sse, startFake, type FakeUpstream, type Recorded } from './common.ts';

/** How a request asked for JSON: its vendor's native field, a forced tool, or not at all. */
export type Form = 'schema' | 'json' | 'tool' | 'none';

export interface StructuredCall {
  family: 'openai' | 'anthropic' | 'gemini' | 'bedrock';
  stream: boolean;
  form: Form;
  /** The schema received (JSON Schema, or Gemini's OpenAPI form), when there was one. */
  schema?: unknown;
  body: any;
}

export interface FakeStructured {
  url: string;
  calls: StructuredCall[];
  close(): Promise<void>;
}

export const PROSE = 'It is sunny in Paris, about 21 degrees.';
export const BEDROCK_API_KEY = 'ABSKstructuredkey';

/** A value that follows `schema` (JSON Schema or Gemini's upper-case OpenAPI form); `root` resolves `$ref`s. */
export function sample(schema: any, root: any = schema): unknown {
  if (!schema || typeof schema !== 'object') return null;
  if (typeof schema.$ref === 'string') {
    const path = schema.$ref.replace(/^#\//, '').split('/');
    return sample(
      path.reduce((o: any, k: string) => o?.[k], root),
      root,
    );
  }
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants)) return sample(variants[0], root);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = String(types.find((t: unknown) => t !== 'null' && t !== 'NULL') ?? (schema.properties ? 'object' : 'string')).toLowerCase();
  switch (type) {
    case 'object': {
      const props = schema.properties ?? {};
      if (!Object.keys(props).length) return { answer: '42' };
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sample(v, root)]));
    }
    case 'array':
      return [sample(schema.items ?? {}, root)];
    case 'integer':
      return 21;
    case 'number':
      return 21.5;
    case 'boolean':
      return true;
    default:
      return schema.format === 'date-time' ? '2026-01-02T03:04:05Z' : 'Paris';
  }
}

const pieces = (s: string): string[] => s.match(/.{1,7}/gs) ?? [''];

export async function startFakeStructured(): Promise<FakeStructured> {
  const calls: StructuredCall[] = [];
  const up: FakeUpstream = await startFake((r, res, u) => {
    if (r.path.startsWith('/v1/chat/completions')) return openai(r, res, u, calls);
    if (r.path.startsWith('/v1/messages')) return anthropic(r, res, u, calls);
    if (r.path.startsWith('/v1beta/models/')) return gemini(r, res, u, calls);
    if (r.path.startsWith('/model/')) return bedrock(r, res, calls);
    return json(res, 404, { error: { message: `no route ${r.path}` } });
  });
  return { url: up.url, calls, close: () => up.close() };
}

function openai(r: Recorded, res: ServerResponse, up: FakeUpstream, calls: StructuredCall[]): Promise<void> | void {
  const b = r.body;
  const rf = b.response_format;
  const form: Form = rf?.type === 'json_schema' && rf.json_schema?.schema ? 'schema' : rf?.type === 'json_object' ? 'json' : 'none';
  const schema = form === 'schema' ? rf.json_schema.schema : undefined;
  calls.push({ family: 'openai', stream: b.stream === true, form, schema, body: b });
  const text = form === 'none' ? PROSE : JSON.stringify(sample(schema ?? { type: 'object' }));
  const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };
  const base = { id: 'chatcmpl-1', created: 1, model: b.model };
  if (!b.stream) {
    return json(res, 200, {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage,
    });
  }
  const chunk = (delta: unknown, finish: string | null) => ({
    data: { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] },
  });
  const events = [chunk({ role: 'assistant', content: '' }, null), ...pieces(text).map((p) => chunk({ content: p }, null))];
  events.push(chunk({}, 'stop'));
  if (b.stream_options?.include_usage) events.push({ data: { ...base, object: 'chat.completion.chunk', choices: [], usage } as any });
  events.push({ data: '[DONE]' as any });
  return sse(res, events, up.delayMs);
}

function anthropic(r: Recorded, res: ServerResponse, up: FakeUpstream, calls: StructuredCall[]): Promise<void> | void {
  const b = r.body;
  const format = b.output_config?.format;
  const forced = b.tool_choice?.type === 'tool' ? (b.tools ?? []).find((t: any) => t.name === b.tool_choice.name) : undefined;
  const form: Form = format?.type === 'json_schema' && format.schema ? 'schema' : forced ? 'tool' : 'none';
  const schema = form === 'schema' ? format.schema : forced?.input_schema;
  calls.push({ family: 'anthropic', stream: b.stream === true, form, schema, body: b });
  const value = sample(schema ?? { type: 'object' });
  const usage = { input_tokens: 21, output_tokens: 9 };
  const block =
    form === 'tool'
      ? { type: 'tool_use', id: 'toolu_1', name: forced.name, input: value }
      : { type: 'text', text: form === 'schema' ? JSON.stringify(value) : PROSE };
  const stop = form === 'tool' ? 'tool_use' : 'end_turn';
  if (!b.stream) {
    return json(res, 200, {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: b.model,
      content: [block],
      stop_reason: stop,
      stop_sequence: null,
      usage,
    });
  }
  const ev = (event: string, data: Record<string, unknown>) => ({ event, data: { type: event, ...data } });
  const events = [
    ev('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: b.model,
        content: [],
        stop_reason: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
  ];
  if (block.type === 'tool_use') {
    events.push(ev('content_block_start', { index: 0, content_block: { ...block, input: {} } }));
    for (const p of pieces(JSON.stringify(value)))
      events.push(ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: p } }));
  } else {
    events.push(ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }));
    for (const p of pieces(block.text as string))
      events.push(ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: p } }));
  }
  events.push(ev('content_block_stop', { index: 0 }));
  events.push(ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }));
  events.push(ev('message_stop', {}));
  return sse(res, events, up.delayMs);
}

function gemini(r: Recorded, res: ServerResponse, up: FakeUpstream, calls: StructuredCall[]): Promise<void> | void {
  const m = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent)/.exec(r.path);
  if (!m) return json(res, 404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } });
  const g = r.body.generationConfig ?? {};
  const schema = g.responseJsonSchema ?? g.responseSchema;
  const form: Form = g.responseMimeType === 'application/json' ? (schema ? 'schema' : 'json') : 'none';
  const stream = m[2] === 'streamGenerateContent';
  calls.push({ family: 'gemini', stream, form, schema, body: r.body });
  const text = form === 'none' ? PROSE : JSON.stringify(sample(schema ?? { type: 'object' }));
  const usageMetadata = { promptTokenCount: 13, candidatesTokenCount: 6, totalTokenCount: 19 };
  const cand = (t: string, finish?: string) => ({
    content: { role: 'model', parts: [{ text: t }] },
    index: 0,
    ...(finish ? { finishReason: finish } : {}),
  });
  if (!stream) return json(res, 200, { candidates: [cand(text, 'STOP')], usageMetadata, modelVersion: m[1] });
  const ps = pieces(text);
  return sse(
    res,
    ps.map((p, i) => ({
      data: { candidates: [cand(p, i === ps.length - 1 ? 'STOP' : undefined)], ...(i === ps.length - 1 ? { usageMetadata } : {}) },
    })),
    up.delayMs,
  );
}

function bedrock(r: Recorded, res: ServerResponse, calls: StructuredCall[]): void {
  const m = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(r.path);
  if (!m || r.headers.authorization !== `Bearer ${BEDROCK_API_KEY}`)
    return json(
      res,
      403,
      { message: 'The security token included in the request is invalid.' },
      { 'x-amzn-errortype': 'UnrecognizedClientException' },
    );
  const b = r.body;
  const js = b.outputConfig?.textFormat?.type === 'json_schema' ? b.outputConfig.textFormat.structure?.jsonSchema : undefined;
  // Converse takes the schema as JSON text; an object there is refused as Bedrock refuses it.
  if (js && typeof js.schema !== 'string')
    return json(
      res,
      400,
      { message: 'outputConfig.textFormat.structure.jsonSchema.schema must be a string' },
      { 'x-amzn-errortype': 'ValidationException' },
    );
  const forcedName = b.toolConfig?.toolChoice?.tool?.name;
  const forced = forcedName ? b.toolConfig.tools.find((t: any) => t.toolSpec?.name === forcedName)?.toolSpec : undefined;
  const form: Form = js ? 'schema' : forced ? 'tool' : 'none';
  const schema = js ? JSON.parse(js.schema) : forced?.inputSchema?.json;
  const stream = m[2] === 'converse-stream';
  calls.push({ family: 'bedrock', stream, form, schema, body: b });
  const value = sample(schema ?? { type: 'object' });
  const usage = { inputTokens: 20, outputTokens: 12, totalTokens: 32 };
  const block =
    form === 'tool'
      ? { toolUse: { toolUseId: 'tooluse_1', name: forcedName, input: value } }
      : { text: form === 'schema' ? JSON.stringify(value) : PROSE };
  const stopReason = form === 'tool' ? 'tool_use' : 'end_turn';
  if (!stream)
    return json(res, 200, { output: { message: { role: 'assistant', content: [block] } }, stopReason, usage, metrics: { latencyMs: 5 } });
  const at = { contentBlockIndex: 0 };
  const frames = [frame('messageStart', { role: 'assistant' })];
  if ('toolUse' in block) {
    frames.push(frame('contentBlockStart', { ...at, start: { toolUse: { toolUseId: 'tooluse_1', name: forcedName } } }));
    for (const p of pieces(JSON.stringify(value))) frames.push(frame('contentBlockDelta', { ...at, delta: { toolUse: { input: p } } }));
  } else for (const p of pieces(block.text)) frames.push(frame('contentBlockDelta', { ...at, delta: { text: p } }));
  frames.push(frame('contentBlockStop', at), frame('messageStop', { stopReason }), frame('metadata', { usage, metrics: { latencyMs: 5 } }));
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
  for (const f of frames) res.write(f);
  res.end();
}
