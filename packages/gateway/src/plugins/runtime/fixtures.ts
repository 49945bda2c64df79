/** Recorded hook cases (`gatehouse plugin test FILE --fixture F`, and the contract suite). */
import { isDeepStrictEqual } from 'node:util';
import type { FixtureCase } from '@gatehouse/plugin-sdk';

export interface CaseOutcome {
  name: string;
  ok: boolean;
  detail?: string;
  output?: unknown;
}

export function fixtureCases(json: unknown): FixtureCase[] {
  const list = Array.isArray(json) ? json : (json as { cases?: unknown })?.cases;
  if (!Array.isArray(list)) throw new Error('a fixture is an array of cases or { cases: [...] }');
  return list as FixtureCase[];
}

/** Whether `actual` contains `expected` (objects: every expected key matches; arrays: same length, each item). */
export function subsetMatch(expected: unknown, actual: unknown): boolean {
  if (Array.isArray(expected))
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => subsetMatch(e, actual[i]));
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([k, v]) => subsetMatch(v, (actual as Record<string, unknown>)[k]));
  }
  return isDeepStrictEqual(expected, actual);
}

/** A loaded task plugin or guardrail: hooks called by name with JSON arguments. */
export interface HookCaller {
  call(hook: string, ...args: unknown[]): Promise<unknown>;
}

export async function runFixtureCases(p: HookCaller, cases: FixtureCase[]): Promise<CaseOutcome[]> {
  const out: CaseOutcome[] = [];
  for (const [i, c] of cases.entries()) {
    const hook = c.member ? `${c.hook}.${c.member}` : c.hook;
    const name = c.name ?? `#${i + 1} ${hook}`;
    try {
      const output = await p.call(hook, ...(c.args ?? []));
      if (c.expectedError !== undefined) {
        out.push({ name, ok: false, detail: `expected an error containing "${c.expectedError}", got a result`, output });
        continue;
      }
      if (c.expected !== undefined) {
        const ok = c.match === 'exact' ? isDeepStrictEqual(c.expected, output) : subsetMatch(c.expected, output);
        out.push(
          ok ? { name, ok, output } : { name, ok, output, detail: `expected ${JSON.stringify(c.expected)}, got ${JSON.stringify(output)}` },
        );
      } else out.push({ name, ok: true, output });
    } catch (e) {
      const msg = (e as Error).message;
      if (c.expectedError !== undefined && msg.includes(c.expectedError)) out.push({ name, ok: true, detail: msg });
      else out.push({ name, ok: false, detail: msg });
    }
  }
  return out;
}
