/** CSV escaping: quoting, doubled quotes, line breaks, formula neutralising, numbers as they are. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvField, csvLine } from './csv.ts';

test('plain fields are written as they are', () => {
  assert.equal(csvLine(['gpt-4o', 12, null, undefined, true, 'a b']), 'gpt-4o,12,,,true,a b\r\n');
});

test('comma, quote, CR and LF are quoted with quotes doubled', () => {
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('line1\nline2'), '"line1\nline2"');
  assert.equal(csvField('x\r\ny'), '"x\r\ny"');
  assert.equal(csvField('"'), '""""');
});

test('formula-looking text is neutralised, negative numbers are not', () => {
  assert.equal(csvField('=HYPERLINK("http://x")'), '"\'=HYPERLINK(""http://x"")"');
  assert.equal(csvField('+1'), "'+1");
  assert.equal(csvField('-x'), "'-x");
  assert.equal(csvField('@SUM(A1)'), "'@SUM(A1)");
  assert.equal(csvField(-250), '-250');
});

test('unicode passes through', () => {
  assert.equal(csvField('你好'), '你好');
});
