/**
 * The relay area: channels at runtime, the model-call hot path, channel tests and the recovery probe.
 */
import { Guardrails } from './guardrails.ts';
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import type { Accounts } from '../accounts/index.ts';
import type { Billing } from '../billing/index.ts';
import { LogWriter } from '../logs/writer.ts';
import { ChannelIndex, CHANNELS_REVISION } from './channels.ts';
import { Relay } from './relay.ts';
import { RealtimeRelay } from './realtime.ts';
import { ResponsesSockets } from './responses-socket.ts';
import { probeOnce, testKey, firstUsableKey, type TestResult } from './health.ts';
import { fail } from '../platform/errors.ts';
import { RelayPolicy } from './policy.ts';
import { QuotaAllowances } from '../billing/allowance.ts';
import { releaseLease, takeLease } from '../store/leases.ts';
import type { UpstreamPools } from '../platform/outbound.ts';
import { Affinity } from './affinity.ts';
import { Routing } from './routing.ts';

/** The lease (store/leases.ts) of the node that runs the recovery probe. */
const PROBE_LEASE = 'relay-probe';

export interface RelayService {
  relay: Relay;
  /** Guardrail plugins bound to model calls; the plugin host is set as their runner. */
  guardrails: Guardrails;
  /** The realtime WebSocket relay (GET /v1/realtime). */
  realtime: RealtimeRelay;
  /** Responses over a WebSocket (GET /v1/responses upgraded); drained first at a graceful stop. */
  sockets: ResponsesSockets;
  channels: ChannelIndex;
  logs: LogWriter;
  pools: UpstreamPools;
  /** Retries, auto-disable, cooldowns, probe and log switches as the run-time options say. */
  policy: RelayPolicy;
  /** Node-local quota holds for model calls (option QuotaAllowanceEnabled). */
  allowances: QuotaAllowances;
  /** Sends a test call through a channel (any status) and records its response time. */
  testChannel(id: number, model?: string): Promise<TestResult>;
  /** Rounds of the background probe this node ran (one node of a deployment probes: the lease holder). */
  probeRounds: number;
  /** Probes auto-disabled keys and channels now; returns how many recovered. */
  probe(): Promise<number>;
}

export const relayArea = {
  name: 'relay',
  async init(core: Core, deps: { options: Options; billing: Billing; accounts: Accounts }): Promise<RelayService> {
    const channels = new ChannelIndex(core);
    const policy = new RelayPolicy(core, channels, deps.options);
    const logs = new LogWriter(core, undefined, (row) => policy.logs(row.type));
    const pools = core.outbound.pools;
    const allowances = new QuotaAllowances(core, deps.billing.ledger, () => policy.allowance());
    const affinity = core.config.relayAffinityTtlMs > 0 ? new Affinity(core, core.config.relayAffinityTtlMs) : null;
    const guardrails = new Guardrails(deps.options, core.metrics, (msg) => core.log.warn(msg));
    const relayDeps = {
      core,
      channels,
      prices: deps.billing.prices,
      ledger: deps.billing.ledger,
      allowances,
      logs,
      pools,
      policy,
      affinity,
      routing: new Routing(deps.options),
      rateLimits: deps.accounts.rateLimits,
      budgets: deps.billing.budgets,
      guardrails,
    };
    const relay = new Relay(relayDeps);
    const realtime = new RealtimeRelay(relayDeps);
    const sockets = new ResponsesSockets(core, (call) => relay.handle(call), deps.accounts.rateLimits);
    await core.cache.register(CHANNELS_REVISION, () => channels.load());
    let probing: Promise<number> | null = null;
    const probe = () => {
      probing ??= probeOnce(core, channels, pools).finally(() => {
        probing = null;
      });
      return probing;
    };
    const service: RelayService = {
      relay,
      guardrails,
      realtime,
      sockets,
      channels,
      logs,
      pools,
      policy,
      allowances,
      probe,
      probeRounds: 0,
      async testChannel(id, model) {
        let ch = channels.get(id);
        if (!ch) {
          await channels.load();
          ch = channels.get(id);
        }
        if (!ch) throw fail('channel_not_found', `no relay channel ${id}`);
        const r = await testKey(pools, ch, firstUsableKey(ch), model, core.outbound.google);
        await channels.recordTest(id, r.timeMs);
        return r;
      },
    };
    // Closers run in reverse: stop probing, wait for settlements, close the quota holds, write the
    // last logs (the core closes the outbound client after every area).
    core.onClose(() => logs.close());
    core.onClose(() => allowances.close());
    core.onClose(() => relay.drain());
    // Before the drain (closers run in reverse): a socket still open at close ends its turn now.
    core.onClose(() => sockets.cut());
    core.onClose(() => realtime.drain());
    core.onClose(async () => {
      await probing;
    });
    return service;
  },
  start(core: Core, service: RelayService) {
    // The probe runs every AutoEnableProbeSeconds while AutoEnableEnabled; both are read again before
    // each round, so a change applies within a second.
    const { policy } = service;
    service.allowances.start();
    service.relay.conversations.startRetention();
    let last = Date.now();
    let timer: NodeJS.Timeout | null = null;
    let stopped = false;
    // One node of the deployment probes: the holder of the probe lease, which lasts two intervals and
    // is renewed every round, so another node takes over when the holder stops.
    const node = core.config.nodeId;
    let holding = false;
    const tick = async () => {
      const every = policy.probeIntervalMs();
      if (policy.autoEnabled() && Date.now() - last >= every) {
        last = Date.now();
        holding = await takeLease(core.h.db, PROBE_LEASE, node, 2 * every).catch((e) => {
          core.log.warn({ err: (e as Error).message }, 'probe lease failed');
          return false;
        });
        if (holding && !stopped) {
          service.probeRounds++;
          await service.probe().catch((e) => core.log.warn({ err: (e as Error).message }, 'channel probe failed'));
        }
      }
      if (stopped) return;
      timer = setTimeout(() => void tick(), Math.min(every, 1000));
      timer.unref();
    };
    timer = setTimeout(() => void tick(), Math.min(policy.probeIntervalMs(), 1000));
    timer.unref();
    core.onClose(async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (holding) await releaseLease(core.h.db, PROBE_LEASE, node).catch(() => {});
    });
  },
};
