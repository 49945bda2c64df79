/** A gateway (not listening) with one user and one key: the payer of ledger-level tests. */
import { startTestGateway, type TestGateway } from './harness.ts';
import type { Payer } from '../src/billing/ledger.ts';

/** `keyCap` null: the key has no own cap (unlimited); otherwise its remaining quota. */
export async function payerGateway(
  quota: number,
  keyCap: number | null,
): Promise<{ gw: TestGateway; payer: Payer; userId: number; keyId: number }> {
  const gw = await startTestGateway({ listen: false });
  const userId = await gw.services.accounts.users.create({ username: 'alice', password: 'alice-password', quota });
  const keys = gw.services.admin.keys;
  const keyId = (await keys.create(keys.parse({ user_id: userId, name: 'k', quota: keyCap }, 'create'), null)).id;
  return { gw, userId, keyId, payer: { userId, keyId, unlimitedKey: keyCap === null } };
}
