/**
 * User administration: list, create, update, quota changes (through the billing ledger, so each has a
 * ledger row written with the balance change), delete. Admins manage ordinary users; only root manages admins.
 */
import type { Selectable } from 'kysely';
import type { Core } from '../core.ts';
import type { Role, UserPrincipal } from '../accounts/types.ts';
import { ROLE_RANK } from '../accounts/types.ts';
import { hashPassword } from '../platform/crypto.ts';
import { GatewayError, fail } from '../platform/errors.ts';
import { randomId } from '../platform/ids.ts';
import { isUniqueViolation, withTx } from '../store/db.ts';
import { KeyStore } from '../accounts/key-store.ts';
import { UserStore } from '../accounts/user-store.ts';
import { PasskeyStore } from '../accounts/passkey-store.ts';
import { toPrincipal } from '../accounts/users.ts';
import { TwoFactor } from '../accounts/two-factor.ts';
import type { Ledger } from '../billing/ledger.ts';
import type { UserRow } from '../store/schema-core.ts';
import type { Changes } from './changes.ts';
import type { AuditLog } from '../logs/audit.ts';
import { insertLogs, topupLog, topupNotes } from '../logs/writer.ts';
import { Reader, fieldError, quotaToUsd, usdToQuota, type Page } from '../platform/validate.ts';
import {
  LIMIT_FIELDS,
  checkBudgetPair,
  fillBudgetSpend,
  limitColumns,
  limitView,
  parseLimits,
  type LimitInput,
  type LimitView,
} from './limit-fields.ts';
import type { Budgets } from '../billing/budgets.ts';

export const USERNAME_RE = /^[A-Za-z0-9_.@-]{1,64}$/;
const ROLES: Role[] = ['user', 'admin', 'root'];
const USER_FIELDS = ['username', 'password', 'display_name', 'role', 'group', 'quota', 'quota_usd', 'status', ...LIMIT_FIELDS];

/** Who is acting: a logged-in user, or null for the system (configuration file, bootstrap). */
export type Actor = UserPrincipal | null;

/** One movement of a user's balance (GET /api/user/{id}/ledger). */
export interface LedgerEntryView {
  id: number;
  ref: string;
  /** reserve | extend:<n> | settle | refund | topup | adjust | charge | spend */
  kind: string;
  key_id: number | null;
  /** Signed change of the balance in quota units (a top-up is positive, a charge negative). */
  change: number;
  change_usd: number;
  /** The reason given with a top-up or adjustment. */
  note: string | null;
  created_at: number;
}

export interface UserView extends LimitView {
  id: number;
  username: string;
  display_name: string;
  role: Role;
  group: string;
  /** Remaining balance in quota units, and the same in USD. */
  quota: number;
  quota_usd: number;
  used_quota: number;
  request_count: number;
  status: 'enabled' | 'disabled';
  created_at: number;
  updated_at: number;
}

export interface UserInput extends LimitInput {
  username?: string;
  password?: string;
  display_name?: string;
  role?: Role;
  group?: string;
  /** Quota units (already converted from quota_usd). */
  quota?: number;
  status?: 1 | 2;
}

const statusOf = (s: unknown): 1 | 2 | undefined => (s === 'enabled' || s === 1 ? 1 : s === 'disabled' || s === 2 ? 2 : undefined);

export class UserAdmin {
  constructor(
    private readonly core: Core,
    private readonly changes: Changes,
    /** The billing ledger: the only code that moves money. */
    private readonly ledger: () => Ledger,
    private readonly audit: AuditLog | null = null,
    private readonly budgets: () => Budgets = () => {
      throw new Error('no budgets');
    },
  ) {}

  private get db() {
    return this.core.h.db;
  }

  private get users() {
    return new UserStore(this.core.h);
  }

  view(r: Selectable<UserRow>): UserView {
    return {
      id: Number(r.id),
      username: r.username,
      display_name: r.display_name,
      role: r.role,
      group: r.group_name,
      quota: Number(r.quota),
      quota_usd: quotaToUsd(Number(r.quota), this.core.config.quotaPerUsd),
      used_quota: Number(r.used_quota),
      request_count: Number(r.request_count),
      status: Number(r.status) === 1 ? 'enabled' : 'disabled',
      ...limitView(r, this.core.config.quotaPerUsd),
      created_at: Number(r.created_at),
      updated_at: Number(r.updated_at),
    };
  }

  /** Validates create/update input. `at` prefixes field names (configuration file paths). */
  parse(raw: unknown, mode: 'create' | 'update', at = ''): UserInput {
    const r = Reader.of(raw, at).only(mode === 'create' ? USER_FIELDS : USER_FIELDS.filter((f) => f !== 'quota' && f !== 'quota_usd'));
    const out: UserInput = {};
    out.username = r.str('username', {
      required: mode === 'create',
      pattern: USERNAME_RE,
      hint: 'must be 1-64 characters of letters, digits, _ . @ -',
    });
    out.password = r.str('password', { required: mode === 'create', min: 8, max: 256 });
    out.display_name = r.str('display_name', { max: 128 });
    out.role = r.oneOf('role', ROLES);
    out.group = r.str('group', { max: 64, pattern: /^[A-Za-z0-9_.-]+$/, hint: 'must be letters, digits, _ . -' });
    if (r.has('status')) {
      out.status = statusOf(r.obj.status);
      if (!out.status) throw fieldError(r.path('status'), 'must be enabled or disabled');
    }
    parseLimits(r, out, this.core.config.quotaPerUsd, mode);
    if (mode === 'create') {
      const q = r.num('quota', { int: true, min: 0 });
      const usd = r.num('quota_usd', { min: 0 });
      out.quota = q ?? (usd !== undefined ? usdToQuota(usd, this.core.config.quotaPerUsd) : 0);
    }
    for (const k of Object.keys(out) as (keyof UserInput)[]) if (out[k] === undefined) delete out[k];
    return out;
  }

  /** Throws 403 unless `actor` may manage a user of `targetRole` (and give it `newRole`). */
  checkManage(actor: Actor, targetRole: Role, newRole?: Role): void {
    if (!actor) return;
    const rank = ROLE_RANK[actor.role];
    if (rank < ROLE_RANK.admin) throw fail('forbidden', 'this needs the admin role');
    if (actor.role === 'root') return;
    if (ROLE_RANK[targetRole] >= rank || (newRole && ROLE_RANK[newRole] >= rank)) {
      throw fail('forbidden', 'only root may manage admin and root accounts');
    }
  }

  /**
   * Whether `actorId` could top up `targetId` directly (checkManage's rule; null: the system, which
   * may): what a redemption code its creator made may credit. A creator that no longer exists counts
   * as an admin.
   */
  async mayTopUp(actorId: number | null, targetId: number): Promise<boolean> {
    if (actorId === null) return true;
    const [actor, target] = await Promise.all([this.users.byId(actorId), this.users.byId(targetId)]);
    if (!target) return false;
    try {
      this.checkManage(actor ? toPrincipal(actor) : { id: actorId, username: '', role: 'admin', group: '' }, target.role);
      return true;
    } catch (e) {
      if (e instanceof GatewayError && e.status === 403) return false;
      throw e;
    }
  }

  async list(q: {
    page: number;
    pageSize: number;
    offset: number;
    keyword?: string;
    role?: string;
    status?: string;
    group?: string;
  }): Promise<Page<UserView>> {
    const filter = { keyword: q.keyword, role: q.role, status: q.status ? (statusOf(q.status) ?? -1) : undefined, group: q.group };
    const { rows, total } = await this.users.page(filter, q.pageSize, q.offset);
    return { items: await this.withSpend(rows.map((r) => this.view(r))), total, page: q.page, page_size: q.pageSize };
  }

  async get(id: number): Promise<UserView> {
    const r = await this.users.byId(id);
    if (!r) throw fail('user_not_found', { id });
    return (await this.withSpend([this.view(r)]))[0];
  }

  /** The views with what their budgets spent in the current period. */
  private withSpend(views: UserView[]): Promise<UserView[]> {
    return fillBudgetSpend(this.budgets(), views, 'u', this.core.config.quotaPerUsd);
  }

  async findByUsername(username: string): Promise<Selectable<UserRow> | undefined> {
    return this.users.byName(username);
  }

  async create(input: UserInput, actor: Actor, at = ''): Promise<UserView> {
    const role = input.role ?? 'user';
    this.checkManage(actor, 'user', role);
    if (!input.username || !input.password) throw fieldError(at ? `${at}.username` : 'username', 'is required');
    const now = Date.now();
    const hash = await hashPassword(input.password);
    const quota = input.quota ?? 0;
    let id: number;
    try {
      id = await withTx(this.core.h, async (tx) => {
        const newId = await this.users.insert(
          {
            username: input.username!,
            password_hash: hash,
            display_name: input.display_name ?? input.username!,
            role,
            group_name: input.group ?? 'default',
            quota: 0,
            used_quota: 0,
            request_count: 0,
            status: input.status ?? 1,
            access_token_hash: null,
            ...limitColumns(input, true),
            created_at: now,
            updated_at: now,
          },
          tx,
        );
        // The starting balance is a top-up like any other (a ledger row, ref naming the new user),
        // committed with the account or not at all.
        if (quota > 0) await this.ledger().adjustInTx(tx, newId, `user_created:${newId}`, quota, 'topup');
        await this.changes.inTx('keys', tx);
        return newId;
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw fail('user_exists', `${at ? `${at}.` : ''}username: a user named "${input.username}" already exists`);
      throw e;
    }
    await this.changes.committed('keys');
    const made = await this.get(id);
    await this.audit?.record(actor, 'user.create', { type: 'user', id }, null, made);
    return made;
  }

  async update(id: number, input: UserInput, actor: Actor): Promise<UserView> {
    const cur = await this.users.byId(id);
    if (!cur) throw fail('user_not_found', { id });
    this.checkManage(actor, cur.role, input.role);
    if (actor && actor.id === id && ((input.role !== undefined && input.role !== cur.role) || input.status === 2)) {
      throw fail('forbidden', 'you cannot change your own role or disable yourself');
    }
    if (cur.role === 'root' && ((input.role && input.role !== 'root') || input.status === 2)) await this.assertAnotherRoot(id);
    checkBudgetPair(cur, input);
    const set: Partial<Record<keyof UserRow, unknown>> = {};
    if (input.username !== undefined && input.username !== cur.username) set.username = input.username;
    if (input.display_name !== undefined) set.display_name = input.display_name;
    if (input.role !== undefined) set.role = input.role;
    if (input.group !== undefined) set.group_name = input.group;
    if (input.status !== undefined) set.status = input.status;
    for (const [col, v] of Object.entries(limitColumns(input, false))) {
      const was = cur[col as keyof typeof cur];
      if (was === null ? v !== null : String(was) !== String(v)) set[col as keyof UserRow] = v;
    }
    if (input.password !== undefined) {
      // A new password ends every credential issued under the old one: the access token here, sessions below.
      set.password_hash = await hashPassword(input.password);
      set.access_token_hash = null;
    }
    if (Object.keys(set).length === 0) return this.get(id);
    set.updated_at = Date.now();
    try {
      await this.users.update(id, set as any);
    } catch (e) {
      if (isUniqueViolation(e)) throw fail('user_exists', `username: a user named "${input.username}" already exists`);
      throw e;
    }
    if (input.password !== undefined || input.status === 2) {
      await this.users.removeSessionsOf(id);
    }
    await this.changes.changed('keys');
    const after = await this.get(id);
    // The password itself never reaches the record: only that it changed.
    const { updated_at: _b, ...before } = this.view(cur);
    const { updated_at: _a, ...now } = after;
    await this.audit?.record(
      actor,
      'user.update',
      { type: 'user', id },
      { ...before, password: input.password !== undefined ? 'old' : undefined },
      { ...now, password: input.password !== undefined ? 'new' : undefined },
    );
    return after;
  }

  private async assertAnotherRoot(id: number): Promise<void> {
    if (!(await this.users.hasAnotherEnabledRoot(id)))
      throw fail('forbidden', 'the last enabled root account cannot be demoted or disabled');
  }

  /**
   * Adds `amount` quota units (negative to take some away; never below zero), or sets the balance.
   * A ledger row of kind `topup` (additions) or `adjust` (deductions, set) commits with the change.
   */
  async changeQuota(
    id: number,
    change: { mode: 'add' | 'set'; amount: number; reason?: string },
    actor: Actor,
    ref?: string,
  ): Promise<UserView> {
    const cur = await this.users.byId(id);
    if (!cur) throw fail('user_not_found', { id });
    this.checkManage(actor, cur.role);
    const amount = Math.round(change.amount);
    const ledgerRef = ref ?? `admin_${randomId(20)}`;
    let delta = amount;
    if (change.mode === 'set') {
      if (amount < 0) throw fieldError('amount', 'must be at least 0');
      const row = (await this.users.byId(id))!;
      delta = amount - Number(row.quota);
    }
    if (delta !== 0) {
      try {
        await this.ledger().adjust(id, ledgerRef, delta, delta > 0 && change.mode === 'add' ? 'topup' : 'adjust');
      } catch (e) {
        if (e instanceof GatewayError && e.code === 'insufficient_quota') throw fieldError('amount', 'would make the balance negative');
        throw e;
      }
      // The change with its reason, in the user's logs (type topup; the ledger row has the same ref).
      const usd = quotaToUsd(delta, this.core.config.quotaPerUsd);
      await insertLogs(this.core.h, [
        topupLog({
          at: Date.now(),
          ref: ledgerRef,
          userId: id,
          username: cur.username,
          group: cur.group_name,
          quota: delta,
          content: change.reason || `${delta > 0 ? 'top-up' : 'deduction'} of $${Math.abs(usd)} by ${actor?.username ?? 'the system'}`,
          other: { by: actor?.username ?? null, mode: change.mode },
        }),
      ]);
    }
    const after = await this.get(id);
    if (delta !== 0) {
      await this.audit?.record(
        actor,
        delta > 0 && change.mode === 'add' ? 'user.topup' : 'user.adjust',
        { type: 'user', id },
        { quota: after.quota - delta },
        { quota: after.quota, mode: change.mode, amount: amount, reason: change.reason || undefined, ledger_ref: ledgerRef },
      );
    }
    return after;
  }

  /**
   * A user's ledger, newest first: every movement of their balance (reserves, settles, refunds,
   * top-ups, adjustments, task charges) with the reason of top-ups and adjustments when one was given.
   */
  async ledgerHistory(id: number, q: { page: number; pageSize: number; offset: number }, actor: Actor): Promise<Page<LedgerEntryView>> {
    const cur = await this.users.byId(id);
    if (!cur) throw fail('user_not_found', { id });
    this.checkManage(actor, cur.role);
    const { rows, total } = await this.ledger().history(id, q.pageSize, q.offset);
    const refs = rows.filter((r) => r.kind === 'topup' || r.kind === 'adjust').map((r) => r.ref);
    const notes = new Map<string, string>();
    if (refs.length) {
      const logs = await topupNotes(this.core.h, refs);
      for (const l of logs) if (l.content) notes.set(l.request_id, l.content);
    }
    const perUsd = this.core.config.quotaPerUsd;
    return {
      items: rows.map((r) => ({
        id: Number(r.id),
        ref: r.ref,
        kind: r.kind,
        key_id: r.key_id === null ? null : Number(r.key_id),
        // Ledger amounts are taken from the user (positive); the view shows the change of the balance.
        change: -Number(r.amount),
        change_usd: quotaToUsd(-Number(r.amount), perUsd),
        note: notes.get(r.ref) ?? null,
        created_at: Number(r.created_at),
      })),
      total,
      page: q.page,
      page_size: q.pageSize,
    };
  }

  /** Deletes a user with their keys, sessions, e-mail address and second factors; ledger rows and logs stay for the record. */
  async remove(id: number, actor: Actor): Promise<void> {
    const cur = await this.users.byId(id);
    if (!cur) throw fail('user_not_found', { id });
    this.checkManage(actor, cur.role);
    if (actor && actor.id === id) throw fail('forbidden', 'you cannot delete yourself');
    if (cur.role === 'root') await this.assertAnotherRoot(id);
    await withTx(this.core.h, async (tx) => {
      await new KeyStore(this.core.h).removeOfUser(id, tx);
      await this.users.removeSessionsOf(id, tx);
      // Its e-mail address (free for another account) and mailed links.
      await this.users.removeEmailOf(id, tx);
      await this.users.removeTokensOf(id, tx);
      // Second factors and logins in progress (docs/two-factor.md).
      await new PasskeyStore(this.core.h).removeOfUser(id, tx);
      await new TwoFactor(this.core).removeOfUser(id, tx);
      await this.users.remove(id, tx);
      await this.changes.inTx('keys', tx);
    });
    await this.changes.committed('keys');
    await this.audit?.record(actor, 'user.delete', { type: 'user', id }, this.view(cur), null);
  }
}
