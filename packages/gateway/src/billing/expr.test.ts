import test from 'node:test';
import assert from 'node:assert/strict';
import { compile, validateExpression, ExprError } from './expr.ts';

test('arithmetic over facts, tiers, enums, min/max/ceil', () => {
  assert.equal(compile('u("seconds") * 0.1').eval({ seconds: 5 }), 0.5);
  const e = compile('u("mode") == "pro" ? tier("pro", u("seconds") * 0.4) : tier("std", u("seconds") * 0.2)');
  assert.equal(e.eval({ mode: 'pro', seconds: 10 }), 4);
  assert.equal(e.eval({ mode: 'std', seconds: 10 }), 2);
  assert.equal(compile('max(0.05, ceil(u("seconds") / 5) * 0.1)').eval({ seconds: 6 }), 0.2);
  assert.equal(compile('min(1, 2, 3) + 2 * 3 - -1').eval({}), 8);
  assert.equal(compile('u("s") > 5 && has("s") ? 1 : 2').eval({ s: 6 }), 1);
  assert.deepEqual(compile('u("a") + u("b")').facts.sort(), ['a', 'b']);
});

test('unsafe or invalid expressions are refused', () => {
  for (const bad of ['process.exit()', 'constructor', 'u(x)', 'fixed(1)', '1 +', 'u("a") ||| x', '"a"', '1/0', '-1']) {
    assert.throws(() => compile(bad).eval({}), ExprError, bad);
  }
});

test('validation checks declared facts and the corners of the schema', () => {
  const schema = { seconds: { type: 'number', unit: 'second' }, mode: { enum: ['std', 'pro'] } };
  validateExpression('u("mode") == "pro" ? u("seconds") * 0.4 : u("seconds") * 0.2', schema);
  assert.throws(() => validateExpression('u("tokens") * 2', schema), /not a usage fact/);
  assert.throws(() => validateExpression('u("seconds") - 10', schema), /negative/);
});
