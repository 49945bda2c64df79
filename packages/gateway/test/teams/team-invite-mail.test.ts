/**
 * A team invitation by e-mail end to end: with SMTP_URL and the server address set, the link goes out
 * through the gateway's mailer (a real SMTP server on loopback catches it) and is not in the answer;
 * the invitee signs in, follows the link's token and joins with the invited role, once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, type TestGateway } from '../harness.ts';
import { AdminClient } from '../admin-client.ts';
import { startMailCatcher, type MailCatcher } from '../fakes/upstreams/smtp.ts';
import { FIXTURE_PASSWORD, createUser, waitFor } from '../relay-fixtures.ts';

let gw: TestGateway;
let smtp: MailCatcher;

before(async () => {
  smtp = await startMailCatcher();
  gw = await startTestGateway({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Gatehouse <teams@gatehouse.test>' } });
});

after(async () => {
  await gw?.stop();
  await smtp?.close();
});

test('an invitation is mailed as a link that works once for the signed-in invitee', async () => {
  const root = await AdminClient.login(gw.url);
  await root.ok('PUT', '/api/option', { options: { ServerAddress: gw.url } });
  await createUser(gw, { username: 'mail-owner', quota: 0 });
  const inviteeId = await createUser(gw, { username: 'mail-invitee', quota: 0 });
  const team = await root.ok('POST', '/api/team', { name: 'mailed' });
  await root.ok('POST', `/api/team/${team.id}/members`, { username: 'mail-owner', role: 'owner' });
  const owner = await AdminClient.login(gw.url, 'mail-owner', FIXTURE_PASSWORD);

  const inv = await owner.ok('POST', `/api/team/${team.id}/invitations`, { email: 'invitee@example.com', role: 'admin', ttl_hours: 2 });
  assert.equal(inv.mailed, true);
  assert.equal(inv.link, undefined, 'a mailed link is not handed to the inviter');
  const mail = await waitFor(() => smtp.mails.find((m) => m.to.includes('invitee@example.com')), 10_000, 'the invitation mail');
  const text = mail.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  assert.match(text, /mailed/);
  const link = new URL(/https?:\/\/\S+team-invite\?token=\S+/.exec(text)![0]);
  assert.equal(link.origin, gw.url);
  const token = link.searchParams.get('token')!;

  const invitee = await AdminClient.login(gw.url, 'mail-invitee', FIXTURE_PASSWORD);
  const joined = await invitee.ok('POST', '/api/team/invitations/accept', { token });
  assert.deepEqual([joined.team.id, joined.role], [team.id, 'admin']);
  const members = await owner.ok('GET', `/api/team/${team.id}/members`);
  assert.equal(members.find((m: { user_id: number }) => m.user_id === inviteeId).role, 'admin');
  await invitee.fails(409, 'POST', '/api/team/invitations/accept', { token });
  const listed = await owner.ok('GET', `/api/team/${team.id}/invitations`);
  assert.equal(listed[0].accepted_by, inviteeId);
});
