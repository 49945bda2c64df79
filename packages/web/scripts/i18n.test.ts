/**
 * The console's texts: both languages have the same keys and the same placeholders; a text with a count has a
 * singular and a plural form (no "1 rows"); every run-time option of the gateway has a Chinese description of its
 * current English one (options.zh-CN.json keeps the English text it translates, so a changed one shows).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import en from '../src/i18n/en.json' with { type: 'json' };
import zh from '../src/i18n/zh-CN.json' with { type: 'json' };
import zhOptions from '../src/i18n/options.zh-CN.json' with { type: 'json' };
import { KNOWN_OPTIONS } from '../../gateway/src/options/options.ts';

/** Every text by its dotted key. */
function flat(o: object, prefix = '', out = new Map<string, string>()): Map<string, string> {
  for (const [k, v] of Object.entries(o)) {
    if (typeof v === 'string') out.set(prefix + k, v);
    else flat(v as object, `${prefix}${k}.`, out);
  }
  return out;
}

const EN = flat(en);
const ZH = flat(zh);
const placeholders = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();

test('English and Chinese have the same keys, each with the same placeholders', () => {
  assert.deepEqual(
    [...ZH.keys()].filter((k) => !EN.has(k)),
    [],
    'keys only in zh-CN.json',
  );
  assert.deepEqual(
    [...EN.keys()].filter((k) => !ZH.has(k)),
    [],
    'keys only in en.json',
  );
  for (const [k, v] of EN) assert.deepEqual(placeholders(ZH.get(k)!), placeholders(v), k);
});

test('a text with {{count}} has a singular and a plural form', () => {
  for (const [k, v] of EN) {
    if (!v.includes('{{count}}')) continue;
    const m = /^(.*)_(one|other)$/.exec(k);
    assert.ok(m, `${k} ("${v}") needs ${k}_one and ${k}_other`);
    assert.ok(EN.has(`${m[1]}_one`) && EN.has(`${m[1]}_other`), `${m[1]}: both forms`);
  }
  assert.equal(EN.get('common.totalRows_one'), '{{count}} row');
});

test('every run-time option has a Chinese description of its current English one, and no other key does', () => {
  assert.deepEqual(Object.keys(zhOptions).sort(), Object.keys(KNOWN_OPTIONS).sort());
  for (const [k, v] of Object.entries(zhOptions) as [keyof typeof KNOWN_OPTIONS, { en: string; zh: string }][]) {
    assert.equal(v.en, KNOWN_OPTIONS[k].doc, `${k}: the English description changed since it was translated`);
    assert.match(v.zh, /[\u4e00-\u9fff]/, `${k} is written in Chinese`);
  }
});
