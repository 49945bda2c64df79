/**
 * API keys: generation, hashing, and the in-memory cache the hot path authenticates against.
 * The cache holds every enabled key of every enabled user, indexed by SHA-256 of the key; it is
 * rebuilt when the `keys` revision changes (any key or user change bumps it).
 *
 * A key's own group is only valid while its user belongs to it (as in New API, where a key's group
 * must be one its user may use): a key naming a group its user has left — the user was moved after
 * the key was made — is refused with 403 until the key's group is changed or cleared. It never
 * falls back silently to another group, whose price and models differ.
 *
 * A key of a team (`team_id`) is resolved with its team when the cache is built: it calls in the team's
 * group when the team has one, may use only the models both it and its team allow, is counted in the
 * team's rate limits and charged to the team's wallet, budget and its user's budget within the team
 * (not to the user's own balance, budget or plan). A key whose team is gone, or whose user is no longer
 * a member of it, is not loaded (refused as an unknown key). Team changes bump the `keys` revision.
 */
import { randomBytes } from 'node:crypto';
import type { Core } from '../core.ts';
import { sha256Hex } from '../platform/crypto.ts';
import { echo, fail } from '../platform/errors.ts';
import { compileIpList, type IpMatcher } from './ip.ts';
import type { KeyPrincipal, RateLimits, Role } from './types.ts';
import { rateLimitsOf } from './rate-limits.ts';
import { compileMcpAllow } from './mcp-access.ts';
import { KeyStore } from './key-store.ts';
import { UserStore } from './user-store.ts';
import { budgetOf, type BudgetSpec } from '../billing/budgets.ts';
import { memberBudgets, teamsByIds, type Team } from '../teams/store.ts';

export const KEYS_REVISION = 'keys';

const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function generateApiKey(): string {
  const b = randomBytes(48);
  let s = 'sk-';
  for (let i = 0; i < 48; i++) s += KEY_ALPHABET[b[i] % KEY_ALPHABET.length];
  return s;
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

export function keyHint(key: string): string {
  return `${key.slice(0, 5)}…${key.slice(-4)}`;
}

interface CachedKey {
  principal: KeyPrincipal;
  expiresAt: number | null;
  ips: IpMatcher | null;
  /** The key names a group its user no longer belongs to: refused with this message. */
  groupLost: string | null;
}

export function parseJsonList(v: string | null): string[] | null {
  if (v === null || v === '') return null;
  const a = JSON.parse(v);
  return Array.isArray(a) && a.length > 0 ? a.map(String) : null;
}

/** Presented keys whose hash was found, remembered so a key is hashed once, not on every call. */
const HASH_MEMO_MAX = 10_000;

/** What applies to every call of a user (whichever key, or the playground): rate limits and a budget. */
export interface UserPolicy {
  limits: RateLimits | null;
  budget: BudgetSpec | null;
}

const NO_POLICY: UserPolicy = Object.freeze({ limits: null, budget: null });

export class KeyCache {
  private byHash = new Map<string, CachedKey>();
  /** Users with limits (others have none). */
  private users = new Map<number, UserPolicy>();
  private readonly hashes = new Map<string, string>();

  constructor(private readonly core: Core) {}

  async load(): Promise<void> {
    const rows = await new KeyStore(this.core.h).enabledWithUsers();
    const perUsd = this.core.config.quotaPerUsd;
    const limited = await new UserStore(this.core.h).limitedUsers();
    const users = new Map<number, UserPolicy>();
    for (const u of limited) {
      users.set(Number(u.id), Object.freeze({ limits: rateLimitsOf(u), budget: budgetOf(`u:${u.id}`, 'user', u, perUsd) }));
    }
    const teamIds = [...new Set(rows.filter((r) => r.team_id !== null).map((r) => Number(r.team_id)))];
    const teams = new Map<number, TeamPolicy>();
    if (teamIds.length) {
      const members = await memberBudgets(this.core.h.db, teamIds);
      for (const t of await teamsByIds(this.core.h.db, teamIds)) teams.set(t.id, teamPolicy(t, perUsd));
      for (const m of members) {
        teams.get(m.team_id)?.members.set(m.user_id, budgetOf(`m:${m.team_id}:${m.user_id}`, 'member', m, perUsd));
      }
    }
    const next = new Map<string, CachedKey>();
    for (const r of rows) {
      const team = r.team_id === null ? null : teams.get(Number(r.team_id));
      // A key of a team that is gone, or of a user no longer its member, is not loaded.
      if (team === undefined || (team && !team.members.has(Number(r.user_id)))) continue;
      let models = parseJsonList(r.models);
      if (team?.models) models = models ? models.filter((m) => team.models!.has(m)) : [...team.models];
      let ips: IpMatcher | null = null;
      const ipList = parseJsonList(r.allowed_ips);
      if (ipList) {
        try {
          ips = compileIpList(ipList);
        } catch (e) {
          this.core.log.warn({ keyId: r.id, err: (e as Error).message }, 'api key has an invalid IP list; key refused');
          ips = { matches: () => false };
        }
      }
      const groupLost =
        !team?.group && r.group_name && r.group_name !== r.user_group
          ? `this API key's group "${r.group_name}" is not a group of its user any more; set the key's group to "${r.user_group}" or clear it`
          : null;
      next.set(r.key_hash, {
        expiresAt: r.expires_at === null ? null : Number(r.expires_at),
        ips,
        groupLost,
        principal: Object.freeze({
          keyId: Number(r.id),
          keyName: r.name,
          userId: Number(r.user_id),
          username: r.username,
          userRole: r.role as Role,
          group: team?.group || r.group_name || r.user_group,
          unlimitedQuota: Number(r.unlimited_quota) === 1,
          models: models ? new Set(models) : null,
          teamId: team ? team.id : null,
          teamLimits: team ? team.limits : null,
          callbackUrl: r.callback_url || null,
          mcpTools: compileMcpAllow(parseJsonList(r.mcp_tools)),
          keyLimits: rateLimitsOf(r),
          userLimits: users.get(Number(r.user_id))?.limits ?? null,
          budgets: team
            ? listOf([budgetOf(`k:${r.id}`, 'key', r, perUsd), team.budget, team.members.get(Number(r.user_id)) ?? null])
            : budgetsOf(budgetOf(`k:${r.id}`, 'key', r, perUsd), users.get(Number(r.user_id))?.budget ?? null),
        }),
      });
    }
    this.byHash = next;
    this.users = users;
  }

  /** The limits of user `id` (for calls without a key: the playground). */
  userPolicy(id: number): UserPolicy {
    return this.users.get(id) ?? NO_POLICY;
  }

  /**
   * Checks a presented key and the caller's address. Throws 401 for an unknown, disabled or expired
   * key, 403 for an address outside the key's allowed list and 403 for a key whose group its user
   * has left.
   */
  authenticate(raw: string | null, ip: string): KeyPrincipal {
    if (!raw) throw fail('missing_api_key');
    let h = this.hashes.get(raw);
    if (h === undefined) h = hashApiKey(raw.startsWith('sk-') ? raw : `sk-${raw}`);
    const hit = this.byHash.get(h);
    if (!hit) throw fail('invalid_api_key');
    if (this.hashes.size < HASH_MEMO_MAX) this.hashes.set(raw, h);
    else if (!this.hashes.has(raw)) this.hashes.clear();
    if (hit.expiresAt !== null && hit.expiresAt <= Date.now()) throw fail('api_key_expired');
    if (hit.ips && !hit.ips.matches(ip)) throw fail('ip_not_allowed', { ip });
    if (hit.groupLost) throw fail('group_not_allowed', hit.groupLost);
    return hit.principal;
  }

  get size(): number {
    return this.byHash.size;
  }
}

/** What the key cache keeps of a team its keys draw on. */
interface TeamPolicy {
  id: number;
  group: string | null;
  models: ReadonlySet<string> | null;
  limits: RateLimits | null;
  budget: BudgetSpec | null;
  /** Its members by user id, with each one's budget within the team (null: none). */
  members: Map<number, BudgetSpec | null>;
}

function teamPolicy(t: Team, perUsd: number): TeamPolicy {
  return {
    id: t.id,
    group: t.group_name || null,
    models: t.models ? new Set(t.models) : null,
    limits: rateLimitsOf(t),
    budget: budgetOf(`t:${t.id}`, 'team', t, perUsd),
    members: new Map(),
  };
}

/** The budgets of a list that are set; null when none is. */
function listOf(specs: Array<BudgetSpec | null>): readonly BudgetSpec[] | null {
  const set = specs.filter((b): b is BudgetSpec => b !== null);
  return set.length ? Object.freeze(set) : null;
}

/** A call's budgets: its key's and its user's; null when neither has one. */
export function budgetsOf(key: BudgetSpec | null, user: BudgetSpec | null): readonly BudgetSpec[] | null {
  if (!key && !user) return null;
  return Object.freeze(key && user ? [key, user] : [(key ?? user)!]);
}

/** Throws 403 when the key may not use `model`. */
export function checkModelAccess(p: KeyPrincipal, model: string): void {
  if (p.models && !p.models.has(model)) {
    throw fail('model_not_allowed', { model: echo(model) });
  }
}
