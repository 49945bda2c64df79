/**
 * Structured outputs across formats, driven by the official SDKs' structured-output functions: a JSON
 * schema asked in each family's form (OpenAI chat `response_format` and Responses `text.format` with
 * zod, Anthropic `output_config.format` with zod, Gemini `responseJsonSchema` and the upper-case
 * `responseSchema`) is answered with a parseable object through each other family's channel (OpenAI,
 * Anthropic, Gemini, Bedrock). The loopback vendor answers JSON only when it received the schema in its
 * own form, so a schema lost on the way fails the caller's parse. Bare JSON (`json_object`) reaches
 * Anthropic and Bedrock as a forced tool whose input comes back as the text, streams included; the
 * log row records what the converted request left out.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod';
import { GoogleGenAI, Type } from '@google/genai';
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { BEDROCK_API_KEY, startFakeStructured, type FakeStructured, type StructuredCall } from '../fakes/upstreams/structured.ts';
import { consumeLog, createCaller, createChannel, setPrice } from '../relay-fixtures.ts';

const Weather = z.object({
  city: z.string(),
  temperature: z.number(),
  conditions: z.enum(['sunny', 'rainy']),
  days: z.array(z.object({ day: z.string(), high: z.number() })),
});
/** What the vendor's answer holds: the schema followed (first enum value, one array item). */
const EXPECTED = { city: 'Paris', temperature: 21.5, conditions: 'sunny', days: [{ day: 'Paris', high: 21.5 }] };
/** The same schema in Gemini's OpenAPI form, as the Google SDK's `Type` writes it. */
const GEMINI_SCHEMA = {
  type: Type.OBJECT,
  properties: {
    city: { type: Type.STRING },
    temperature: { type: Type.NUMBER },
    conditions: { type: Type.STRING, format: 'enum', enum: ['sunny', 'rainy'] },
    days: {
      type: Type.ARRAY,
      items: { type: Type.OBJECT, properties: { day: { type: Type.STRING }, high: { type: Type.NUMBER } }, required: ['day', 'high'] },
    },
  },
  required: ['city', 'temperature', 'conditions', 'days'],
  propertyOrdering: ['city', 'temperature', 'conditions', 'days'],
};
const ASK = 'What is the weather in Paris?';

let gw: TestGateway;
let vendor: FakeStructured;
let key: string;

/** The model of each family's channel. */
const CHANNELS = { openai: 'so-openai', anthropic: 'so-claude', gemini: 'so-gemini', bedrock: 'so-bedrock' } as const;
type Family = keyof typeof CHANNELS;

before(async () => {
  gw = await startTestGateway();
  vendor = await startFakeStructured();
  // Responses calls are converted to chat on this channel (no Responses API).
  await createChannel(gw, { type: 1, baseUrl: vendor.url, models: [CHANNELS.openai], settings: { responses_api: false } });
  await createChannel(gw, { type: 14, baseUrl: vendor.url, models: [CHANNELS.anthropic] });
  await createChannel(gw, { type: 24, baseUrl: vendor.url, models: [CHANNELS.gemini] });
  await createChannel(gw, {
    type: 33,
    baseUrl: vendor.url,
    keys: [BEDROCK_API_KEY],
    models: [CHANNELS.bedrock],
    modelMapping: { [CHANNELS.bedrock]: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' },
    settings: { region: 'us-east-1' },
  });
  for (const m of Object.values(CHANNELS)) await setPrice(gw, m, { input: 2, output: 2 });
  key = (await createCaller(gw)).key;
});
after(async () => {
  await gw?.stop();
  await vendor?.close();
});

const openai = () => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropic = () => new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
const genai = () => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gw.url } });

/** The vendor's call made by `fn`. */
async function served<T>(fn: () => Promise<T>): Promise<{ out: T; call: StructuredCall }> {
  const before = vendor.calls.length;
  const out = await fn();
  assert.equal(vendor.calls.length, before + 1, 'one upstream call');
  return { out, call: vendor.calls[before] };
}

/** Each caller family's form of the question; each answers the parsed object. */
const CALLERS: Record<string, { own: Family | null; ask: (model: string) => Promise<unknown> }> = {
  'OpenAI chat response_format (chat.completions.parse, zod)': {
    own: 'openai',
    ask: async (model) => {
      const r = await openai().chat.completions.parse({
        model,
        messages: [{ role: 'user', content: ASK }],
        response_format: zodResponseFormat(Weather, 'weather'),
      });
      return r.choices[0].message.parsed;
    },
  },
  'Responses text.format (responses.parse, zod)': {
    own: null,
    ask: async (model) => {
      const r = await openai().responses.parse({ model, input: ASK, text: { format: zodTextFormat(Weather, 'weather') } });
      assert.equal(r.text?.format?.type, 'json_schema', 'the Response repeats the format asked for');
      return r.output_parsed;
    },
  },
  'Anthropic output_config.format (messages.parse, zod)': {
    own: 'anthropic',
    ask: async (model) =>
      (
        await anthropic().messages.parse({
          model,
          max_tokens: 500,
          messages: [{ role: 'user', content: ASK }],
          output_config: { format: zodOutputFormat(Weather) },
        })
      ).parsed_output,
  },
  'Gemini responseJsonSchema (@google/genai)': {
    own: 'gemini',
    ask: async (model) => {
      const r = await genai().models.generateContent({
        model,
        contents: ASK,
        config: { responseMimeType: 'application/json', responseJsonSchema: z.toJSONSchema(Weather) },
      });
      return Weather.parse(JSON.parse(r.text ?? ''));
    },
  },
  'Gemini upper-case responseSchema (@google/genai Type)': {
    own: 'gemini',
    ask: async (model) => {
      const r = await genai().models.generateContent({
        model,
        contents: ASK,
        config: { responseMimeType: 'application/json', responseSchema: GEMINI_SCHEMA },
      });
      return Weather.parse(JSON.parse(r.text ?? ''));
    },
  },
};

for (const [caller, c] of Object.entries(CALLERS)) {
  for (const family of Object.keys(CHANNELS) as Family[]) {
    if (family === c.own) continue;
    test(`${caller} → ${family} channel: the schema arrives in ${family}'s form and the answer parses`, async () => {
      const { out, call } = await served(() => c.ask(CHANNELS[family]));
      assert.equal(call.family, family);
      assert.equal(call.form, 'schema', `the ${family} vendor got the schema in its own form`);
      assert.deepEqual(out, EXPECTED);
      const props = (call.schema as any).properties;
      assert.deepEqual(Object.keys(props), ['city', 'temperature', 'conditions', 'days']);
      assert.deepEqual(props.conditions.enum, ['sunny', 'rainy']);
    });
  }
}

test('bare JSON (json_object) from a chat caller: a forced tool on Anthropic and Bedrock, the native field on Gemini', async () => {
  for (const [family, form] of [
    ['anthropic', 'tool'],
    ['bedrock', 'tool'],
    ['gemini', 'json'],
  ] as const) {
    const { out, call } = await served(() =>
      openai().chat.completions.create({
        model: CHANNELS[family],
        messages: [{ role: 'user', content: `${ASK} Answer in JSON.` }],
        response_format: { type: 'json_object' },
      }),
    );
    assert.equal(call.form, form, family);
    assert.deepEqual(JSON.parse(out.choices[0].message.content ?? ''), { answer: '42' }, family);
    assert.equal(out.choices[0].finish_reason, 'stop', `${family}: the answer tool's call is the answer, not a tool call`);
    assert.equal(out.choices[0].message.tool_calls, undefined);
  }
});

test('bare JSON from a Gemini caller reaches Anthropic as a forced tool; the answer is the text part', async () => {
  const { out, call } = await served(() =>
    genai().models.generateContent({ model: CHANNELS.anthropic, contents: ASK, config: { responseMimeType: 'application/json' } }),
  );
  assert.equal(call.form, 'tool');
  assert.deepEqual(JSON.parse(out.text ?? ''), { answer: '42' });
  assert.equal(out.functionCalls, undefined);
});

test('streamed, chat → Anthropic: the parsed object (chat.completions.stream, zod), and bare JSON whose tool input deltas arrive as text deltas', async () => {
  const { out, call } = await served(async () => {
    const s = openai().chat.completions.stream({
      model: CHANNELS.anthropic,
      messages: [{ role: 'user', content: ASK }],
      response_format: zodResponseFormat(Weather, 'weather'),
    });
    return s.finalChatCompletion();
  });
  assert.equal(call.stream, true);
  assert.equal(call.form, 'schema');
  assert.deepEqual(out.choices[0].message.parsed, EXPECTED);

  for (const family of ['anthropic', 'bedrock'] as const) {
    const { out: chunks, call: c2 } = await served(async () => {
      const s = await openai().chat.completions.create({
        model: CHANNELS[family],
        messages: [{ role: 'user', content: ASK }],
        response_format: { type: 'json_object' },
        stream: true,
      });
      const got: { text: string[]; finish: string | null; tools: number } = { text: [], finish: null, tools: 0 };
      for await (const ch of s) {
        const d = ch.choices[0]?.delta;
        if (d?.content) got.text.push(d.content);
        if (d?.tool_calls) got.tools++;
        got.finish = ch.choices[0]?.finish_reason ?? got.finish;
      }
      return got;
    });
    assert.equal(c2.form, 'tool', family);
    assert.ok(chunks.text.length > 1, `${family}: the object arrives in pieces, as it streams`);
    assert.deepEqual(JSON.parse(chunks.text.join('')), { answer: '42' });
    assert.equal(chunks.tools, 0);
    assert.equal(chunks.finish, 'stop');
  }
});

test('streamed, Anthropic → OpenAI and → Gemini: messages.stream with output_config.format ends with the parsed object', async () => {
  for (const family of ['openai', 'gemini'] as const) {
    const { out, call } = await served(async () => {
      const s = anthropic().messages.stream({
        model: CHANNELS[family],
        max_tokens: 500,
        messages: [{ role: 'user', content: ASK }],
        output_config: { format: zodOutputFormat(Weather) },
      });
      return s.finalMessage();
    });
    assert.equal(call.stream, true);
    assert.equal(call.form, 'schema', family);
    assert.deepEqual(out.parsed_output, EXPECTED);
  }
});

test('streamed, Gemini responseSchema → Bedrock: the chunks add up to the object', async () => {
  const { out, call } = await served(async () => {
    let text = '';
    for await (const ch of await genai().models.generateContentStream({
      model: CHANNELS.bedrock,
      contents: ASK,
      config: { responseMimeType: 'application/json', responseSchema: GEMINI_SCHEMA },
    }))
      text += ch.text ?? '';
    return text;
  });
  assert.equal(call.stream, true);
  assert.equal(call.form, 'schema');
  assert.deepEqual(Weather.parse(JSON.parse(out)), EXPECTED);
});

test('the log row records what the converted request left out, not what the caller sent', async () => {
  const { data, request_id } = await openai()
    .chat.completions.create({
      model: CHANNELS.anthropic,
      messages: [{ role: 'user', content: ASK }],
      response_format: zodResponseFormat(Weather, 'weather'),
      seed: 7,
      presence_penalty: 0.5,
    })
    .withResponse();
  assert.deepEqual(Weather.parse(JSON.parse(data.choices[0].message.content ?? '')), EXPECTED);
  const log = await consumeLog(gw, request_id!);
  const other = JSON.parse(log.other ?? '{}');
  assert.deepEqual(other.dropped, ['seed', 'presence_penalty'], 'what Anthropic has no field for is named; the schema is not');

  // Fields the target has are not recorded.
  const same = await openai()
    .chat.completions.create({
      model: CHANNELS.gemini,
      messages: [{ role: 'user', content: ASK }],
      seed: 7,
      response_format: { type: 'json_object' },
    })
    .withResponse();
  assert.equal(JSON.parse((await consumeLog(gw, same.request_id!)).other ?? '{}').dropped, undefined);
});
