/**
 * Tasks through a key of a team (tasks/lifecycle, teams/): the reserve at submit is taken from the team's
 * wallet and the member's budget within the team, and the settle at completion or the refund of a failure
 * — later, from the task row's team — goes back to the same wallet, never to the member's balance.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../harness.ts';
import { startVendor } from '../fakes/vendor/server.ts';
import { api, balance, createTaskChannel, createUser, installPlugins, setTaskPrice, waitFor } from '../fakes/vendor/fixtures.ts';
import { addMember, createTeam, getTeam } from '../../src/teams/store.ts';
import { teamsChanged, topUpTeam } from '../../src/teams/wallet.ts';

const Q = 500_000;

test("a task of a team's key is reserved from, settled against and refunded to the team's wallet", async () => {
  const vendor = await startVendor();
  const gw = await startTestGateway({ env: { TASK_POLL_INTERVAL_SECONDS: '0.05', CONTENT_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  try {
    await installPlugins(gw, ['loopback-video.js']);
    await createTaskChannel(gw, { name: 'lv', plugin: 'loopback-video', baseUrl: vendor.url });
    await setTaskPrice(gw, 'loopback-video::lv-1', { expression: 'u("seconds") * 0.1' });
    const u = await createUser(gw, { name: 'tasker', quota: 100 * Q });
    const teamId = await createTeam(gw.core.h, { name: 'video-team' });
    await addMember(gw.core.h.db, teamId, u.userId, 'member', { budget_quota: 10 * Q, budget_period: 'month' });
    await topUpTeam(gw.core, gw.services.billing.ledger, teamId, 10 * Q, 'video-team-topup');
    await gw.core.h.db.updateTable('api_keys').set({ team_id: teamId }).where('id', '=', u.keyId).execute();
    await teamsChanged(gw.core);
    await waitFor(async () => gw.services.accounts.keys.authenticate(u.key, '127.0.0.1').teamId === teamId, 5000, 'the key cache');

    const run = async (body: Record<string, unknown>) => {
      const r = await api(gw.url, u.key, 'POST', '/v1/tasks/loopback-video', body);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const row = await gw.core.h.db.selectFrom('tasks').select('team_id').where('public_id', '=', r.body.id).executeTakeFirstOrThrow();
      assert.equal(Number(row.team_id), teamId);
      await waitFor(
        async () => {
          const t = await gw.core.h.db
            .selectFrom('tasks')
            .select('billing_status')
            .where('public_id', '=', r.body.id)
            .executeTakeFirstOrThrow();
          return t.billing_status === 'settled' || t.billing_status === 'refunded' ? t.billing_status : null;
        },
        10_000,
        'the task settled',
      );
    };
    await run({ model: 'lv-1', prompt: 'a cat', seconds: 4, steps: 1 });
    assert.equal((await getTeam(gw.core.h.db, teamId))!.quota, 10 * Q - 0.4 * Q);
    await run({ model: 'lv-1', scenario: 'fail' });
    assert.equal((await getTeam(gw.core.h.db, teamId))!.quota, 10 * Q - 0.4 * Q, 'the failure was refunded to the team');
    assert.equal(await balance(gw, u.userId), 100 * Q, "the member's balance paid nothing");
    const spend = await gw.core.h.db
      .selectFrom('budget_spend')
      .select('spent')
      .where('owner', '=', `m:${teamId}:${u.userId}`)
      .executeTakeFirstOrThrow();
    assert.equal(Number(spend.spent), 0.4 * Q);
  } finally {
    await gw.stop();
    await vendor.close();
  }
});
