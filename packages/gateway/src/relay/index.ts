/**
 * The relay area: channels at runtime, the model-call hot path, channel tests, the recovery probe and
 * the chores that ask an upstream itself (balance, model list, a test of every model).
 */
import { Guardrails } from './guardrails.ts';
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import type { Accounts } from '../accounts/index.ts';
import type { Billing } from '../billing/index.ts';
import { LogWriter } from '../logs/writer.ts';
import { ChannelIndex, CHANNELS_REVISION } from './channels.ts';
import { Relay } from './relay.ts';
import { servePassCall } from './responses-route.ts';
import { RealtimeRelay } from './realtime.ts';
import { ResponsesSockets } from './responses-socket.ts';
import { testKey, firstUsableKey, type TestResult } from './health.ts';
import { probeDue } from './recovery.ts';
import { ChannelChores, modelDiff } from './channel-chores.ts';
import { ChannelStore } from '../channels/store.ts';
import type { AuditActor, AuditLog } from '../logs/audit.ts';
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
  /** Probes the auto-disabled keys and channels that are due now (relay/recovery.ts); returns how many recovered. */
  probe(): Promise<number>;
  /** Reads a channel's upstream balance and stores it; alerts when it falls below ChannelBalanceAlertThreshold. */
  updateBalance(id: number, actor: AuditActor): Promise<{ balance: number; balance_updated_at: number }>;
  /** The upstream's model list and what a sync would add to and remove from the channel's. */
  fetchModels(id: number): Promise<{ models: string[]; added: string[]; removed: string[] }>;
  /** Tests every model of a channel and keeps the results as its last test. */
  testAllModels(
    id: number,
  ): Promise<{ at: number; results: Array<{ model: string; ok: boolean; status: number; time_ms: number; message: string }> }>;
}

/** Audit actions of the health changes (actor: the system). */
const HEALTH_AUDIT = {
  key_auto_disabled: 'channel.key_auto_disable',
  channel_auto_disabled: 'channel.auto_disable',
  key_enabled: 'channel.key_auto_enable',
  channel_enabled: 'channel.auto_enable',
} as const;

export const relayArea = {
  name: 'relay',
  async init(core: Core, deps: { options: Options; billing: Billing; accounts: Accounts; audit?: AuditLog }): Promise<RelayService> {
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
    const sockets = new ResponsesSockets(core, (call) => servePassCall({ relay, guardrails }, call), deps.accounts.rateLimits);
    await core.cache.register(CHANNELS_REVISION, () => channels.load());
    // Every automatic change of a channel's or key's state is audited (the system as actor).
    channels.onHealth((c) => {
      if (c.kind === 'channel_low_balance' || !deps.audit) return;
      const key = c.keyIndex !== undefined ? { key_index: c.keyIndex } : {};
      const off = c.kind.endsWith('disabled');
      void deps.audit
        .record(
          null,
          HEALTH_AUDIT[c.kind],
          { type: 'channel', id: c.channelId },
          { ...key, status: off ? 'enabled' : 'auto_disabled' },
          { ...key, status: off ? 'auto_disabled' : 'enabled', ...(c.reason ? { reason: c.reason } : {}) },
        )
        .catch((e) => core.log.warn({ err: (e as Error).message }, 'health change not audited'));
    });
    const chores = new ChannelChores(pools, core.outbound.google);
    const runtime = async (id: number) => {
      let ch = channels.get(id);
      if (!ch) {
        await channels.load();
        ch = channels.get(id);
      }
      if (!ch) throw fail('channel_not_found', `no relay channel ${id}`);
      return ch;
    };
    let probing: Promise<number> | null = null;
    const probe = () => {
      const schedule = { intervalMs: policy.probeIntervalMs(), maxBackoffMs: policy.probeMaxBackoffMs() };
      probing ??= probeDue(core, channels, pools, schedule).finally(() => {
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
      async updateBalance(id, actor) {
        const ch = await runtime(id);
        const store = new ChannelStore(core.h);
        const before = await store.byId(id);
        const balance = await chores.balance(ch);
        const at = Date.now();
        await store.setBalance(id, balance, at);
        const prev = before?.balance === null || before?.balance === undefined ? null : Number(before.balance);
        await deps.audit?.record(actor, 'channel.balance', { type: 'channel', id }, { balance: prev }, { balance });
        const threshold = policy.channelBalanceThreshold();
        // Once per crossing: a balance read below the threshold when the last one was not (or there was none).
        if (threshold > 0 && balance < threshold && (prev === null || prev >= threshold)) {
          channels.announce({
            kind: 'channel_low_balance',
            channelId: id,
            channelName: ch.name,
            balance,
            reason: `balance ${balance} below ${threshold}`,
          });
        }
        return { balance, balance_updated_at: at };
      },
      async fetchModels(id) {
        const ch = await runtime(id);
        const models = await chores.models(ch);
        return { models, ...modelDiff(ch.models, models, ch.modelMapping) };
      },
      async testAllModels(id) {
        const ch = await runtime(id);
        const results = (await chores.testAll(ch)).map((r) => ({
          model: r.model,
          ok: r.ok,
          status: r.status,
          time_ms: r.timeMs,
          message: r.message.slice(0, 500),
        }));
        const at = Date.now();
        await new ChannelStore(core.h).setLastTest(id, JSON.stringify({ at, results }), at);
        return { at, results };
      },
      async testChannel(id, model) {
        const ch = await runtime(id);
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
