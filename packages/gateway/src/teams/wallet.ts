/**
 * A team's wallet outside calls: an operator's top-up (`POST /api/team/:id/quota`, the configuration
 * file's `quota_usd`) is one ledger credit movement of the team (billing/ledger.ts `adjustTeam`),
 * unique per ref, so a repeated request or a second node credits once. And the one way team changes
 * reach the hot path: `teamsChanged` bumps the key cache's revision (accounts/keys.ts resolves every
 * key's team, limits, models and budgets when it rebuilds).
 */
import type { Core } from '../core.ts';
import type { Ledger } from '../billing/ledger.ts';
import { fail } from '../platform/errors.ts';
import { KEYS_REVISION } from '../accounts/keys.ts';
import { getTeam } from './store.ts';

/**
 * Credits `quota` units (negative: takes, never below zero) to team `teamId`'s wallet once for `ref`.
 * `team_not_found` for no live team; `invalid_request` for an amount that is not a whole non-zero
 * number. Returns whether this call credited (false: the ref was credited before) and the balance after.
 */
export async function topUpTeam(
  core: Pick<Core, 'h'>,
  ledger: Ledger,
  teamId: number,
  quota: number,
  ref: string,
  byUserId = 0,
): Promise<{ credited: boolean; quota: number }> {
  if (!Number.isSafeInteger(quota) || quota === 0) throw fail('invalid_request', 'quota: give a whole number of quota units other than 0');
  if (!(await getTeam(core.h.db, teamId))) throw fail('team_not_found', { id: teamId });
  const credited = await ledger.adjustTeam(teamId, ref, quota, quota > 0 ? 'topup' : 'adjust', byUserId);
  const after = await getTeam(core.h.db, teamId);
  return { credited, quota: after?.quota ?? 0 };
}

/** Tells every node that a team, its members or its keys changed: their key caches rebuild. */
export async function teamsChanged(core: Pick<Core, 'cache'>): Promise<void> {
  await core.cache.bump(KEYS_REVISION);
}
