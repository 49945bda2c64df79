/**
 * The store of Responses ids created through the relay (relay/response-store.ts) on the database under
 * test: the ids remembered in one turn are written together, an id stored twice keeps its first record,
 * another node (a store with an empty memory) finds them, and a closing node writes what is pending.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway } from '../harness.ts';
import { ResponseStore } from '../../src/relay/response-store.ts';

test('Responses ids are written in one batch per turn, first record kept, found by another node and written at close', async () => {
  const gw = await startTestGateway();
  try {
    const a = new ResponseStore(gw.core);
    const rec = (channelId: number) => ({ userId: 7, channelId, keyIndex: 1, model: 'm' });
    await Promise.all([a.remember('resp_1', rec(1)), a.remember('resp_2', rec(2)), a.remember('resp_1', rec(3))]);
    // Written once each, in the table.
    const rows = await gw.core.h.db.selectFrom('relay_responses').select(['response_id', 'channel_id']).orderBy('response_id').execute();
    assert.deepEqual(
      rows.map((r) => [r.response_id, Number(r.channel_id)]),
      [
        ['resp_1', 1],
        ['resp_2', 2],
      ],
    );
    // An id already stored (a later turn) is kept as it is.
    await a.remember('resp_2', rec(9));
    const b = new ResponseStore(gw.core);
    assert.deepEqual(await b.lookup('resp_2', 7), rec(2));
    assert.equal(await b.lookup('resp_2', 8), null, "another user's id is not found");
    assert.equal(await b.lookup('resp_none', 7), null);

    // Six hundred in one turn (more than one statement's batch), then one left pending when the node closes.
    await Promise.all(Array.from({ length: 600 }, (_, i) => a.remember(`resp_many_${i}`, rec(4))));
    const { n } = await gw.core.h.db
      .selectFrom('relay_responses')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('response_id', 'like', 'resp_many_%')
      .executeTakeFirstOrThrow();
    assert.equal(Number(n), 600);
    void a.remember('resp_last', rec(5));
  } finally {
    await gw.stop({ keepDb: true });
  }
  const again = await startTestGateway({ db: gw.db });
  try {
    assert.deepEqual(await new ResponseStore(again.core).lookup('resp_last', 7), { userId: 7, channelId: 5, keyIndex: 1, model: 'm' });
  } finally {
    await again.stop();
  }
});
