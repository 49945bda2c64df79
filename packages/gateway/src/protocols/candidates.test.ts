import test from 'node:test';
import assert from 'node:assert/strict';
import { GatewayError } from '../platform/errors.ts';
import { claimants, decodeCandidates, filterByMode, groupRefusals, responsesMode } from './candidates.ts';
import { fakePlugin } from './fake-plugin.test-util.ts';

const submitOk = (ctx: unknown) => ({ kind: 'submit', model: (ctx as { model: string }).model, requestBody: { p: 1 } });

test('claimants: every plugin claiming the model, narrowed by claim models, in key order, both spellings', () => {
  const a = fakePlugin({ key: 'b-img', models: ['img-1', 'img-2'], protocols: ['openai_image'] }, {});
  const b = fakePlugin({ key: 'a-img', models: ['img-1', 'img-3'], protocols: [{ name: 'compat_image', models: ['img-1'] }] }, {});
  const c = fakePlugin({ key: 'c-vid', models: ['img-1'], protocols: ['compat_video'] }, {});
  assert.deepEqual(
    claimants([a, b, c], 'image', 'IMG-1').map((p) => p.key),
    ['a-img', 'b-img'],
  );
  assert.deepEqual(
    claimants([a, b, c], 'image', 'img-3').map((p) => p.key),
    [],
  );
  assert.deepEqual(
    claimants([a, b, c], 'image', 'img-2').map((p) => p.key),
    ['b-img'],
  );
});

test('responses mode is refused before any hook runs', () => {
  const p = fakePlugin(
    { key: 'r', models: ['m'], protocols: [{ name: 'compat_responses', supports: ['sync'] }] },
    { 'protocols.compat_responses.decodeRequest': submitOk },
  );
  assert.equal(responsesMode({ stream: true }), 'stream');
  assert.equal(responsesMode({ background: true }), 'background');
  assert.equal(responsesMode({}), 'sync');
  assert.throws(() => responsesMode({ stream: 'yes' }), /stream must be a boolean/);
  assert.throws(
    () => filterByMode([p], 'stream'),
    (e: unknown) => e instanceof GatewayError && e.status === 400 && /Streaming is not supported/.test(e.message),
  );
  assert.deepEqual(p.calls, []);
  assert.equal(filterByMode([p], 'sync').length, 1);
});

test('decoders: only valid submit intents stay; refusals grouped by message with plugin keys', async () => {
  const ok = fakePlugin({ key: 'ok', models: ['m'], protocols: ['compat_image'] }, { 'protocols.compat_image.decodeRequest': submitOk });
  const throws = fakePlugin(
    { key: 'th', models: ['m'], protocols: ['compat_image'] },
    {
      'protocols.compat_image.decodeRequest': () => {
        throw new Error('prompt is required');
      },
    },
  );
  const throws2 = fakePlugin(
    { key: 'th2', models: ['m'], protocols: ['openai_image'] },
    {
      'protocols.openai_image.decodeRequest': () => {
        throw new Error('prompt is required');
      },
    },
  );
  const bad = fakePlugin(
    { key: 'bad', models: ['m'], protocols: ['compat_image'] },
    { 'protocols.compat_image.decodeRequest': () => ({ kind: 'query', taskIds: ['x'] }) },
  );
  const other = fakePlugin(
    { key: 'oth', models: ['m', 'z'], protocols: ['compat_image'] },
    { 'protocols.compat_image.decodeRequest': () => ({ kind: 'submit', model: 'z' }) },
  );
  const acc = await decodeCandidates([bad, ok, throws, other], 'image', { model: 'm' });
  assert.deepEqual(
    acc.map((c) => c.plugin.key),
    ['ok'],
  );
  assert.deepEqual(acc[0].intent, { kind: 'submit', model: 'm', requestBody: { p: 1 } });
  await assert.rejects(decodeCandidates([throws, throws2, bad], 'image', { model: 'm' }), (e: unknown) => {
    assert.ok(e instanceof GatewayError);
    assert.equal(e.status, 400);
    assert.equal(e.message, 'th, th2: prompt is required; bad: plugin returned an invalid request intent (kind must be "submit")');
    return true;
  });
  await assert.rejects(decodeCandidates([throws], 'image', { model: 'm' }), /^GatewayError: prompt is required$/);
  assert.equal(groupRefusals([{ key: 'a', message: 'x' }]), 'x');
});
