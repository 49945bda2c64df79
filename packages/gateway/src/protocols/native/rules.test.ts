import test from 'node:test';
import assert from 'node:assert/strict';
import {
  checkNativeIntent,
  checkRouteModel,
  defaultNativeErrorBody,
  isReservedPath,
  nativeError,
  normalizeOriginIds,
  type RouteDecl,
} from './rules.ts';
import { fakePlugin } from '../fake-plugin.test-util.ts';

const plugin = fakePlugin({ key: 'nv', models: ['vid-a', 'vid-b'] }, {});
const submit: RouteDecl = {
  method: 'POST',
  path: '/nv/api/v1/gen',
  type: 'submit',
  decode: 'd',
  render: 'r',
  models: ['vid-a'],
  action: 'generate',
};
const dynamic: RouteDecl = { method: 'POST', path: '/nv/api/v1/x', type: 'dynamic', decode: 'd', render: 'r' };

test('reserved namespaces are refused, plugin prefixes allowed', () => {
  for (const p of ['/api/x', '/v1/tasks/:id', '/:anything/x', '/models', '/v1/videos/x', '/v1/:v/foo', '/users/1'])
    assert.equal(isReservedPath(p), true, p);
  for (const p of ['/nv/api/v1/gen', '/suno/submit/:action', '/jimeng/', '/v1/vendor-thing']) assert.equal(isReservedPath(p), false, p);
  for (const p of ['/pg/x', '/v1/edits', '/V1BETA/models/x', '/*rest']) assert.equal(isReservedPath(p), true, p);
});

test('route models and decoder intents', () => {
  assert.throws(() => checkRouteModel(submit, { model: 'vid-b' }), /not allowed on this route/);
  checkRouteModel(submit, { model: 'VID-A' });
  checkRouteModel(dynamic, {});
  assert.deepEqual(checkNativeIntent({ kind: 'submit', model: 'VID-A', requestBody: { a: 1 } }, submit, plugin), {
    kind: 'submit',
    model: 'vid-a',
    action: 'generate',
    requestBody: { a: 1 },
    originTaskIds: [],
  });
  assert.throws(() => checkNativeIntent({ kind: 'submit', model: 'vid-b' }, submit, plugin), /not allowed on this route/);
  assert.throws(() => checkNativeIntent({ kind: 'submit', model: 'other' }, dynamic, plugin), /not served/);
  assert.throws(() => checkNativeIntent({ kind: 'query', taskIds: ['a'] }, submit, plugin), /only allowed on dynamic/);
  assert.deepEqual(checkNativeIntent({ kind: 'query', taskIds: [' a '] }, dynamic, plugin), { kind: 'query', taskIds: ['a'] });
  assert.throws(() => checkNativeIntent({ kind: 'query', taskIds: Array(101).fill('a') }, dynamic, plugin), /1 to 100/);
  assert.throws(() => checkNativeIntent({ kind: 'submit', model: 'vid-a', renderer: 'x' }, dynamic, plugin), /invalid route result/);
  assert.throws(() => checkNativeIntent('x', dynamic, plugin), /invalid route result/);
});

test('originTaskIds: trimmed, deduplicated, at most 16, non-empty', () => {
  assert.deepEqual(normalizeOriginIds([' a', 'a', 'b']), ['a', 'b']);
  assert.throws(() => normalizeOriginIds(Array.from({ length: 17 }, (_, i) => `t${i}`)), /16/);
  assert.throws(() => normalizeOriginIds(['']), /non-empty/);
});

test('native errors: codes by status, detail only below 500, sanitised', () => {
  const e = nativeError(400, 'bad\nprompt Bearer abcdefghijk', 'req_1');
  assert.deepEqual(
    { ...e, message: e.message },
    { code: 'invalid_request', message: 'bad prompt Bearer [redacted]', httpStatus: 400, retryable: false, requestId: 'req_1' },
  );
  assert.equal(nativeError(502, 'internal detail', 'r').message, 'Task request failed');
  assert.equal(nativeError(404, null, 'r').code, 'task_not_found');
  assert.deepEqual(defaultNativeErrorBody(nativeError(429, null, 'r')), {
    code: 'rate_limit_exceeded',
    message: 'Too many requests (request id: r)',
    data: null,
  });
});
