/**
 * The configuration file's `teams:` (config-file/teams.ts, docs/configuration.md#teams): a team is created
 * with its starting wallet credited once (a restart adds nothing), its members with their roles and
 * delegated budgets, and keys naming it are paid by it; a key of a user who is not a member, or of an
 * unknown team, is refused with the path of the field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, startTestGateway } from '../harness.ts';
import { loadConfigFile } from '../../src/config-file/load.ts';
import { getTeamByName, listMembers } from '../../src/teams/store.ts';

const dir = mkdtempSync(join(tmpdir(), 'gatehouse-teams-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

const CONFIG = `
users:
  - username: tina
    password: tina-password
  - username: tom
    password: tom-password
teams:
  - name: research
    quota_usd: 10
    models: [gpt-4o]
    rpm: 60
    budget_usd: 5
    budget_period: day
    settings: { share_bodies: true }
    members:
      - username: tina
        role: owner
      - username: tom
        role: member
        budget_usd: 1
        budget_period: week
keys:
  - user: tom
    name: research-bot
    key: sk-tomTeamKey0123456789abcdefghijklmn
    team: research
`;

test('teams: from the file, with a starting wallet credited once, members, and keys paid by the team', async () => {
  const db = await createTestDatabase();
  const path = file('teams.yaml', CONFIG);
  let gw = await startTestGateway({ db, env: { GATEHOUSE_CONFIG: path } });
  try {
    const t = (await getTeamByName(gw.core.h.db, 'research'))!;
    assert.ok(t);
    assert.deepEqual(
      [t.quota, t.models, t.rpm, t.budget_quota, t.budget_period, t.settings],
      [5_000_000, ['gpt-4o'], 60, 2_500_000, 'day', { share_bodies: true }],
    );
    const members = await listMembers(gw.core.h.db, t.id);
    assert.deepEqual(
      members.map((m) => [m.username, m.role, m.budget_quota, m.budget_period]),
      [
        ['tina', 'owner', null, null],
        ['tom', 'member', 500_000, 'week'],
      ],
    );
    const p = gw.services.accounts.keys.authenticate('sk-tomTeamKey0123456789abcdefghijklmn', '127.0.0.1');
    assert.equal(p.teamId, t.id);
    assert.deepEqual([...p.models!], ['gpt-4o']);
    assert.deepEqual(p.budgets?.map((b) => b.owner).sort(), [`m:${t.id}:${p.userId}`, `t:${t.id}`]);

    // A restart with the same file credits nothing more; a changed member budget is applied.
    await gw.stop({ keepDb: true });
    writeFileSync(path, CONFIG.replace('budget_usd: 1\n', 'budget_usd: 2\n'));
    gw = await startTestGateway({ db, env: { GATEHOUSE_CONFIG: path } });
    const again = (await getTeamByName(gw.core.h.db, 'research'))!;
    assert.equal(again.quota, 5_000_000);
    assert.equal((await listMembers(gw.core.h.db, t.id)).find((m) => m.username === 'tom')!.budget_quota, 1_000_000);
  } finally {
    await gw.stop();
  }
});

test('teams: a key of a non-member or of an unknown team, and bad team fields, are refused with their path', async () => {
  const check = (text: string) => () => loadConfigFile(file(`bad-${Math.random()}.yaml`, text), { quotaPerUsd: 500_000 });
  assert.throws(check('teams:\n  - name: a\n    members:\n      - username: x\n        role: boss\n'), /teams\[0\]\.members\[0\]\.role/);
  assert.throws(check('teams:\n  - name: a\n  - name: a\n'), /teams\[1\]\.name/);
  assert.throws(check('teams:\n  - name: a\n    budget_usd: 1\n'), /teams\[0\]\.budget_period/);
  assert.throws(
    check('users:\n  - username: u\n    password: pw-pw-pw-pw\nkeys:\n  - user: u\n    name: k\n    team: nope\n'),
    /keys\[0\]\.team/,
  );
  const db = await createTestDatabase();
  const path = file(
    'nonmember.yaml',
    'users:\n  - username: u\n    password: pw-pw-pw-pw\nteams:\n  - name: a\nkeys:\n  - user: u\n    name: k\n    team: a\n',
  );
  await assert.rejects(startTestGateway({ db, env: { GATEHOUSE_CONFIG: path } }), /keys\[0\]\.team: user "u" is not a member of team "a"/);
  await db.drop();
});
