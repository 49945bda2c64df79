/**
 * The order and the arithmetic of `bench:streams`' cost phase: which proxy and flavor is measured when
 * (each round measures every proxy's flavor next to the forwarder's flavor of the same caller format,
 * back to back, so the machine's drift between them stays small), and the ratio to the forwarder as the
 * median of the per-round ratios. Pure; tested in cost.test.ts.
 */
import { isWorkersTarget } from './nofile.ts';
import { median } from './stats.ts';

/** What the schedule needs of a flavor: its name and the caller format (the forwarder's flavor) it is held to. */
export interface CostFlavor {
  name: string;
  base: string;
}

/** One measurement of a round: a target with one of its flavors. */
export interface CostStep {
  target: string;
  flavor: string;
}

/** Targets that are measured for themselves and held to nothing. */
const BASES = ['direct', 'forwarder', 'forwarder-workers'];

/** The forwarder a proxy is held to: the one of its own shape (one process, or workers on one port); null for a forwarder or the direct path. */
export function costBaseTarget(name: string): string | null {
  if (BASES.includes(name)) return null;
  return isWorkersTarget(name) ? 'forwarder-workers' : 'forwarder';
}

/** The flavors a target is measured with: all of them for the gateway, the caller formats relayed as they are for the others. */
export function costFlavors<F extends CostFlavor>(target: string, flavors: readonly F[]): F[] {
  return target.startsWith('gatehouse') ? [...flavors] : flavors.filter((x) => x.name === x.base);
}

/**
 * The cost phase's measurements, round by round. In each round, per caller format and per forwarder: the
 * forwarder's flavor of that format, then every flavor of the proxies held to that forwarder that has it
 * as base; every other round the same steps in reverse, so neither side is always measured first.
 * A target held to a forwarder that is not running still gets its steps (with nothing to pair them with).
 */
export function costSchedule(targets: readonly string[], flavors: readonly CostFlavor[], rounds: number): CostStep[][] {
  const heads = [...new Set(targets.map((t) => costBaseTarget(t) ?? t))];
  const formats = flavors.filter((x) => x.name === x.base).map((x) => x.name);
  const round: CostStep[][] = [];
  for (const format of formats) {
    for (const head of heads) {
      const group: CostStep[] = [];
      if (targets.includes(head)) group.push({ target: head, flavor: format });
      for (const t of targets) {
        if (t === head || costBaseTarget(t) !== head) continue;
        for (const fl of costFlavors(t, flavors)) if (fl.base === format) group.push({ target: t, flavor: fl.name });
      }
      if (group.length) round.push(group);
    }
  }
  return Array.from({ length: rounds }, (_, k) => round.flatMap((group) => (k % 2 ? [...group].reverse() : group)));
}

/** A proxy's figures over the forwarder's, round by round, and their median and range. */
export interface PairedRatio {
  /** The median of the per-round ratios (not the ratio of the medians); null when no round paired. */
  median: number | null;
  min: number | null;
  max: number | null;
  /** Round k's figure over the forwarder's round k; null where either is missing or not positive. */
  rounds: (number | null)[];
}

/** Pairs round k of a proxy with round k of its forwarder: the per-round ratios, their median and range. */
export function pairedRatio(rounds: readonly (number | null)[], baseRounds: readonly (number | null)[]): PairedRatio {
  const per = rounds.map((v, k) => {
    const b = baseRounds[k];
    return typeof v === 'number' && typeof b === 'number' && Number.isFinite(v) && Number.isFinite(b) && v > 0 && b > 0 ? v / b : null;
  });
  const ok = per.filter((x): x is number => x !== null);
  return {
    median: ok.length ? median(ok) : null,
    min: ok.length ? Math.min(...ok) : null,
    max: ok.length ? Math.max(...ok) : null,
    rounds: per,
  };
}

/**
 * A proxy's CPU per stream split into its events and its call, from two runs of the same streams that
 * differ only in their number of events: the CPU per stream of the longer run less the shorter's, over
 * the events added, is the CPU per event; the shorter run's CPU per stream less its events' share is the
 * call's (its start and end). Null when the runs do not differ in events.
 */
export function splitStreamCost(
  short: { cpuPerStreamUs: number; events: number },
  long: { cpuPerStreamUs: number; events: number },
): { perEventUs: number; perCallUs: number } | null {
  const more = long.events - short.events;
  if (!(more > 0)) return null;
  const perEventUs = (long.cpuPerStreamUs - short.cpuPerStreamUs) / more;
  return { perEventUs, perCallUs: short.cpuPerStreamUs - short.events * perEventUs };
}
