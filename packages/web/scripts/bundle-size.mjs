#!/usr/bin/env node
/**
 * Bundle-size check of the built console (dist/): the JavaScript a browser loads for the login page —
 * the entry script of dist/index.html, the login page's chunk, and everything they import statically —
 * must stay within the budget (gzip level 9), 200 KB by default (e2e/first-load.test.ts holds everything the
 * browser downloads before the login form, styles and API answers included, to the same 200 KB).
 *
 *   node scripts/bundle-size.mjs [--budget-kb 250]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const i = process.argv.indexOf('--budget-kb');
const budgetKb = i >= 0 ? Number(process.argv[i + 1]) : 200;

if (!existsSync(join(dist, 'index.html'))) {
  console.error('packages/web/dist/index.html is missing: run `npm run build -w @gatehouse/web` first');
  process.exit(1);
}
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const entry = /<script[^>]*type="module"[^>]*src="\/([^"]+)"/.exec(html)?.[1];
if (!entry) {
  console.error('no module entry script in dist/index.html');
  process.exit(1);
}

// static imports and re-exports only: `import("…")` (a lazy chunk) is not followed
const STATIC = /(?:^|[;\s}])(?:import|export)\s*(?:[\w$*{}\s,]*?\s*from\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g;

function closure(start, seen = new Set()) {
  const stack = [start];
  while (stack.length) {
    const file = stack.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(join(dist, file), 'utf8');
    for (const m of code.matchAll(STATIC)) stack.push(posix.normalize(posix.join(posix.dirname(file), m[1])));
  }
  return seen;
}

const files = closure(entry);
const login = readdirSync(join(dist, 'assets')).find((f) => /^LoginPage-.*\.js$/.test(f));
if (!login) {
  console.error('no LoginPage chunk in dist/assets');
  process.exit(1);
}
closure(`assets/${login}`, files);

let raw = 0,
  gz = 0;
const rows = [...files]
  .map((f) => {
    const buf = readFileSync(join(dist, f));
    const g = gzipSync(buf, { level: 9 }).length;
    raw += buf.length;
    gz += g;
    return { f, raw: buf.length, g };
  })
  .sort((a, b) => b.g - a.g);
for (const r of rows) console.log(`${(r.g / 1024).toFixed(1).padStart(8)} KB gz  ${(r.raw / 1024).toFixed(1).padStart(8)} KB  ${r.f}`);
const kb = gz / 1024;
console.log(
  `login page initial JS: ${files.size} files, ${(raw / 1024).toFixed(1)} KB, ${kb.toFixed(1)} KB gzipped (budget ${budgetKb} KB)`,
);
if (kb > budgetKb) {
  console.error(`over budget by ${(kb - budgetKb).toFixed(1)} KB`);
  process.exit(1);
}
