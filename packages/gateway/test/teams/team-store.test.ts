/**
 * The team store (teams/store.ts): names are unique among live teams, members have one role per team and
 * a user may belong to several teams, an invitation is accepted once however many accept it at the same
 * time (and never when expired or revoked; only its hash is stored), and a deleted team frees its name
 * and stops its keys.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../harness.ts';
import { createKey, createUser, waitFor } from '../relay-fixtures.ts';
import {
  acceptInvitation,
  addMember,
  createInvitation,
  createTeam,
  deleteTeam,
  getTeam,
  listInvitations,
  listMembers,
  listTeams,
  memberRole,
  removeMember,
  revokeInvitation,
  setMemberBudget,
  setMemberRole,
  teamsOfUser,
} from '../../src/teams/store.ts';
import { teamsChanged } from '../../src/teams/wallet.ts';

test('teams, members and invitations: unique names, several teams per user, an invitation accepted once', async () => {
  const gw = await startTestGateway();
  const { h } = gw.core;
  try {
    const a = await createTeam(h, { name: 'alpha', models: ['m1'] });
    const b = await createTeam(h, { name: 'beta' });
    await assert.rejects(createTeam(h, { name: 'alpha' }), (e: any) => e.code === 'team_exists');
    const u1 = await createUser(gw);
    const u2 = await createUser(gw);
    await addMember(h.db, a, u1, 'owner');
    await addMember(h.db, b, u1, 'viewer');
    await assert.rejects(addMember(h.db, a, u1, 'member'), (e: any) => e.code === 'team_member_exists');
    assert.deepEqual(
      (await teamsOfUser(h.db, u1)).map((t) => [t.team.name, t.role]),
      [
        ['alpha', 'owner'],
        ['beta', 'viewer'],
      ],
    );
    assert.equal(await memberRole(h.db, a, u2), null);
    await setMemberBudget(h.db, a, u1, 1000, 'week');
    await setMemberRole(h.db, b, u1, 'admin');
    assert.equal(await memberRole(h.db, b, u1), 'admin');
    assert.deepEqual(
      (await listMembers(h.db, a)).map((m) => [m.user_id, m.role, m.budget_quota, m.budget_period]),
      [[u1, 'owner', 1000, 'week']],
    );
    await assert.rejects(setMemberRole(h.db, a, u2, 'admin'), (e: any) => e.code === 'team_member_not_found');

    // 20 acceptances of one invitation at once, by as many users: exactly one joins.
    const inv = await createInvitation(h, a, { email: 'x@example.com', role: 'admin', createdBy: u1, ttlMs: 60_000 });
    const row = await h.db.selectFrom('team_invitations').selectAll().where('id', '=', inv.id).executeTakeFirstOrThrow();
    assert.notEqual(row.token_hash, inv.token, 'only the hash is stored');
    const takers = await Promise.all(Array.from({ length: 20 }, () => createUser(gw)));
    const outcomes = await Promise.allSettled(takers.map((u) => acceptInvitation(h, inv.token, u)));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    assert.equal(won.length, 1);
    assert.ok(outcomes.every((o) => o.status === 'fulfilled' || (o.reason as any).code === 'invalid_link'));
    assert.equal((await listMembers(h.db, a)).length, 2);
    // Expired and revoked invitations are refused.
    const old = await createInvitation(h, a, { email: 'y@example.com', role: 'member', createdBy: u1, ttlMs: -1 });
    await assert.rejects(acceptInvitation(h, old.token, u2), (e: any) => e.code === 'invalid_link');
    const rev = await createInvitation(h, a, { email: 'z@example.com', role: 'member', createdBy: u1, ttlMs: 60_000 });
    await revokeInvitation(h.db, a, rev.id);
    await assert.rejects(revokeInvitation(h.db, b, rev.id), (e: any) => e.code === 'not_found');
    await assert.rejects(acceptInvitation(h, rev.token, u2), (e: any) => e.code === 'invalid_link');
    const listed = await listInvitations(h.db, a);
    assert.equal(listed.length, 3);
    assert.ok(listed.every((i) => !('token_hash' in i)));

    // A deleted team frees its name, leaves its members' lists and stops its keys.
    const k = await createKey(gw, u1);
    await h.db.updateTable('api_keys').set({ team_id: a }).where('id', '=', k.id).execute();
    await teamsChanged(gw.core);
    await waitFor(() => gw.services.accounts.keys.authenticate(k.key, '127.0.0.1').teamId === a, 5000, 'the key cache');
    await deleteTeam(h, a);
    await teamsChanged(gw.core);
    assert.equal(await getTeam(h.db, a), null);
    assert.deepEqual(
      (await teamsOfUser(h.db, u1)).map((t) => t.team.name),
      ['beta'],
    );
    await waitFor(
      () => {
        try {
          gw.services.accounts.keys.authenticate(k.key, '127.0.0.1');
          return false;
        } catch (e) {
          return (e as any).code === 'invalid_api_key';
        }
      },
      5000,
      'the key refused',
    );
    assert.ok(await createTeam(h, { name: 'alpha' }));
    assert.deepEqual(
      (await listTeams(h.db, { q: 'al' })).items.map((t) => t.name),
      ['alpha'],
    );
    await removeMember(h.db, b, u1);
    await assert.rejects(removeMember(h.db, b, u1), (e: any) => e.code === 'team_member_not_found');
  } finally {
    await gw.stop();
  }
});
