import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { bedrockCredential, bedrockHeaders, bedrockUrl, EventStreamFramer, parseBedrockKey } from './endpoint.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const str = (value: string) => ({ type: 'string' as const, value });
const event = (name: string, payload: unknown) =>
  codec.encode({
    headers: { ':message-type': str('event'), ':event-type': str(name), ':content-type': str('application/json') },
    body: fromUtf8(JSON.stringify(payload)),
  });

test('keys: access key form (with an optional session token) and API keys with a region; errors never repeat the key', () => {
  assert.deepEqual(parseBedrockKey('AKIAIOSFODNN7EXAMPLE|wJalrXUtnFEMI/K7MDENG|us-east-1'), {
    kind: 'sigv4',
    accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG',
    region: 'us-east-1',
  });
  assert.equal((parseBedrockKey('ASIAIOSFODNN7EXAMPLE|s3cret|eu-west-1|tok/en+=') as { sessionToken?: string }).sessionToken, 'tok/en+=');
  assert.deepEqual(parseBedrockKey('ABSKabc123', 'us-west-2'), { kind: 'api_key', apiKey: 'ABSKabc123', region: 'us-west-2' });
  for (const [k, region] of [
    ['AKIAIOSFODNN7EXAMPLE|s3cretvalue'],
    ['AKIAIOSFODNN7EXAMPLE|s3cretvalue|earth'],
    ['akia|s3cretvalue|us-east-1'],
    ['ABSKabc123'],
    ['ABSKabc123', 'mars'],
    [''],
  ] as const) {
    assert.throws(
      () => parseBedrockKey(k, region),
      (e: Error) => !e.message.includes('s3cretvalue') && !e.message.includes('ABSKabc123'),
      `${k} ${region}`,
    );
  }
});

test('a key is read once; the URL is the regional endpoint unless base_url replaces it', () => {
  const key = 'AKIAIOSFODNN7EXAMPLE|wJalrXUtnFEMI/K7MDENG|eu-central-1';
  const c = bedrockCredential(key, { settings: {} });
  assert.equal(bedrockCredential(key, { settings: {} }), c, 'cached');
  assert.ok(c.secrets.includes('wJalrXUtnFEMI/K7MDENG'));
  assert.equal(
    bedrockUrl({ baseUrl: '' }, c, 'anthropic.claude-v2:1', true).href,
    'https://bedrock-runtime.eu-central-1.amazonaws.com/model/anthropic.claude-v2%3A1/converse-stream',
  );
  assert.equal(bedrockUrl({ baseUrl: 'http://127.0.0.1:9' }, c, 'm', false).href, 'http://127.0.0.1:9/model/m/converse');
});

test('signed headers: SigV4 with the body hash and the host; an API key as a bearer token', async () => {
  const c = bedrockCredential('ASIAIOSFODNN7EXAMPLE|wJalrXUtnFEMI/K7MDENG|us-east-1|session-token', { settings: {} });
  const url = bedrockUrl({ baseUrl: '' }, c, 'm', false);
  const h = await bedrockHeaders({ headerOverride: {} }, c, url, '{}', false);
  assert.match(
    h.authorization,
    /^AWS4-HMAC-SHA256 Credential=ASIAIOSFODNN7EXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
  );
  assert.equal(h['x-amz-content-sha256'], '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  assert.equal(h['x-amz-security-token'], 'session-token');
  assert.equal(h.host, 'bedrock-runtime.us-east-1.amazonaws.com');
  const k = bedrockCredential('ABSKabc123', { settings: { region: 'us-west-2' } });
  assert.deepEqual(await bedrockHeaders({ headerOverride: {} }, k, bedrockUrl({ baseUrl: '' }, k, 'm', true), '{}', true), {
    'content-type': 'application/json',
    accept: 'application/vnd.amazon.eventstream',
    authorization: 'Bearer ABSKabc123',
  });
});

test('the event-stream framer decodes messages split anywhere, holding only the partial one', () => {
  const bytes = Buffer.concat([
    event('messageStart', { role: 'assistant' }),
    event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'hé' } }),
  ]);
  const f = new EventStreamFramer();
  const got = [];
  for (let i = 0; i < bytes.length; i++) got.push(...f.push(bytes.subarray(i, i + 1)));
  got.push(...f.end());
  assert.deepEqual(
    got.map((e) => [e.event, JSON.parse(e.data)]),
    [
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'hé' } }],
    ],
  );
  // Exceptions are named by their type.
  const ex = codec.encode({
    headers: { ':message-type': str('exception'), ':exception-type': str('throttlingException') },
    body: fromUtf8('{"message":"slow"}'),
  });
  assert.deepEqual(
    new EventStreamFramer().push(Buffer.from(ex)).map((e) => e.event),
    ['throttlingException'],
  );
});

test('a corrupt or truncated event stream becomes one error event', () => {
  const bad = Buffer.from(event('messageStart', {}));
  bad[bad.length - 1] ^= 0xff; // the message CRC
  const f = new EventStreamFramer();
  const evs = f.push(bad);
  assert.equal(evs.length, 1);
  assert.match(evs[0].data, /could not be read/);
  assert.deepEqual(f.push(Buffer.from(event('messageStart', {}))), [], 'nothing after a corrupt message');
  const t = new EventStreamFramer();
  assert.deepEqual(t.push(Buffer.from(event('messageStart', {})).subarray(0, 10)), []);
  assert.match(t.end()[0].data, /ended inside a message/);
});
