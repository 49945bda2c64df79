#!/usr/bin/env node
/**
 * Summarises a V8 .cpuprofile: self time by function and by file (top N), and inclusive time of
 * functions whose name or file matches --focus. Usage:
 *   node bench/profile-summary.mjs <file.cpuprofile> [--top 40] [--focus ledger] [--skip-ms 5000]
 * Percentages are of the busy (non-idle) time; --skip-ms drops the first milliseconds (start-up).
 */
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
const opt = (name, d) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : d;
};
if (!file) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [--top N] [--focus REGEX]');
  process.exit(2);
}
const top = Number(opt('top', 40));
const focus = opt('focus', null);
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
const dts = prof.timeDeltas;
const skip = Number(opt('skip-ms', 0)) * 1000;
const idleIds = new Set(prof.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
let clock = 0;
let idle = 0;
for (let i = 0; i < prof.samples.length; i++) {
  clock += dts[i] ?? 0;
  if (clock < skip) continue;
  if (idleIds.has(prof.samples[i])) {
    idle += dts[i] ?? 0;
    continue;
  }
  self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + (dts[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const short = (u) =>
  u
    .replace(/^file:\/\//, '')
    .replace(/.*node_modules\//, 'nm:')
    .replace(/.*\/packages\//, '');
const label = (n) => `${n.callFrame.functionName || '(anon)'} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const agg = (keyOf) => {
  const m = new Map();
  for (const [id, t] of self) {
    const k = keyOf(byId.get(id));
    m.set(k, (m.get(k) ?? 0) + t);
  }
  return [...m].sort((a, b) => b[1] - a[1]);
};
const pct = (t) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
console.log(`busy ${(total / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s (percentages are of busy time)`);
console.log('\n== self time by function');
for (const [k, t] of agg(label).slice(0, top)) console.log(pct(t), k);
console.log('\n== self time by file / package');
const pkgOf = (n) => {
  const u = n.callFrame.url;
  if (!u) return `(${n.callFrame.functionName || 'native'})`;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  return m ? `nm:${m[1]}` : short(u);
};
for (const [k, t] of agg(pkgOf).slice(0, top)) console.log(pct(t), k);
console.log('\n== inclusive time by event-loop entry (the frame under the root)');
{
  const root = prof.nodes[0].id;
  const m = new Map();
  for (const [id, t] of self) {
    let cur = id;
    while (parent.get(cur) !== undefined && parent.get(cur) !== root) cur = parent.get(cur);
    const k = label(byId.get(cur));
    m.set(k, (m.get(k) ?? 0) + t);
  }
  for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(pct(t), k);
}
if (focus) {
  const re = new RegExp(focus);
  // inclusive time: every sample counts once for each distinct matching frame on its stack
  const incl = new Map();
  for (const [id, t] of self) {
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      const k = label(n);
      if (re.test(k) && !seen.has(k)) {
        seen.add(k);
        incl.set(k, (incl.get(k) ?? 0) + t);
      }
    }
  }
  console.log(`\n== inclusive time of frames matching /${focus}/`);
  for (const [k, t] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(t), k);
}
