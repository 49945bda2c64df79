/**
 * A team's keys, logs and usage, for its members (teams/access.ts decides who sees what). Keys are made
 * and deleted by the key administration (admin/keys.ts) with `team_id` set; logs and their CSV export
 * are the log administration's (admin/logs.ts) held to the team's keys; usage is per member and per UTC
 * day, read from the team keys' log rows (logs/writer.ts). Owners and admins see every member's rows,
 * with the request and answer text (`content`) of others' rows left out unless the operator set the
 * team's `share_bodies`; members see their own rows; viewers see usage only.
 */
import type { Readable } from 'node:stream';
import type { Core } from '../core.ts';
import type { UserPrincipal } from '../accounts/types.ts';
import { KeyStore } from '../accounts/key-store.ts';
import { fail } from '../platform/errors.ts';
import { fieldError, quotaToUsd, type Obj, type Page } from '../platform/validate.ts';
import { usageByUserDay } from '../logs/writer.ts';
import { teamAccess, may } from '../teams/access.ts';
import type { KeyAdmin, KeyView } from './keys.ts';
import type { LogAdmin, LogFilter, RowPrivacy } from './logs.ts';

/** The longest range a usage report covers. */
export const TEAM_USAGE_MAX_DAYS = 400;
const DAY = 86_400_000;

export interface TeamUsage {
  from: number;
  to: number;
  totals: { calls: number; quota: number; quota_usd: number; prompt_tokens: number; completion_tokens: number };
  members: Array<{
    user_id: number;
    username: string;
    calls: number;
    quota: number;
    quota_usd: number;
    prompt_tokens: number;
    completion_tokens: number;
  }>;
  days: Array<{ day: number; calls: number; quota: number; quota_usd: number; prompt_tokens: number; completion_tokens: number }>;
}

export class TeamActivity {
  constructor(
    private readonly core: Core,
    private readonly keys: KeyAdmin,
    private readonly logs: LogAdmin,
  ) {}

  private get keyStore() {
    return new KeyStore(this.core.h);
  }

  /** The team's keys: every key for owners, admins and operators; a member's own for members. */
  async listKeys(
    teamId: number,
    actor: UserPrincipal,
    q: { page: number; pageSize: number; offset: number; keyword?: string },
  ): Promise<Page<KeyView>> {
    const { standing, team } = await teamAccess(this.core.h.db, teamId, actor, 'keys.own');
    const all = may(standing, 'keys.all', team);
    return this.keys.list({ ...q, teamId, userId: all ? undefined : actor.id });
  }

  /** A key for the caller paid by the team (members, admins and owners). The full key is in this answer only. */
  async createKey(teamId: number, raw: unknown, actor: UserPrincipal): Promise<KeyView & { key: string }> {
    await teamAccess(this.core.h.db, teamId, actor, 'keys.own');
    const input = this.keys.parse(raw, 'create');
    if (input.user_id !== undefined && input.user_id !== actor.id)
      throw fieldError('user_id', 'a team key is made by its member for themselves');
    if (input.key !== undefined) throw fieldError('key', 'a team key is always generated');
    return this.keys.create({ ...input, user_id: actor.id, team_id: teamId }, actor);
  }

  /** Deletes a team key: its member's own, or any of the team's for owners, admins and operators. */
  async removeKey(teamId: number, keyId: number, actor: UserPrincipal): Promise<void> {
    const { standing, team } = await teamAccess(this.core.h.db, teamId, actor, 'keys.own');
    const mine = await this.keyStore.idsOfTeam(teamId, may(standing, 'keys.all', team) ? undefined : actor.id);
    if (!mine.includes(keyId)) throw fail('key_not_found', `no key ${keyId} in this team`);
    await this.keys.remove(keyId, actor, true);
  }

  /** The filter and privacy of the caller's view of the team's logs. */
  private async logScope(teamId: number, actor: UserPrincipal): Promise<{ within: number[]; privacy: RowPrivacy }> {
    const { standing, team } = await teamAccess(this.core.h.db, teamId, actor, 'logs.own');
    if (!may(standing, 'logs.all', team)) return { within: await this.keyStore.idsOfTeam(teamId, actor.id), privacy: {} };
    const privacy: RowPrivacy = standing === 'operator' || team.settings.share_bodies === true ? {} : { bodiesOf: actor.id };
    return { within: await this.keyStore.idsOfTeam(teamId), privacy };
  }

  async queryLogs(teamId: number, actor: UserPrincipal, query: Obj) {
    const { within, privacy } = await this.logScope(teamId, actor);
    const p = this.logs.parseQuery(query, true);
    return this.logs.query({ ...p.filter, keyIdWithin: within }, p, true, privacy);
  }

  async exportLogs(teamId: number, actor: UserPrincipal, query: Obj): Promise<Readable> {
    const { within, privacy } = await this.logScope(teamId, actor);
    const f: LogFilter = { ...this.logs.parseQuery(query, true).filter, keyIdWithin: within };
    return this.logs.exportCsv(f, true, privacy);
  }

  /** What the team's keys spent per member and per UTC day in [from, to) (default: the last 30 days). */
  async usage(teamId: number, actor: UserPrincipal, q: { from?: number; to?: number }): Promise<TeamUsage> {
    await teamAccess(this.core.h.db, teamId, actor, 'usage');
    const to = q.to ?? Date.now();
    const from = q.from ?? to - 30 * DAY;
    if (from >= to) throw fieldError('from', 'must be before to');
    if (to - from > TEAM_USAGE_MAX_DAYS * DAY) throw fieldError('from', `the range is at most ${TEAM_USAGE_MAX_DAYS} days`);
    const rows = await usageByUserDay(this.core.h, await this.keyStore.idsOfTeam(teamId), from, to);
    const perUsd = this.core.config.quotaPerUsd;
    type Sums = { calls: number; quota: number; prompt_tokens: number; completion_tokens: number };
    const add = (a: Sums, b: Sums) => {
      a.calls += b.calls;
      a.quota += b.quota;
      a.prompt_tokens += b.prompt_tokens;
      a.completion_tokens += b.completion_tokens;
    };
    const zero = (): Sums => ({ calls: 0, quota: 0, prompt_tokens: 0, completion_tokens: 0 });
    const totals = zero();
    const members = new Map<number, Sums & { user_id: number; username: string }>();
    const days = new Map<number, Sums & { day: number }>();
    for (const r of rows) {
      add(totals, r);
      if (!members.has(r.user_id)) members.set(r.user_id, { user_id: r.user_id, username: r.username, ...zero() });
      add(members.get(r.user_id)!, r);
      if (!days.has(r.day)) days.set(r.day, { day: r.day, ...zero() });
      add(days.get(r.day)!, r);
    }
    const usd = <T extends Sums>(s: T) => ({ ...s, quota_usd: quotaToUsd(s.quota, perUsd) });
    return {
      from,
      to,
      totals: usd(totals),
      members: [...members.values()].sort((a, b) => b.quota - a.quota || a.user_id - b.user_id).map(usd),
      days: [...days.values()].sort((a, b) => a.day - b.day).map(usd),
    };
  }
}
