/**
 * `npm run bench:guardrails`: what guardrails cost a model call (docs/guardrails.md) — the binding
 * lookup when none is bound, and an allow-all guardrail plugin checking a call's input and its output
 * (two sandbox calls). In process, no gateway: the guardrail steps alone. Prints a markdown table
 * (docs/benchmarks.md#guardrails) with the median and 99th percentile per call.
 */
import { Guardrails } from '../packages/gateway/src/relay/guardrails.ts';
import { loadGuardrail } from '../packages/gateway/src/plugins/runtime/guardrail.ts';
import type { RelayPrincipal } from '../packages/gateway/src/relay/call.ts';

const args = process.argv.slice(2);
const n = Number(args[args.indexOf('--calls') + 1]) || 5000;
const principal = { userId: 1, keyId: 1, group: 'default' } as RelayPrincipal;
const ctx = { model: 'm', userId: 1, keyId: 1, group: 'default', requestId: 'req', endpoint: '/v1/chat/completions' };
const texts = ['You are a helpful assistant.', 'Summarise the following text in three sentences. '.repeat(20), 'Thanks.'];

let option = '';
const none = new Guardrails({ get: () => option }, null);
const t0 = process.hrtime.bigint();
for (let i = 0; i < 1_000_000; i++) none.select(principal, 'm', 'input');
const lookupNs = Number(process.hrtime.bigint() - t0) / 1_000_000;

const g = await loadGuardrail(
  "export const meta = { apiVersion: 1, kind: 'guardrail', key: 'allow-all', name: 'a', version: '1.0.0', author: { name: 'b' } };\nexport function check() { return { action: 'allow' }; }",
  { timeoutMs: 5000, memoryMb: 64, poolSize: 1 },
);
option = JSON.stringify([{ plugin: 'allow-all' }]);
const bound = new Guardrails({ get: () => option }, null);
bound.runner = { has: () => true, check: (_k, c, s, t) => g.check(c, s, t) };
const times: number[] = [];
for (let i = 0; i < n + 500; i++) {
  const s = process.hrtime.bigint();
  await bound.run(bound.select(principal, 'm', 'input'), ctx, 'input', texts);
  await bound.run(bound.select(principal, 'm', 'output'), ctx, 'output', ['The text says three things.']);
  if (i >= 500) times.push(Number(process.hrtime.bigint() - s) / 1000);
}
g.dispose();
times.sort((a, b) => a - b);
const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(times.length * p))].toFixed(1);
process.stdout.write(
  `| case | per call |\n|---|---|\n| no guardrail bound (the binding lookup) | ${lookupNs.toFixed(0)} ns |\n` +
    `| allow-all guardrail, input and output checked | p50 ${pct(0.5)} µs, p99 ${pct(0.99)} µs |\n`,
);
