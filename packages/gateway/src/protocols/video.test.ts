import test from 'node:test';
import assert from 'node:assert/strict';
import { keepVendorFields, videoFromRender, videoObject } from './video.ts';
import type { TaskViewLike } from './task-view.ts';

const task = (status: string, over: Partial<TaskViewLike> = {}): TaskViewLike => ({
  task_id: 'task_v1',
  platform: 'p',
  status,
  progress: '30%',
  fail_reason: '',
  created_at: 1700000000,
  updated_at: 0,
  finished_at: 0,
  data: null,
  ...over,
});

test('host fields override vendor ones; vendor fields that pass are kept', () => {
  const v = videoFromRender(
    { id: 'vendor-id', status: 'done', model: 'x', task_id: 'up-1', seconds: '8', size: '1280x720', 'bad key': 1, prompt: 'cat' },
    task('IN_PROGRESS'),
    'vid-1',
    'up-1',
  );
  assert.deepEqual(v, {
    seconds: '8',
    size: '1280x720',
    prompt: 'cat',
    id: 'task_v1',
    object: 'video',
    model: 'vid-1',
    status: 'in_progress',
    progress: 30,
    created_at: 1700000000,
  });
});

test('vendor fields mentioning the private upstream id, too large or too deep are dropped', () => {
  let deep: unknown = 1;
  for (let i = 0; i < 12; i++) deep = { d: deep };
  const kept = keepVendorFields({ ok: 1, leak: { url: 'https://v/x/upstream-123/y' }, big: 'x'.repeat(70_000), deep }, 'upstream-123');
  assert.deepEqual(kept, { ok: 1 });
});

test('statuses, completed_at and failure error', () => {
  assert.equal(videoObject(task('QUEUED'), 'm').status, 'queued');
  assert.equal(videoObject(task('SUBMITTED'), 'm').status, 'queued');
  const done = videoObject(task('SUCCESS', { finished_at: 1700000500_000 }), 'm');
  assert.equal(done.status, 'completed');
  assert.equal(done.progress, 100);
  assert.equal(done.completed_at, 1700000500);
  const failed = videoObject(task('FAILURE', { fail_reason: 'nsfw', finished_at: 1700000500 }), 'm');
  assert.deepEqual(failed.error, { code: 'video_generation_failed', message: 'nsfw' });
  assert.equal(videoObject(task('IN_PROGRESS'), 'm', { completed_at: 5 }).completed_at, undefined);
  assert.throws(() => videoFromRender([1], task('SUCCESS'), 'm', null), /JSON object/);
});
