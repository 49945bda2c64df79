import test from 'node:test';
import assert from 'node:assert/strict';
import {
  checkRenderEvents,
  normalizeFinal,
  responseIdOf,
  responseObject,
  ResponsesEventMapper,
  sseFrame,
  SSE_HEARTBEAT,
  taskIdOfResponse,
} from './responses.ts';
import type { TaskViewLike } from './task-view.ts';

const task = (status: string, over: Partial<TaskViewLike> = {}): TaskViewLike => ({
  task_id: 'task_abc',
  platform: 'p',
  status,
  progress: '0%',
  fail_reason: '',
  created_at: 1700000000,
  updated_at: 1700000000,
  finished_at: 0,
  data: null,
  ...over,
});

test('response ids map to task ids and back', () => {
  assert.equal(responseIdOf('task_abc'), 'resp_abc');
  assert.equal(taskIdOfResponse('resp_abc'), 'task_abc');
  assert.equal(taskIdOfResponse('task_abc'), null);
});

test('pending response object for background mode', () => {
  const r = responseObject({ task: task('QUEUED'), model: 'm', background: true });
  assert.equal(r.status, 'queued');
  assert.equal(r.background, true);
  assert.equal(r.usage, null);
  assert.equal(r.completed_at, null);
  assert.deepEqual(r.metadata, { task_id: 'task_abc', task_status: 'QUEUED', retrieval_path: '/v1/responses/resp_abc' });
});

test('renderFinal: host ids, defaults, metadata merge with host keys winning, bad shapes refused', () => {
  const r = normalizeFinal(
    {
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi' }] }],
      metadata: { task_id: 'spoof', vendor: 'v', n: 3 },
      temperature: 5,
      sequence_number: 9,
      custom: 1,
    },
    { task: task('SUCCESS', { finished_at: 1700000100 }), model: 'm' },
  );
  assert.equal(r.status, 'completed');
  assert.equal((r.output as Array<{ id: string }>)[0].id, 'item_task_abc_0');
  assert.deepEqual((r.output as Array<{ content: unknown[] }>)[0].content, [
    { type: 'output_text', text: 'hi', annotations: [], logprobs: [] },
  ]);
  assert.equal((r.metadata as Record<string, string>).task_id, 'task_abc');
  assert.equal((r.metadata as Record<string, string>).vendor, 'v');
  assert.equal((r.metadata as Record<string, unknown>).n, undefined);
  assert.equal(r.temperature, 1);
  assert.equal(r.sequence_number, undefined);
  assert.equal(r.custom, 1);
  assert.deepEqual(r.usage, {
    input_tokens: 0,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 0,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 0,
  });
  assert.throws(() => normalizeFinal({ output: [{ type: 'function_call' }] }, { task: task('SUCCESS'), model: 'm' }), /assistant message/);
  assert.throws(() => normalizeFinal([], { task: task('SUCCESS'), model: 'm' }), /must return an object/);
});

test('renderEvents results are validated', () => {
  assert.throws(() => checkRenderEvents({ events: [], done: false, extra: 1 }), /unknown field/);
  assert.throws(() => checkRenderEvents({ events: [{ type: 'progress', progress: 101 }], done: false }), /0\.\.100/);
  assert.throws(() => checkRenderEvents({ events: [{ type: 'output' }], done: false }), /needs data/);
  assert.throws(() => checkRenderEvents({ events: Array(17).fill({ type: 'progress' }), done: false }), /16 events/);
  assert.throws(() => checkRenderEvents({ events: [{ type: 'error', message: '' }], done: true }), /message/);
  assert.deepEqual(checkRenderEvents({ events: [{ type: 'output', data: 'x' }], done: true, state: { n: 1 } }).state, { n: 1 });
});

test('event mapping: created, in_progress, six output events, completed, sequence numbers from 0', () => {
  const m = new ResponsesEventMapper({ model: 'm', taskId: 'task_abc' });
  const evs = [
    ...m.created(task('QUEUED')),
    ...m.map(task('IN_PROGRESS'), checkRenderEvents({ events: [{ type: 'progress', progress: 40, message: 'rendering' }], done: false })),
    ...m.map(task('SUCCESS'), checkRenderEvents({ events: [{ type: 'output', data: 'https://h/a.mp4' }], done: true })),
  ];
  assert.deepEqual(
    evs.map((e) => e.type),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ],
  );
  assert.deepEqual(
    evs.map((e) => e.sequence_number),
    [0, 1, 2, 3, 4, 5, 6, 7, 8],
  );
  const done = evs.at(-1)!.response as Record<string, unknown>;
  assert.equal(done.status, 'completed');
  assert.equal((done.output as unknown[]).length, 1);
  assert.equal((done.metadata as Record<string, string>).task_progress, '40');
  assert.equal((evs[4] as unknown as { delta: string }).delta, 'https://h/a.mp4');
  assert.equal((evs[2] as unknown as { item: { id: string } }).item.id, 'msg_task_abc_0');
  assert.equal(m.finished, true);
  assert.deepEqual(m.map(task('SUCCESS'), { events: [{ type: 'output', data: 'more' }], done: true }), []);
});

test('event mapping: error → failed; done before terminal → incomplete; terminal without done still closes', () => {
  const a = new ResponsesEventMapper({ model: 'm', taskId: 't' });
  assert.deepEqual(
    a.map(task('IN_PROGRESS'), { events: [{ type: 'error', message: 'x' }], done: false }).map((e) => e.type),
    ['response.failed'],
  );
  const b = new ResponsesEventMapper({ model: 'm', taskId: 't' });
  assert.deepEqual(
    b.map(task('IN_PROGRESS'), { events: [], done: true }).map((e) => e.type),
    ['response.incomplete'],
  );
  const c = new ResponsesEventMapper({ model: 'm', taskId: 't' });
  assert.deepEqual(
    c.map(task('FAILURE'), { events: [], done: false }).map((e) => e.type),
    ['response.failed'],
  );
});

test('SSE framing and heartbeat', () => {
  assert.equal(
    sseFrame({ type: 'response.created', sequence_number: 0 }),
    'event: response.created\ndata: {"type":"response.created","sequence_number":0}\n\n',
  );
  assert.equal(SSE_HEARTBEAT, ': PING\n\n');
});
