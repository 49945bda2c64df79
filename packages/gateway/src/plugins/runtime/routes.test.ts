import test from 'node:test';
import assert from 'node:assert/strict';
import { NativeRouteIndex, parsePath } from './routes.ts';

test('path shapes and matching with params, catch-all and a significant trailing slash', () => {
  assert.equal(parsePath('/a/:id/b/*rest').shape, '/a/:/b/*');
  const index = new NativeRouteIndex<string, string>();
  for (const path of ['/nv/tasks/:task_id', '/jimeng/', '/f/*rest'])
    index.add({ plugin: 'p', route: path, parsed: parsePath(path), method: 'GET' });
  assert.deepEqual(index.match('GET', '/nv/tasks/task_1')?.params, { task_id: 'task_1' });
  assert.equal(index.match('GET', '/nv/tasks/'), null);
  assert.equal(index.match('POST', '/nv/tasks/task_1'), null);
  assert.equal(index.match('GET', '/jimeng'), null);
  assert.deepEqual(index.match('GET', '/jimeng/')?.params, {});
  assert.deepEqual(index.match('GET', '/f/a/b%20c')?.params, { rest: 'a/b c' });
});
