/**
 * The alerts area: operator alerts (channels and keys auto-disabled or enabled again, tasks ending in
 * an unknown outcome) and users' low-balance alerts, queued in the `alerts` outbox and delivered by
 * webhook (HMAC-signed) and e-mail from one node at a time (alerts/delivery.ts). Built after admin
 * (its options hold the operator's destinations); it listens to the relay's channel health, the
 * ledger's balance movements (read-only) and the task lifecycle.
 */
import type { Core } from '../core.ts';
import type { Options } from '../options/options.ts';
import { Alerts } from './service.ts';
import { AlertDelivery } from './delivery.ts';
import type { HealthChange } from '../channels/health.ts';
import type { RelayService } from '../relay/index.ts';
import type { Billing } from '../billing/index.ts';
import type { Tasks } from '../tasks/index.ts';

export interface AlertsService {
  alerts: Alerts;
  delivery: AlertDelivery;
}

const HEALTH_KIND = {
  key_auto_disabled: 'channel.key_auto_disabled',
  channel_auto_disabled: 'channel.auto_disabled',
  key_enabled: 'channel.key_enabled',
  channel_enabled: 'channel.enabled',
  channel_low_balance: 'channel.low_balance',
} as const;

function healthSummary(c: HealthChange): string {
  const ch = `channel ${c.channelName} (#${c.channelId})`;
  switch (c.kind) {
    case 'key_auto_disabled':
      return `Key ${c.keyIndex} of ${ch} was disabled automatically`;
    case 'channel_auto_disabled':
      return `${ch[0].toUpperCase()}${ch.slice(1)} was disabled automatically`;
    case 'key_enabled':
      return `Key ${c.keyIndex} of ${ch} is enabled again`;
    case 'channel_low_balance':
      return `The upstream balance of ${ch} is low: ${c.balance}`;
    default:
      return `${ch[0].toUpperCase()}${ch.slice(1)} is enabled again`;
  }
}

export const alertsArea = {
  name: 'alerts',
  init(core: Core, deps: { options: Options; relay: RelayService; billing: Billing }): AlertsService {
    const { options } = deps;
    const alerts = new Alerts(core, options);
    const delivery = new AlertDelivery(core, alerts, options, deps.billing.ledger.node);
    deps.relay.channels.onHealth((c) =>
      alerts.operator(HEALTH_KIND[c.kind], healthSummary(c), {
        channel_id: c.channelId,
        channel_name: c.channelName,
        ...(c.keyIndex !== undefined ? { key_index: c.keyIndex } : {}),
        ...(c.reason ? { reason: c.reason } : {}),
        ...(c.balance !== undefined ? { balance: c.balance } : {}),
      }),
    );
    deps.billing.ledger.onBalanceMoved((userId) => alerts.balanceMoved(userId));
    return { alerts, delivery };
  },
  async start(core: Core, service: AlertsService, tasks: Tasks) {
    const { alerts, delivery } = service;
    tasks.service.onUnknownOutcome((u) =>
      alerts.operator('task.unknown_outcome', `Task ${u.taskId} ended in an unknown outcome and needs review`, {
        task_id: u.taskId,
        user_id: u.userId,
        plugin: u.plugin,
        channel_id: u.channelId,
        reason: u.reason,
      }),
    );
    await alerts.loadWatched();
    delivery.start();
    core.onClose(() => delivery.stop());
  },
};
