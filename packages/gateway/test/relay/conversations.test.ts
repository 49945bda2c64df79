/**
 * The conversations of converted Responses calls (relay/conversations.ts) on the database under test:
 * those kept in one turn are written together, a response id kept twice keeps its first conversation,
 * another node (an empty memory) loads them, and a closing node writes what is pending.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../harness.ts';
import { Conversations } from '../../src/relay/conversations.ts';
import type { Message } from '../../src/relay/providers/index.ts';

const said = (text: string): Message[] => [
  { role: 'system', parts: [{ type: 'text', text: 'be brief' }] },
  { role: 'user', parts: [{ type: 'text', text }] },
];
/** What is kept of `said(text)`: the system message left out. */
const kept = (text: string) => [{ role: 'user', parts: [{ type: 'text', text }] }];

test('conversations are written in one batch per turn, the first kept, loaded by another node and written at close', async () => {
  const gw = await startTestGateway();
  try {
    const a = new Conversations(gw.core);
    await Promise.all([
      a.keep('resp_1', 7, 'm', said('one')),
      a.keep('resp_2', 7, 'm', said('two')),
      a.keep('resp_1', 7, 'm', said('again')),
    ]);
    const rows = await gw.core.h.db.selectFrom('relay_conversations').select(['response_id', 'messages']).orderBy('response_id').execute();
    assert.deepEqual(
      rows.map((r) => [r.response_id, JSON.parse(r.messages)]),
      [
        ['resp_1', kept('one')],
        ['resp_2', kept('two')],
      ],
    );
    // Already stored (a later turn): kept as it is.
    await a.keep('resp_2', 7, 'm', said('later'));
    const b = new Conversations(gw.core);
    assert.deepEqual(await b.load('resp_2', 7), kept('two'));
    await assert.rejects(b.load('resp_2', 8), /Previous response with id 'resp_2' not found/, "another user's conversation is not found");

    // More than one statement's rows in one turn, then one left pending when the node closes.
    await Promise.all(Array.from({ length: 450 }, (_, i) => a.keep(`resp_many_${i}`, 7, 'm', said(`n${i}`))));
    const { n } = await gw.core.h.db
      .selectFrom('relay_conversations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('response_id', 'like', 'resp_many_%')
      .executeTakeFirstOrThrow();
    assert.equal(Number(n), 450);
    void a.keep('resp_last', 7, 'm', said('last'));
  } finally {
    await gw.stop({ keepDb: true });
  }
  const again = await startTestGateway({ db: gw.db });
  try {
    assert.deepEqual(await new Conversations(again.core).load('resp_last', 7), kept('last'));
  } finally {
    await again.stop();
  }
});
