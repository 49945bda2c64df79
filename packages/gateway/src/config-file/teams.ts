/**
 * The configuration file's `teams:` section and keys' `team:` (docs/configuration.md#teams): teams by
 * name with their wallet's starting balance (`quota_usd`, credited once when the file creates the team,
 * as a user's starting balance), model access, limits and budget, and their members by username with a
 * role and a delegated budget. Applied after users and before keys; nothing absent is deleted (a member
 * the file does not list stays). Keys name their team by its name; the key's user must be a member.
 */
import type { Core } from '../core.ts';
import type { Ledger } from '../billing/ledger.ts';
import { isBudgetPeriod } from '../billing/budgets.ts';
import { fail } from '../platform/errors.ts';
import { Reader, fieldError, join, usdToQuota, type Obj } from '../platform/validate.ts';
import { addMember, createTeam, getTeamByName, listMembers, setMemberBudget, setMemberRole, updateTeam } from '../teams/store.ts';
import { isTeamRole, type TeamInput, type TeamRole } from '../teams/store.ts';
import { topUpTeam } from '../teams/wallet.ts';

const TEAM_FIELDS = [
  'name',
  'quota_usd',
  'models',
  'group',
  'rpm',
  'tpm',
  'max_concurrency',
  'budget_usd',
  'budget_period',
  'settings',
  'members',
];
const MEMBER_FIELDS = ['username', 'role', 'budget_usd', 'budget_period'];

export interface ConfigTeamMember {
  username: string;
  role: TeamRole;
  budget_quota: number | null;
  budget_period: string | null;
  at: string;
}

export interface ConfigTeam {
  /** The whole team as the file states it (absent lists and limits: none). */
  input: TeamInput & { name: string };
  /** The wallet's starting balance in quota units, credited when the file creates the team. */
  quota: number;
  members: ConfigTeamMember[];
  at: string;
}

/** A budget given as `budget_usd` with `budget_period` (both or neither). */
function budgetOf(r: Reader, perUsd: number): { quota: number | null; period: string | null } {
  const usd = r.nullableNum('budget_usd', { min: 0, max: 1e9 });
  const period = r.nullableStr('budget_period', { max: 8 });
  if (usd === null || usd === undefined) {
    if (period) throw fieldError(r.path('budget_usd'), 'is required with budget_period');
    return { quota: null, period: null };
  }
  if (!isBudgetPeriod(period)) throw fieldError(r.path('budget_period'), 'must be day, week or month');
  return { quota: usdToQuota(usd, perUsd), period };
}

/** Parses the `teams:` list (no database). */
export function parseConfigTeams(list: readonly Obj[], perUsd: number): ConfigTeam[] {
  const names = new Set<string>();
  return list.map((t, i) => {
    const at = join('teams', i);
    const r = new Reader(t, at).only(TEAM_FIELDS);
    const name = r.str('name', { required: true, max: 48 })!;
    if (names.has(name)) throw fieldError(join(at, 'name'), `team "${name}" is declared twice`);
    names.add(name);
    const budget = budgetOf(r, perUsd);
    const settings = r.object('settings', { values: 'any' }) ?? {};
    for (const k of Object.keys(settings)) {
      if (k !== 'allow_admin_topup' && k !== 'share_bodies') throw fieldError(join(join(at, 'settings'), k), 'unknown setting');
      if (typeof settings[k] !== 'boolean') throw fieldError(join(join(at, 'settings'), k), 'must be true or false');
    }
    const members = new Set<string>();
    const raw = t.members ?? [];
    if (!Array.isArray(raw)) throw fieldError(join(at, 'members'), 'must be a list');
    return {
      at,
      quota: usdToQuota(r.num('quota_usd', { min: 0, max: 1e9 }) ?? 0, perUsd),
      input: {
        name,
        models: r.list('models', { max: 191 }) ?? null,
        group_name: r.str('group', { max: 64 }) ?? null,
        rpm: r.num('rpm', { min: 0, max: 1e9, int: true }) ?? 0,
        tpm: r.num('tpm', { min: 0, max: 1e12, int: true }) ?? 0,
        max_concurrency: r.num('max_concurrency', { min: 0, max: 1e6, int: true }) ?? 0,
        budget_quota: budget.quota,
        budget_period: budget.period,
        settings: settings as TeamInput['settings'],
      },
      members: raw.map((m, j) => {
        const mat = join(join(at, 'members'), j);
        if (!m || typeof m !== 'object' || Array.isArray(m)) throw fieldError(mat, 'must be a mapping');
        const mr = new Reader(m as Obj, mat).only(MEMBER_FIELDS);
        const username = mr.str('username', { required: true, max: 64 })!;
        if (members.has(username)) throw fieldError(join(mat, 'username'), `member "${username}" is listed twice`);
        members.add(username);
        const role = mr.str('role') ?? 'member';
        if (!isTeamRole(role)) throw fieldError(join(mat, 'role'), 'must be owner, admin, member or viewer');
        const b = budgetOf(mr, perUsd);
        return { username, role, budget_quota: b.quota, budget_period: b.period, at: mat };
      }),
    };
  });
}

/** What applying teams needs beyond the admin services. */
export interface TeamApplyDeps {
  core: Core;
  ledger: Ledger;
}

/**
 * Applies one team: created (with its starting balance, credited once by the ref `config:team:<id>`)
 * or updated where it differs; members added, or their role and budget updated. `findUser` resolves a
 * username. Returns 'created', true (changed) or false (as it was).
 */
export async function applyConfigTeam(
  deps: TeamApplyDeps,
  t: ConfigTeam,
  findUser: (username: string) => Promise<{ id: number } | undefined>,
): Promise<boolean | 'created'> {
  const { h } = deps.core;
  const users = new Map<string, number>();
  for (const m of t.members) {
    const u = await findUser(m.username);
    if (!u) throw fail('invalid_field', `${m.at}.username: no user "${m.username}" (declare it under users)`);
    users.set(m.username, Number(u.id));
  }
  let cur = await getTeamByName(h.db, t.input.name);
  let changed: boolean | 'created' = false;
  if (!cur) {
    const id = await createTeam(h, t.input);
    if (t.quota > 0) await topUpTeam(deps.core, deps.ledger, id, t.quota, `config:team:${id}`);
    cur = (await getTeamByName(h.db, t.input.name))!;
    changed = 'created';
  } else {
    const now = { ...cur, settings: cur.settings ?? {} };
    const diff = Object.entries(t.input).some(([k, v]) => JSON.stringify(v) !== JSON.stringify((now as Record<string, unknown>)[k]));
    if (diff) {
      await updateTeam(h.db, cur.id, t.input);
      changed = true;
    }
  }
  const members = new Map((await listMembers(h.db, cur.id)).map((m) => [m.user_id, m]));
  for (const m of t.members) {
    const userId = users.get(m.username)!;
    const have = members.get(userId);
    if (!have) {
      await addMember(h.db, cur.id, userId, m.role, m);
      changed ||= true;
      continue;
    }
    if (have.role !== m.role) {
      await setMemberRole(h.db, cur.id, userId, m.role);
      changed ||= true;
    }
    if (have.budget_quota !== m.budget_quota || have.budget_period !== m.budget_period) {
      await setMemberBudget(h.db, cur.id, userId, m.budget_quota, m.budget_period);
      changed ||= true;
    }
  }
  return changed;
}
