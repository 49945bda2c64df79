/**
 * Active recovery: the probe of automatically disabled channels and keys. Each auto-disabled key (key
 * 0 of an auto-disabled channel without key state) is sent a one-token test when it is due; one that
 * answers is enabled again (with its channel), one that still fails waits twice as long as before, from
 * AutoEnableProbeSeconds up to AutoEnableMaxBackoffSeconds. The back-off is kept on the channel
 * (`channels.recovery`, `{<key index>: {failures, last_at, next_at}}`), so the node that takes the probe
 * lease over from another goes on with it. Channels disabled by hand are never probed.
 */
import type { Core } from '../core.ts';
import type { ChannelIndex } from './channels.ts';
import { ChannelStore } from '../channels/store.ts';
import { testKey } from './health.ts';
import type { UpstreamPools } from './upstream.ts';

/** One key's back-off: failed probes in a row, the last probe and when the next is due (unix ms). */
export interface ProbeBackoff {
  failures: number;
  last_at: number;
  next_at: number;
}

export interface RecoverySchedule {
  intervalMs: number;
  maxBackoffMs: number;
}

/** The wait after the `failures`-th failed probe in a row: the interval doubled each time, capped. */
export function backoffMs(failures: number, s: RecoverySchedule): number {
  return Math.min(s.maxBackoffMs, s.intervalMs * 2 ** Math.min(Math.max(0, failures), 30));
}

function parseBackoff(text: string | null): Record<string, ProbeBackoff> {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, ProbeBackoff>) : {};
  } catch {
    return {};
  }
}

/** Probes every due auto-disabled key once; returns how many were enabled again. */
export async function probeDue(core: Core, channels: ChannelIndex, pools: UpstreamPools, schedule: RecoverySchedule): Promise<number> {
  const store = new ChannelStore(core.h);
  let recovered = 0;
  for (const ch of channels.all()) {
    if (ch.status === 2) continue;
    const keys = Object.entries(ch.keyState)
      .filter(([, s]) => s.status === 'auto_disabled')
      .map(([i]) => Number(i))
      .filter((i) => i < ch.keys.length);
    if (ch.status === 3 && keys.length === 0 && ch.keys.length > 0) keys.push(0);
    if (keys.length === 0) continue;
    // Read where it is kept, not from the snapshot: another node may have probed last.
    const before = parseBackoff((await store.byId(ch.id))?.recovery ?? null);
    const next: Record<string, ProbeBackoff> = {};
    const answered: number[] = [];
    let changed = false;
    for (const i of keys) {
      // A back-off older than the key's disabling belongs to an earlier outage.
      const since = ch.keyState[String(i)]?.at ?? 0;
      const old = before[String(i)];
      const prev = old && old.last_at >= since ? old : undefined;
      if (prev && prev.next_at > Date.now()) {
        next[String(i)] = prev;
        continue;
      }
      const r = await testKey(pools, ch, i, undefined, core.outbound.google);
      changed = true;
      if (r.ok) answered.push(i);
      else {
        const failures = (prev?.failures ?? 0) + 1;
        const at = Date.now();
        next[String(i)] = { failures, last_at: at, next_at: at + backoffMs(failures, schedule) };
        core.log.debug({ channelId: ch.id, keyIndex: i, status: r.status, failures }, 'probe: key still failing');
      }
    }
    // The back-off is written before the keys are enabled (which reloads the channels on every node);
    // keys no longer disabled drop theirs.
    if (changed || Object.keys(before).length !== Object.keys(next).length) {
      const text = Object.keys(next).length ? JSON.stringify(next) : null;
      await store
        .setRecovery(ch.id, text)
        .catch((e) => core.log.warn({ channelId: ch.id, err: (e as Error).message }, 'probe back-off not saved'));
    }
    for (const i of answered) {
      await channels.enableKey(ch.id, i);
      recovered++;
    }
  }
  return recovered;
}
