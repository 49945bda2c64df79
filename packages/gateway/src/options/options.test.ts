import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Core } from '../core.ts';
import { aliasWarning, KNOWN_OPTIONS, Options } from './options.ts';

class TestOptions extends Options {
  put(values: Record<string, string>): void {
    this.values = new Map(Object.entries(values));
    this.revision++;
  }
}

const core = (publicUrl: string | null) => ({ config: { publicUrl, taskPublicAddress: null }, log: { warn() {} } }) as unknown as Core;

test('an option renamed with a new unit reads its older name, converted, until it is stored itself', () => {
  const o = new TestOptions(core(null));
  assert.equal(o.get('EmailVerificationTtlSeconds'), '86400');
  o.put({ EmailVerificationTtlHours: '2', PasswordResetTtlMinutes: '10', BudgetUtcOffsetMinutes: '480' });
  assert.equal(o.getNumber('EmailVerificationTtlSeconds'), 7200);
  assert.equal(o.getNumber('PasswordResetTtlSeconds'), 600);
  assert.equal(o.getNumber('BudgetUtcOffsetSeconds'), 28_800);
  o.put({ EmailVerificationTtlHours: '2', EmailVerificationTtlSeconds: '60' });
  assert.equal(o.getNumber('EmailVerificationTtlSeconds'), 60);
});

test('the public address: PUBLIC_URL, else the stored older option ServerAddress', () => {
  const o = new TestOptions(core(null));
  assert.equal(o.publicUrl(), '');
  o.put({ ServerAddress: 'https://old.example.com' });
  assert.equal(o.publicUrl(), 'https://old.example.com');
  const withEnv = new TestOptions(core('https://llm.example.com'));
  withEnv.put({ ServerAddress: 'https://old.example.com' });
  assert.equal(withEnv.publicUrl(), 'https://llm.example.com');
  assert.equal(new TestOptions(core('https://llm.example.com')).get('ServerAddress'), 'https://llm.example.com');
});

test('every older name points at a setting that exists and is warned of', () => {
  for (const [key, spec] of Object.entries(KNOWN_OPTIONS)) {
    if (!spec.aliasOf) {
      assert.equal(aliasWarning(key), null);
      continue;
    }
    assert.ok(spec.aliasOf in KNOWN_OPTIONS || /^[A-Z][A-Z0-9_]+$/.test(spec.aliasOf), `${key} → ${spec.aliasOf}`);
    assert.match(aliasWarning(key)!, new RegExp(`set ${spec.aliasOf} instead`));
  }
});
