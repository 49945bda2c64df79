/**
 * The real Codex CLI with its built-in OpenAI provider pointed at the gateway (`openai_base_url`, the
 * key stored by `codex login --with-api-key`) speaks Responses over the WebSocket and never falls back
 * to HTTPS: a task of two model calls (a shell command, then the answer built on its output) over one
 * socket, through an OpenAI channel with the Responses API (called over HTTPS) and through an
 * Anthropic channel (converted). The second call reaches the vendor with the whole conversation —
 * the command and its output — although Codex sent only the new input; both calls are billed and logged.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentCommand } from '../agents/clis.ts';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { sse, startFake, type FakeUpstream, type Recorded } from '../fakes/upstreams/common.ts';
import { balance, createCaller, createChannel, setPrice, waitFor } from '../relay-fixtures.ts';

const CODEX = agentCommand('codex');
/** What the file Codex is asked about holds: it reaches the answer only through the command's output. */
const SECRET = 'periwinkle-4471';

let gw: TestGateway;
let anthropic: FakeUpstream;
let openai: FakeUpstream;
/** Every HTTP request and upgrade the gateway received, as `METHOD path`. */
const seen: string[] = [];

const ev = (event: string, data: Record<string, unknown>) => ({ event, data: { type: event, ...data } });
const command = JSON.stringify({ cmd: 'cat note.txt' });

/** Messages API: runs `cat note.txt` first; once the conversation holds its output, answers with it. */
function anthropicAnswer(r: Recorded, res: ServerResponse) {
  const results = (r.body.messages as Array<{ content: unknown }>)
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b: any) => b.type === 'tool_result');
  const output = results.map((b: any) => (typeof b.content === 'string' ? b.content : JSON.stringify(b.content))).join(' ');
  const blocks = results.length
    ? [
        ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
        ev('content_block_delta', {
          index: 0,
          delta: { type: 'text_delta', text: `The note reads: ${output.includes(SECRET) ? SECRET : 'nothing'}` },
        }),
      ]
    : [
        ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_cat', name: 'exec_command', input: {} } }),
        ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: command } }),
      ];
  const start = {
    id: 'msg_codex',
    type: 'message',
    role: 'assistant',
    model: r.body.model,
    content: [],
    stop_reason: null,
    usage: { input_tokens: 2000, output_tokens: 1 },
  };
  return sse(
    res,
    [
      ev('message_start', { message: start }),
      ...blocks,
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', {
        delta: { stop_reason: results.length ? 'end_turn' : 'tool_use', stop_sequence: null },
        usage: { output_tokens: 12 },
      }),
      ev('message_stop', {}),
    ],
    0,
  );
}

/** Responses API over HTTPS: the same two steps as OpenAI streams them. */
function openaiAnswer(r: Recorded, res: ServerResponse) {
  const input = r.body.input as any[];
  const outputs = input.filter((i) => i.type === 'function_call_output').map((i) => String(i.output));
  const id = `resp_oa_${input.length}`;
  const item = outputs.length
    ? {
        id: `msg_${input.length}`,
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [
          { type: 'output_text', text: `The note reads: ${outputs.join(' ').includes(SECRET) ? SECRET : 'nothing'}`, annotations: [] },
        ],
      }
    : { id: 'fc_cat', type: 'function_call', status: 'completed', call_id: 'call_cat', name: 'exec_command', arguments: command };
  const response = { id, object: 'response', created_at: 1, model: r.body.model, status: 'in_progress', output: [] as unknown[] };
  const usage = {
    input_tokens: 2000,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 12,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 2012,
  };
  return sse(
    res,
    [
      { data: { type: 'response.created', sequence_number: 0, response } },
      { data: { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { ...item, status: 'in_progress' } } },
      { data: { type: 'response.output_item.done', sequence_number: 2, output_index: 0, item } },
      { data: { type: 'response.completed', sequence_number: 3, response: { ...response, status: 'completed', output: [item], usage } } },
    ],
    0,
  );
}

before(async () => {
  anthropic = await startFake((r, res) => anthropicAnswer(r, res));
  openai = await startFake((r, res) => openaiAnswer(r, res));
  gw = await startTestGateway();
  gw.app.server.on('request', (req) => seen.push(`${req.method} ${req.url}`));
  gw.app.server.on('upgrade', (req) => seen.push(`UPGRADE ${req.url}`));
  await createChannel(gw, { type: 14, baseUrl: anthropic.url, keys: ['sk-ant'], models: ['claude-codex-ws'], name: 'anthropic' });
  await createChannel(gw, { type: 1, baseUrl: openai.url, keys: ['sk-oa'], models: ['gpt-codex-ws'], name: 'openai' });
  await setPrice(gw, 'claude-codex-ws', { input: 3, output: 15 });
  await setPrice(gw, 'gpt-codex-ws', { input: 1, output: 4 });
});

after(async () => {
  await gw?.stop();
  await anthropic?.close();
  await openai?.close();
});

/** `codex exec` with the built-in OpenAI provider pointed at the gateway, in a folder holding note.txt (at most 90 s). */
async function codex(key: string, model: string, prompt: string): Promise<{ code: number | null; out: string }> {
  const home = mkdtempSync(join(tmpdir(), 'gatehouse-codex-ws-'));
  try {
    writeFileSync(join(home, 'config.toml'), [`openai_base_url = "${gw.url}/v1"`, `model = "${model}"`, ''].join('\n'));
    writeFileSync(join(home, 'note.txt'), `${SECRET}\n`);
    const env = { PATH: process.env.PATH, HOME: home, CODEX_HOME: home };
    execFileSync(CODEX.file, [...CODEX.args, 'login', '--with-api-key'], { env, input: `${key}\n`, stdio: ['pipe', 'ignore', 'ignore'] });
    const args = [...CODEX.args, 'exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', prompt];
    return await new Promise((resolve) => {
      const p = spawn(CODEX.file, args, { cwd: home, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      p.stdout.on('data', (c: Buffer) => (out += c.toString()));
      p.stderr.on('data', (c: Buffer) => (out += c.toString()));
      const t = setTimeout(() => p.kill('SIGKILL'), 90_000);
      p.on('close', (code) => {
        clearTimeout(t);
        resolve({ code, out });
      });
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

async function consumeRows(userId: number) {
  await gw.services.relay.logs.flush();
  return gw.core.h.db.selectFrom('logs').selectAll().where('user_id', '=', userId).where('type', '=', 'consume').execute();
}

for (const [model, name] of [
  ['gpt-codex-ws', 'an OpenAI channel with the Responses API'],
  ['claude-codex-ws', 'an Anthropic channel'],
] as const) {
  test(`Codex over the WebSocket through ${name}: a command, then the answer built on its output, no HTTPS`, async () => {
    const caller = await createCaller(gw, { quota: 50_000_000 });
    const start = await balance(gw, caller.userId);
    const up = model.startsWith('gpt') ? openai : anthropic;
    const from = up.requests.length;
    seen.length = 0;
    const r = await codex(caller.key, model, 'What does note.txt say?');
    assert.equal(r.code, 0, `codex failed:\n${r.out}`);
    assert.match(r.out, new RegExp(`The note reads: ${SECRET}`), r.out);
    assert.deepEqual(
      seen.filter((s) => s.startsWith('POST')),
      [],
      'no Responses call over HTTPS',
    );
    assert.ok(seen.includes('UPGRADE /v1/responses'), seen.join('\n'));

    const sent = up.requests.slice(from);
    assert.equal(sent.length, 2, 'two model calls');
    const second = sent[1].body;
    if (up === openai) {
      assert.equal(second.previous_response_id, undefined, 'the id is resolved by the gateway');
      assert.ok(
        second.input.some((i: any) => i.type === 'function_call' && i.call_id === 'call_cat'),
        'the command the model asked for',
      );
      assert.ok(
        second.input.some((i: any) => i.type === 'function_call_output' && String(i.output).includes(SECRET)),
        'its output',
      );
      assert.ok(
        second.input.some((i: any) => i.type === 'message' && JSON.stringify(i.content).includes('What does note.txt say?')),
        'and the first input',
      );
      assert.equal(sent[0].headers.authorization, 'Bearer sk-oa');
    } else {
      const blocks = second.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []));
      assert.ok(
        blocks.some((b: any) => b.type === 'tool_use' && b.name === 'exec_command'),
        'the command the model asked for',
      );
      assert.ok(
        blocks.some((b: any) => b.type === 'tool_result' && JSON.stringify(b.content).includes(SECRET)),
        'its output',
      );
      assert.match(JSON.stringify(second.messages[0]), /What does note\.txt say\?/, 'and the first input');
    }

    const rows = await waitFor(
      async () => {
        const got = await consumeRows(caller.userId);
        return got.length >= 2 ? got : null;
      },
      5000,
      'two consume rows',
    );
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.equal(row.endpoint, '/v1/responses');
      assert.equal(Number(row.status_code), 200);
      assert.equal(Number(row.prompt_tokens), 2000);
    }
    const charged = rows.reduce((s, row) => s + Number(row.quota), 0);
    assert.ok(charged > 0);
    await waitFor(async () => start - (await balance(gw, caller.userId)) === charged, 5000, 'the balance moved by the charges');
  });
}
