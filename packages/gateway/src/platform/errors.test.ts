/** The error catalog: statuses, templates and fail(), and the table of docs/api.md#error-codes that lists it. */
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERRORS, GatewayError, fail, fillTemplate, foreignError, statusOf, typeForStatus, type ErrorEntry } from './errors.ts';

const entries = Object.entries(ERRORS) as [keyof typeof ERRORS, ErrorEntry][];

test('every code has a status from 400 to 599, a message and a code-like name', () => {
  assert.ok(entries.length > 100);
  for (const [code, e] of entries) {
    assert.match(code, /^[a-z][a-z0-9_]*$/, code);
    assert.ok(Number.isInteger(e.status) && e.status >= 400 && e.status <= 599, `${code}: status ${e.status}`);
    assert.ok(e.message.length > 0, `${code}: message`);
    assert.equal(statusOf(code), e.status);
  }
});

test('templates: placeholders are names, and every one is filled from the params', () => {
  for (const [code, e] of entries) {
    const holes = [...e.message.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    assert.doesNotMatch(e.message.replace(/\{\w+\}/g, ''), /[{}]/, `${code}: a brace that is not a placeholder`);
    const params = Object.fromEntries(holes.map((h) => [h, `<${h}>`]));
    const filled = fillTemplate(e.message, params);
    assert.doesNotMatch(filled, /\{\w+\}/, `${code}: a placeholder left`);
    for (const h of holes) assert.ok(filled.includes(`<${h}>`), `${code}: {${h}} filled`);
  }
});

test('fail: status and type from the catalog, the template filled or the site’s own message', () => {
  const a = fail('model_not_found', { model: 'gpt-x' });
  assert.ok(a instanceof GatewayError);
  assert.equal(a.status, 404);
  assert.equal(a.code, 'model_not_found');
  assert.equal(a.type, 'not_found_error');
  assert.equal(a.message, 'the model "gpt-x" does not exist or this key may not use it');

  const b = fail('invalid_request', 'messages[0].role: is not a valid role');
  assert.equal(b.status, 400);
  assert.equal(b.type, 'invalid_request_error');
  assert.equal(b.message, 'messages[0].role: is not a valid role');

  assert.equal(fail('internal_error').message, 'internal error');
  assert.equal(fail('too_many_attempts', { wait: 3 }).type, 'rate_limit_error');
  const c = fail('rate_limit_exceeded', 'limit reached', { type: 'tokens', details: { dimension: 'tokens' } });
  assert.equal(c.type, 'tokens');
  assert.deepEqual(c.details, { dimension: 'tokens' });

  const n = fail('no_available_channel', { model: 'm1', group: 'default' });
  assert.equal(n.status, 503);
  assert.equal(n.message, 'no available channel for model "m1" in group "default"');

  for (const [code, e] of entries) {
    const err = fail(code, 'x');
    assert.equal(err.status, e.status, code);
    assert.equal(err.type, e.type ?? typeForStatus(e.status), code);
  }
});

test('foreignError keeps the status and code another party gave', () => {
  const e = foreignError(422, 'upstream_client_error', 'bad field', 'invalid_request_error');
  assert.equal(e.status, 422);
  assert.equal(e.code, 'upstream_client_error');
  assert.ok(!('upstream_client_error' in ERRORS));
});

test('docs/api.md lists exactly the catalog’s codes with their statuses', () => {
  const doc = readFileSync(new URL('../../../../docs/api.md', import.meta.url), 'utf8');
  const at = doc.indexOf('\n## Error codes\n');
  assert.ok(at >= 0, 'docs/api.md has a section "Error codes"');
  const next = doc.indexOf('\n## ', at + 1);
  const section = doc.slice(at, next < 0 ? undefined : next);
  const rows = new Map<string, number>();
  for (const line of section.split('\n')) {
    const m = /^\|\s*`([a-z0-9_]+)`\s*\|\s*(\d{3})\s*\|/.exec(line);
    if (!m) continue;
    assert.ok(!rows.has(m[1]), `${m[1]} listed twice`);
    rows.set(m[1], Number(m[2]));
  }
  const missing = entries.filter(([code]) => !rows.has(code)).map(([code]) => code);
  const extra = [...rows.keys()].filter((code) => !(code in ERRORS));
  assert.deepEqual(missing, [], 'codes of the catalog missing from docs/api.md');
  assert.deepEqual(extra, [], 'codes in docs/api.md that the catalog does not have');
  for (const [code, e] of entries) assert.equal(rows.get(code), e.status, `${code}: status in docs/api.md`);
});
