/** A gateway (not listening) with one user and one key: the payer of ledger-level tests. */
import { startTestGateway, type TestGateway } from './harness.ts';
import { insertId } from '../src/store/db.ts';
import type { Payer } from '../src/billing/ledger.ts';

/** `keyCap` null: the key has no own cap (unlimited); otherwise its remaining quota. */
export async function payerGateway(
  quota: number,
  keyCap: number | null,
): Promise<{ gw: TestGateway; payer: Payer; userId: number; keyId: number }> {
  const gw = await startTestGateway({ listen: false });
  const userId = await gw.services.accounts.users.create({ username: 'alice', password: 'alice-password', quota });
  const keyId = await insertId(gw.core.h.db, gw.core.h.dialect, 'api_keys', {
    user_id: userId,
    name: 'k',
    key_hash: 'h'.repeat(64),
    key_hint: 'sk-x…',
    status: 1,
    expires_at: null,
    unlimited_quota: keyCap === null ? 1 : 0,
    remain_quota: keyCap ?? 0,
    used_quota: 0,
    models: null,
    allowed_ips: null,
    group_name: null,
    created_at: Date.now(),
    accessed_at: null,
  });
  return { gw, userId, keyId, payer: { userId, keyId, unlimitedKey: keyCap === null } };
}
