/**
 * Responses over a WebSocket (`GET /v1/responses` upgraded) driven with the `ws` client as a caller
 * would: a warm-up (`generate: false`), then turns that name the previous Response and send only what
 * is new with `store: false` — the connection holds the conversation, and the upstream receives it
 * whole: an Anthropic channel (converted) and an OpenAI channel with the Responses API (over HTTPS).
 * Each turn is billed and logged like `POST /v1/responses`; bad messages and an empty balance get
 * `error` events; a bad key is refused before the upgrade, a key deleted meanwhile ends the socket; a socket dropped mid-turn settles that turn once; a graceful
 * stop closes a socket after its turn; an idle socket is closed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { sse, startFake, type FakeUpstream, type Recorded } from '../fakes/upstreams/common.ts';
import { balance, consumeLog, createCaller, createChannel, logsFor, setPrice, waitFor } from '../relay-fixtures.ts';

let gw: TestGateway;
let anthropic: FakeUpstream;
let openai: FakeUpstream;
/** Streams held open by the Anthropic fake (a turn whose last user text is `hold`): each call ends one. */
const held: Array<() => void> = [];

const ev = (event: string, data: Record<string, unknown>) => ({ event, data: { type: event, ...data } });

/** Messages API: a tool call when the conversation has no tool result yet, else text; `hold` streams one delta and waits. */
function anthropicAnswer(r: Recorded, res: import('node:http').ServerResponse) {
  const msgs = r.body.messages as Array<{ role: string; content: unknown }>;
  const last = msgs.at(-1)!;
  const text = typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
  const start = ev('message_start', {
    message: {
      id: 'msg_ws',
      type: 'message',
      role: 'assistant',
      model: r.body.model,
      content: [],
      stop_reason: null,
      usage: { input_tokens: 1000, output_tokens: 1 },
    },
  });
  if (text.includes('hold')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const e of [start, ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })])
      res.write(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
    const d = ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'partial answer ' } });
    res.write(`event: ${d.event}\ndata: ${JSON.stringify(d.data)}\n\n`);
    return new Promise<void>((resolve) => {
      res.on('close', () => resolve());
      held.push(() => {
        if (!res.destroyed) {
          const rest = [
            ev('content_block_stop', { index: 0 }),
            ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 30 } }),
            ev('message_stop', {}),
          ];
          res.end(rest.map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`).join(''));
        }
        resolve();
      });
    });
  }
  const toolDone = text.includes('tool_result');
  const block = toolDone
    ? [
        ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
        ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'The file says 42.' } }),
      ]
    : [
        ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} } }),
        ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":"a.txt"}' } }),
      ];
  return sse(
    res,
    [
      start,
      ...block,
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', {
        delta: { stop_reason: toolDone ? 'end_turn' : 'tool_use', stop_sequence: null },
        usage: { output_tokens: 20 },
      }),
      ev('message_stop', {}),
    ],
    0,
  );
}

/** Responses API over HTTPS: answers every call with one message naming how many input items it got. */
function openaiAnswer(r: Recorded, res: import('node:http').ServerResponse) {
  const n = Array.isArray(r.body.input) ? r.body.input.length : 1;
  const item = {
    id: `msg_${n}`,
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: `saw ${n}` }],
  };
  const response = { id: `resp_up_${n}`, object: 'response', model: r.body.model, status: 'in_progress', output: [] as unknown[] };
  return sse(
    res,
    [
      { event: 'response.created', data: { type: 'response.created', sequence_number: 0, response } },
      { event: 'response.output_item.added', data: { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item } },
      { event: 'response.output_item.done', data: { type: 'response.output_item.done', sequence_number: 2, output_index: 0, item } },
      {
        event: 'response.completed',
        data: {
          type: 'response.completed',
          sequence_number: 3,
          response: {
            ...response,
            status: 'completed',
            output: [item],
            usage: { input_tokens: 300, output_tokens: 10, total_tokens: 310 },
          },
        },
      },
    ],
    0,
  );
}

before(async () => {
  anthropic = await startFake((r, res) => anthropicAnswer(r, res));
  openai = await startFake((r, res) => openaiAnswer(r, res));
  gw = await startTestGateway();
  await createChannel(gw, { type: 14, baseUrl: anthropic.url, keys: ['sk-ant'], models: ['claude-ws'], name: 'anthropic' });
  await createChannel(gw, { type: 1, baseUrl: openai.url, keys: ['sk-oa'], models: ['gpt-ws'], name: 'openai' });
  await setPrice(gw, 'claude-ws', { input: 3, output: 15 });
  await setPrice(gw, 'gpt-ws', { input: 1, output: 2 });
});

after(async () => {
  for (const h of held) h();
  await gw?.stop();
  await anthropic?.close();
  await openai?.close();
});

/** A socket to the gateway, with every message it receives in order. */
interface Client {
  ws: WebSocket;
  messages: any[];
  /** Resolves with the messages of the next turn, up to its final event (or an `error`). */
  turn(msg: Record<string, unknown>): Promise<any[]>;
  closed: Promise<{ code: number; reason: string }>;
  /** The upgrade's `x-request-id`. */
  requestId: string;
}

function connect(url: string, key: string): Promise<Client> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v1/responses`, {
    headers: { authorization: `Bearer ${key}`, 'openai-beta': 'responses_websockets=2026-02-06' },
  });
  const messages: any[] = [];
  let waiter: (() => void) | null = null;
  ws.on('message', (d) => {
    messages.push(JSON.parse(d.toString()));
    waiter?.();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const final = (m: any) => m.type === 'error' || /^response\.(completed|incomplete|failed)$/.test(m.type);
  const turn = (msg: Record<string, unknown>) => {
    const from = messages.length;
    ws.send(JSON.stringify(msg));
    return new Promise<any[]>((resolve) => {
      const check = () => {
        const got = messages.slice(from);
        if (got.some(final)) {
          waiter = null;
          resolve(got);
        }
      };
      waiter = check;
      check();
    });
  };
  let requestId = '';
  ws.once('upgrade', (res) => {
    requestId = String(res.headers['x-request-id'] ?? '');
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, messages, turn, closed, requestId }));
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
  });
}

const completedOf = (msgs: any[]) => msgs.find((m) => m.type === 'response.completed')?.response;

test('Anthropic channel: warm-up, a tool call, then only the new input with store:false — the upstream gets the whole conversation, each turn billed once', async () => {
  const caller = await createCaller(gw, { quota: 50_000_000 });
  const before = await balance(gw, caller.userId);
  const c = await connect(gw.url, caller.key);
  assert.match(c.requestId, /^req_/, 'the switch to the WebSocket carries a request id');
  const base = {
    type: 'response.create',
    model: 'claude-ws',
    instructions: 'Be brief.',
    store: false,
    tools: [
      {
        type: 'function',
        name: 'read_file',
        description: 'Reads a file',
        parameters: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ],
  };
  const user = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is in a.txt?' }] };
  const sentBefore = anthropic.requests.length;

  const warm = await c.turn({ ...base, input: [user], generate: false });
  assert.deepEqual(
    warm.map((m) => m.type),
    ['response.created', 'response.completed'],
  );
  const warmId = completedOf(warm).id;
  assert.equal(anthropic.requests.length, sentBefore, 'the warm-up calls no model');

  const t1 = await c.turn({ ...base, previous_response_id: warmId, input: [] });
  const types = t1.map((m) => m.type);
  assert.equal(types[0], 'response.created');
  assert.equal(types.at(-1), 'response.completed');
  assert.ok(types.includes('response.function_call_arguments.delta'), types.join(','));
  const seqs = t1.map((m) => m.sequence_number);
  assert.deepEqual(
    seqs,
    [...seqs].sort((a, b) => a - b),
    'events in order',
  );
  const r1 = completedOf(t1);
  const call = r1.output.find((o: any) => o.type === 'function_call');
  assert.equal(call.name, 'read_file');
  const first = anthropic.requests.at(-1)!;
  assert.equal(first.body.messages.length, 1, 'the warm-up input reached the vendor');

  const t2 = await c.turn({
    ...base,
    previous_response_id: r1.id,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: '42' }],
  });
  const r2 = completedOf(t2);
  assert.match(r2.output.find((o: any) => o.type === 'message').content[0].text, /42/);
  const second = anthropic.requests.at(-1)!;
  const roles = second.body.messages.map((m: any) => m.role);
  assert.deepEqual(roles, ['user', 'assistant', 'user'], 'the whole conversation went upstream');
  assert.equal(second.body.messages[1].content.find((b: any) => b.type === 'tool_use').id, call.call_id);
  assert.equal(second.body.messages[2].content.find((b: any) => b.type === 'tool_result').tool_use_id, call.call_id);

  for (const r of [r1, r2]) {
    const log = await consumeLog(gw, r.id.slice('resp_'.length));
    assert.equal(log.endpoint, '/v1/responses');
    assert.equal(Number(log.status_code), 200);
    assert.equal(Number(log.prompt_tokens), 1000);
    assert.equal(Number(log.completion_tokens), 20);
  }
  await waitFor(async () => before - (await balance(gw, caller.userId)) > 0, 5000, 'the charges');
  c.ws.close();
  await c.closed;
});

test('OpenAI channel with the Responses API: each turn goes over HTTPS, whole, streamed, without the socket fields', async () => {
  const caller = await createCaller(gw, { quota: 50_000_000 });
  const c = await connect(gw.url, caller.key);
  const t1 = await c.turn({ type: 'response.create', model: 'gpt-ws', store: false, input: 'hello' });
  const r1 = completedOf(t1);
  assert.equal(r1.id, 'resp_up_1');
  const t2 = await c.turn({ type: 'response.create', model: 'gpt-ws', store: false, previous_response_id: r1.id, input: 'again' });
  assert.equal(completedOf(t2).id, 'resp_up_3', 'the first input, the first answer and the new input');
  const sent = openai.requests.filter((q) => q.path.endsWith('/responses'));
  const last = sent.at(-1)!;
  assert.equal(last.body.previous_response_id, undefined);
  assert.equal(last.body.type, undefined);
  assert.equal(last.body.stream, true);
  assert.equal(last.body.input[1].id, 'msg_1', 'the output item of the first turn');
  assert.equal(last.headers.authorization, 'Bearer sk-oa');
  assert.equal(last.headers['openai-beta'], undefined, 'the socket beta stays here');
  c.ws.close();
});

test('bad messages get error events and the socket stays open', async () => {
  const caller = await createCaller(gw, { quota: 50_000_000 });
  const c = await connect(gw.url, caller.key);
  const from = c.messages.length;
  c.ws.send('{not json');
  await waitFor(() => c.messages.length > from, 5000, 'the error');
  const e1 = c.messages[from];
  assert.equal(e1.type, 'error');
  assert.equal(e1.status, 400);
  assert.equal(e1.error.code, 'invalid_json');
  const [e2] = await c.turn({ type: 'session.update' });
  assert.equal(e2.status, 400);
  assert.match(e2.error.message, /unknown message type/);
  const [e3] = await c.turn({ type: 'response.create', input: 'x' });
  assert.match(e3.error.message, /"model" is required/);
  const [e4] = await c.turn({ type: 'response.create', model: 'nobody-serves-this', input: 'x' });
  assert.equal(e4.type, 'error');
  assert.equal(e4.error.code, 'model_not_found');
  assert.equal(e4.status, 404);
  const deep = `{"type":"response.create","model":"gpt-ws","input":${'['.repeat(300)}${']'.repeat(300)}}`;
  const [e5] = await (async () => {
    const from5 = c.messages.length;
    c.ws.send(deep);
    await waitFor(() => c.messages.length > from5, 5000, 'the error');
    return c.messages.slice(from5);
  })();
  assert.equal(e5.status, 400);
  assert.match(e5.error.message, /nests deeper/);
  // Still usable.
  const ok = await c.turn({ type: 'response.create', model: 'gpt-ws', input: 'fine' });
  assert.ok(completedOf(ok));
  c.ws.close();
});

test('a binary message gets an error event and the socket is closed (1003)', async () => {
  const caller = await createCaller(gw, { quota: 1000 });
  const c = await connect(gw.url, caller.key);
  c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
  assert.equal((await c.closed).code, 1003);
  assert.equal(c.messages[0].type, 'error');
  assert.equal(c.messages[0].status, 400);
});

test('a turn the balance cannot pay for gets a 429 insufficient_quota error event and reaches no upstream', async () => {
  const caller = await createCaller(gw, { quota: 1 });
  const c = await connect(gw.url, caller.key);
  const from = anthropic.requests.length;
  const [e] = await c.turn({ type: 'response.create', model: 'claude-ws', input: 'x' });
  assert.equal(e.type, 'error');
  assert.equal(e.status, 429);
  assert.equal(e.error.code, 'insufficient_quota');
  assert.equal(anthropic.requests.length, from);
  assert.equal(await balance(gw, caller.userId), 1);
  c.ws.close();
});

test('a bad or missing key is refused before the upgrade (401), the balance untouched', async () => {
  await assert.rejects(connect(gw.url, 'sk-not-a-key'), (e: any) => e.status === 401);
  const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/responses`);
  const status = await new Promise<number>((resolve) => ws.once('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0)));
  assert.equal(status, 401);
  const plain = await fetch(`${gw.url}/v1/responses`, { headers: { authorization: 'Bearer sk-not-a-key' } });
  assert.equal(plain.status, 401);
  const caller = await createCaller(gw, { quota: 1000 });
  const list = await fetch(`${gw.url}/v1/responses`, { headers: { authorization: `Bearer ${caller.key}` } });
  assert.equal(list.status, 404, 'without an upgrade the path lists nothing');
  assert.equal(((await list.json()) as { error: { type: string } }).error.type, 'invalid_request_error');
});

test('a key deleted while its socket is open: the next turn gets an error event and the socket is closed (1008)', async () => {
  const caller = await createCaller(gw, { quota: 50_000_000 });
  const c = await connect(gw.url, caller.key);
  await gw.services.admin.keys.remove(caller.keyId, null);
  await waitFor(
    () => {
      try {
        gw.services.accounts.keys.authenticate(caller.key, '127.0.0.1');
        return false;
      } catch {
        return true;
      }
    },
    5000,
    'the key cache to drop the key',
  );
  const [e] = await c.turn({ type: 'response.create', model: 'gpt-ws', input: 'x' });
  assert.equal(e.type, 'error');
  assert.equal(e.status, 401);
  assert.equal((await c.closed).code, 1008);
});

test('a socket dropped mid-turn settles that turn once, for what it produced', async () => {
  const caller = await createCaller(gw, { quota: 50_000_000 });
  const start = await balance(gw, caller.userId);
  const c = await connect(gw.url, caller.key);
  c.ws.send(JSON.stringify({ type: 'response.create', model: 'claude-ws', input: 'hold on' }));
  await waitFor(() => c.messages.some((m) => m.type === 'response.output_text.delta'), 5000, 'the first delta');
  const id: string = c.messages.find((m) => m.type === 'response.created').response.id.slice('resp_'.length);
  c.ws.terminate();
  const log = await consumeLog(gw, id);
  assert.equal(Number(log.status_code), 499);
  assert.equal(JSON.parse(log.other ?? '{}').clientGone, true);
  const rows = await gw.core.h.db.selectFrom('ledger').selectAll().where('ref', '=', id).execute();
  assert.equal(rows.filter((r) => r.kind === 'close').length, 1, 'closed once');
  assert.equal(rows.filter((r) => r.kind === 'settle').length, 1, 'settled once');
  const charged = Number(log.quota);
  assert.ok(charged > 0, 'what it produced is charged');
  await waitFor(async () => start - (await balance(gw, caller.userId)) === charged, 5000, 'the balance moved by the charge');
  assert.equal((await logsFor(gw, id)).filter((r) => r.type === 'consume').length, 1, 'one log row');
  for (const h of held.splice(0)) h();
});

test('a graceful stop closes an idle socket at once and a busy one after its turn, which completes and is billed', async () => {
  const stopping = await startTestGateway();
  try {
    await createChannel(stopping, { type: 14, baseUrl: anthropic.url, keys: ['sk-ant'], models: ['claude-ws'], name: 'anthropic' });
    await setPrice(stopping, 'claude-ws', { input: 3, output: 15 });
    const caller = await createCaller(stopping, { quota: 50_000_000 });
    const idle = await connect(stopping.url, caller.key);
    const busy = await connect(stopping.url, caller.key);
    const turn = busy.turn({ type: 'response.create', model: 'claude-ws', input: 'hold on' });
    await waitFor(() => busy.messages.some((m) => m.type === 'response.output_text.delta'), 5000, 'the first delta');
    const stopped = stopping.shutdown();
    assert.deepEqual(await idle.closed, { code: 1001, reason: 'server shutting down' });
    assert.equal(busy.ws.readyState, WebSocket.OPEN, 'the busy socket stays open during its turn');
    held.shift()!();
    const msgs = await turn;
    const done = completedOf(msgs);
    assert.ok(done, 'the turn completed');
    assert.deepEqual(await busy.closed, { code: 1001, reason: 'server shutting down' });
    await stopped;
    // Read back from the database the stopped node left (its last logs were flushed as it closed).
    const again = await startTestGateway({ db: stopping.db });
    try {
      const log = await consumeLog(again, done.id.slice('resp_'.length));
      assert.equal(Number(log.status_code), 200);
      assert.equal(Number(log.completion_tokens), 30);
    } finally {
      await again.close();
    }
  } finally {
    await stopping.db.drop();
  }
});

test('a turn still running when the stop times out is cut and settled once, for what it produced', async () => {
  const stopping = await startTestGateway();
  try {
    await createChannel(stopping, { type: 14, baseUrl: anthropic.url, keys: ['sk-ant'], models: ['claude-ws'], name: 'anthropic' });
    await setPrice(stopping, 'claude-ws', { input: 3, output: 15 });
    const caller = await createCaller(stopping, { quota: 50_000_000 });
    const c = await connect(stopping.url, caller.key);
    c.ws.send(JSON.stringify({ type: 'response.create', model: 'claude-ws', input: 'hold on' }));
    await waitFor(() => c.messages.some((m) => m.type === 'response.output_text.delta'), 5000, 'the first delta');
    const id: string = c.messages.find((m) => m.type === 'response.created').response.id.slice('resp_'.length);
    await stopping.shutdown(50);
    await c.closed;
    const again = await startTestGateway({ db: stopping.db });
    try {
      const log = await consumeLog(again, id);
      assert.equal(Number(log.status_code), 499);
      const rows = await again.core.h.db.selectFrom('ledger').selectAll().where('ref', '=', id).execute();
      assert.equal(rows.filter((r) => r.kind === 'settle').length, 1, 'settled once');
      assert.equal(rows.filter((r) => r.kind === 'close').length, 1, 'closed once');
      assert.ok(Number(log.quota) > 0, 'what it produced is charged');
      assert.equal(50_000_000 - (await balance(again, caller.userId)), Number(log.quota), 'and only that');
    } finally {
      await again.close();
    }
  } finally {
    for (const h of held.splice(0)) h();
    await stopping.db.drop();
  }
});

test('a socket with no turn in progress is closed after RESPONSES_WEBSOCKET_IDLE_SECONDS', async () => {
  const quick = await startTestGateway({ env: { RESPONSES_WEBSOCKET_IDLE_SECONDS: '0.2' } });
  try {
    const caller = await createCaller(quick, { quota: 1_000_000 });
    const c = await connect(quick.url, caller.key);
    assert.deepEqual(await c.closed, { code: 1000, reason: 'idle timeout' });
  } finally {
    await quick.stop();
  }
});
