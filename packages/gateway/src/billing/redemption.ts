/**
 * Redemption codes: admins create them in batches (an amount, a count, an optional expiry and note),
 * list, disable, delete and export them; a user redeems one and its amount is credited exactly once.
 *
 * A code is 32 random hex characters (128 bits, node:crypto). It is found by its SHA-256
 * (`code_hash`); its text is kept sealed with core.secrets so that admins can list and export it, and
 * it is never written to the process log. Redeeming is one ledger movement (Ledger.redeemCode): the
 * code's status changes enabled → used under a condition and the `topup` row (ref: the code) is
 * written in the same transaction, so of many concurrent redemptions on any number of nodes exactly
 * one credits.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Selectable } from 'kysely';
import type { Core } from '../core.ts';
import type { Ledger } from './ledger.ts';
import type { RedemptionRow } from '../store/schema-core.ts';
import { fail } from '../platform/errors.ts';
import { csvLine } from '../logs/csv.ts';
import { insertLogs, topupLog } from '../logs/writer.ts';
import { Reader, fieldError, quotaToUsd, usdToQuota, type Page } from '../platform/validate.ts';
import { AuditLog, type AuditActor } from '../logs/audit.ts';
import { withTx, type Tx } from '../store/db.ts';

export type CodeStatus = 'enabled' | 'disabled' | 'used' | 'expired';
export const CODE_STATUSES: CodeStatus[] = ['enabled', 'disabled', 'used', 'expired'];
const STATUS_NUM = { enabled: 1, disabled: 2, used: 3 } as const;

/** Most codes one request may create. */
export const MAX_BATCH = 1000;

export interface RedemptionView {
  id: number;
  name: string;
  note: string;
  /** The code in full (admins only). */
  code: string;
  quota: number;
  quota_usd: number;
  status: CodeStatus;
  created_by: number | null;
  created_at: number;
  /** Unix ms; 0 = never. */
  expires_at: number;
  used_user_id: number | null;
  redeemed_at: number | null;
  /** A code that grants this plan (billing/plans.ts) instead of a credit; null: a credit. */
  plan_id: number | null;
}

export interface BatchInput {
  name: string;
  note: string;
  quota: number;
  count: number;
  /** Unix ms; 0 = never. */
  expiresAt: number;
  /** The plan (id or name) each code grants instead of a credit. */
  plan?: string | number;
}

/** What redemption codes need of the plans (billing/plans.ts): a code may grant one. */
export interface PlanGrants {
  idOf(ref: unknown): Promise<number>;
  grantInTx(tx: Tx, userId: number, planId: number): Promise<void>;
  granted(): Promise<void>;
}

export interface CodeQuery {
  page: number;
  pageSize: number;
  offset: number;
  status?: CodeStatus;
  /** Part of the name, or a whole code. */
  keyword?: string;
}

export interface Redeemed {
  quota: number;
  quota_usd: number;
  /** The balance after the credit. */
  balance: number;
  /** The plan the code granted, if it grants one (then `quota` is 0). */
  plan_id?: number;
}

const CODE_RE = /^[0-9a-f]{32}$/;

export function normaliseCode(raw: string): string {
  return raw.trim().toLowerCase();
}

export function hashCode(code: string): string {
  return createHash('sha256').update(normaliseCode(code)).digest('hex');
}

const invalid = () => fail('invalid_code', 'this redemption code does not exist');

/**
 * Whether the code's creator (null: made by the system) could top up user `userId` directly — the
 * administration's rule (only root tops up admins and root), given by the composition root.
 */
export type MayCredit = (creatorId: number | null, userId: number) => Promise<boolean>;

export class RedemptionCodes {
  private readonly audit: AuditLog;

  constructor(
    private readonly core: Core,
    private readonly ledger: () => Ledger,
    private readonly mayCredit: MayCredit,
  ) {
    this.audit = new AuditLog(core);
  }

  /** The plans a code may grant (set by the composition root). */
  plans: PlanGrants | null = null;

  private get db() {
    return this.core.h.db;
  }

  private statusOf(r: Pick<Selectable<RedemptionRow>, 'status' | 'expires_at'>, now = Date.now()): CodeStatus {
    const s = Number(r.status);
    if (s === 3) return 'used';
    if (s === 2) return 'disabled';
    const exp = Number(r.expires_at);
    return exp > 0 && exp <= now ? 'expired' : 'enabled';
  }

  view(r: Selectable<RedemptionRow>): RedemptionView {
    return {
      id: Number(r.id),
      name: r.name,
      note: r.note,
      code: this.core.secrets.open(r.code_sealed),
      quota: Number(r.quota),
      quota_usd: quotaToUsd(Number(r.quota), this.core.config.quotaPerUsd),
      status: this.statusOf(r),
      created_by: r.created_by === null ? null : Number(r.created_by),
      created_at: Number(r.created_at),
      expires_at: Number(r.expires_at),
      used_user_id: r.used_user_id === null ? null : Number(r.used_user_id),
      redeemed_at: r.redeemed_at === null ? null : Number(r.redeemed_at),
      plan_id: r.plan_id === null || r.plan_id === undefined ? null : Number(r.plan_id),
    };
  }

  /**
   * Reads a batch request: `name`, `quota` (units) or `quota_usd`, `count` (1…1000, default 1),
   * `expired_time` (unix seconds, as New API; 0 or absent = never) or `expires_at` (unix ms), `note`.
   */
  parseBatch(raw: unknown, now = Date.now()): BatchInput {
    const r = Reader.of(raw).only(['name', 'quota', 'quota_usd', 'count', 'expired_time', 'expires_at', 'note', 'plan_id']);
    const plan = raw && typeof raw === 'object' ? (raw as { plan_id?: unknown }).plan_id : undefined;
    if (plan !== undefined && plan !== null && typeof plan !== 'string' && typeof plan !== 'number')
      throw fieldError('plan_id', 'must be a plan id or name');
    const name = r.str('name', { required: true, max: 128 })!;
    const note = r.str('note', { max: 500 }) ?? '';
    const units = r.num('quota', { int: true, min: 1, max: 1e15 });
    const usd = r.num('quota_usd', { min: 0, max: 1e9 });
    const grantsPlan = plan !== undefined && plan !== null && plan !== '';
    if (units === undefined && usd === undefined && !grantsPlan) throw fieldError('quota', 'is required (quota units, or quota_usd)');
    const quota = grantsPlan ? 0 : (units ?? usdToQuota(usd!, this.core.config.quotaPerUsd));
    if (quota < 1 && !grantsPlan) throw fieldError('quota_usd', 'is less than one quota unit');
    const count = r.num('count', { int: true, min: 1, max: MAX_BATCH }) ?? 1;
    const sec = r.num('expired_time', { int: true, min: 0, max: 1e11 });
    const ms = r.num('expires_at', { int: true, min: 0, max: 1e14 });
    const expiresAt = ms ?? (sec ? sec * 1000 : 0);
    if (expiresAt !== 0 && expiresAt <= now)
      throw fieldError(ms !== undefined ? 'expires_at' : 'expired_time', 'must be in the future (or 0 for never)');
    return { name, note, quota, count, expiresAt, ...(grantsPlan ? { plan: plan as string | number } : {}) };
  }

  /** Creates `count` codes; returns them (shown in full once here, and to admins in lists). */
  async create(input: BatchInput, actor: AuditActor): Promise<RedemptionView[]> {
    const actorId = actor?.id ?? null;
    const now = Date.now();
    let planId: number | null = null;
    if (input.plan !== undefined) {
      if (!this.plans) throw fieldError('plan_id', 'plans are not available');
      planId = await this.plans.idOf(input.plan);
    }
    const rows = Array.from({ length: input.count }, () => {
      const code = randomBytes(16).toString('hex');
      return {
        name: input.name,
        note: input.note,
        code_hash: hashCode(code),
        code_sealed: this.core.secrets.seal(code),
        quota: input.quota,
        status: 1,
        created_by: actorId,
        created_at: now,
        expires_at: input.expiresAt,
        used_user_id: null,
        redeemed_at: null,
        plan_id: planId,
      };
    });
    const hashes = rows.map((r) => r.code_hash);
    for (let i = 0; i < rows.length; i += 200)
      await this.db
        .insertInto('redemptions')
        .values(rows.slice(i, i + 200))
        .execute();
    const made = await this.db.selectFrom('redemptions').selectAll().where('code_hash', 'in', hashes).orderBy('id').execute();
    const views = made.map((r) => this.view(r));
    // One record per batch: the ids made, never the codes.
    await this.audit.record(
      actor,
      'redemption.create',
      { type: 'redemption', id: views.length ? `${views[0].id}-${views[views.length - 1].id}` : '-' },
      null,
      {
        name: input.name,
        note: input.note,
        quota: input.quota,
        count: views.length,
        expires_at: input.expiresAt,
        ids: views.map((v) => v.id),
      },
    );
    return views;
  }

  private filtered(q: Omit<CodeQuery, 'page' | 'pageSize' | 'offset'>, now: number) {
    let base = this.db.selectFrom('redemptions');
    if (q.status === 'used') base = base.where('status', '=', 3);
    else if (q.status === 'disabled') base = base.where('status', '=', 2);
    else if (q.status === 'enabled')
      base = base.where('status', '=', 1).where((eb) => eb.or([eb('expires_at', '=', 0), eb('expires_at', '>', now)]));
    else if (q.status === 'expired') base = base.where('status', '=', 1).where('expires_at', '>', 0).where('expires_at', '<=', now);
    if (q.keyword) {
      const kw = q.keyword;
      const like = `%${kw.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
      const byCode = CODE_RE.test(normaliseCode(kw)) ? hashCode(kw) : null;
      base = base.where((eb) => (byCode ? eb.or([eb('name', 'like', like), eb('code_hash', '=', byCode)]) : eb('name', 'like', like)));
    }
    return base;
  }

  /** Newest first, filtered by status and by a part of the name (or a whole code). */
  async list(q: CodeQuery): Promise<Page<RedemptionView>> {
    const now = Date.now();
    const base = this.filtered(q, now);
    const [rows, total] = await Promise.all([
      base.selectAll().orderBy('id', 'desc').limit(q.pageSize).offset(q.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map((r) => this.view(r)), total: Number(total.n), page: q.page, page_size: q.pageSize };
  }

  async get(id: number): Promise<RedemptionView> {
    const r = await this.db.selectFrom('redemptions').selectAll().where('id', '=', id).executeTakeFirst();
    if (!r) throw fail('code_not_found', { id });
    return this.view(r);
  }

  /** Enables or disables an unused code (a used code stays used: 409). */
  async setStatus(id: number, status: 'enabled' | 'disabled', actor: AuditActor = null): Promise<RedemptionView> {
    const before = await this.db.selectFrom('redemptions').select(['status', 'expires_at']).where('id', '=', id).executeTakeFirst();
    const res = await this.db
      .updateTable('redemptions')
      .set({ status: STATUS_NUM[status] })
      .where('id', '=', id)
      .where('status', 'in', [1, 2])
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) {
      await this.get(id); // 404 when missing
      throw fail('code_redeemed');
    }
    const after = await this.get(id);
    await this.audit.record(
      actor,
      'redemption.status',
      { type: 'redemption', id },
      { status: before ? this.statusOf(before) : null },
      { status: after.status },
    );
    return after;
  }

  /** Deletes a code (a used one too: its ledger row stays for the record). */
  async remove(id: number, actor: AuditActor = null): Promise<void> {
    const cur = await this.db.selectFrom('redemptions').selectAll().where('id', '=', id).executeTakeFirst();
    const res = await this.db.deleteFrom('redemptions').where('id', '=', id).executeTakeFirst();
    if (!cur || Number(res.numDeletedRows) !== 1) throw fail('code_not_found', { id });
    const { code: _c, ...before } = this.view(cur);
    await this.audit.record(actor, 'redemption.delete', { type: 'redemption', id }, before, null);
  }

  /** The codes matching a filter as CSV, newest first, read in pages. */
  exportCsv(q: Omit<CodeQuery, 'page' | 'pageSize' | 'offset'>): Readable {
    const cols = [
      'id',
      'name',
      'code',
      'quota',
      'quota_usd',
      'status',
      'note',
      'created_at',
      'expires_at',
      'used_user_id',
      'redeemed_at',
    ] as const;
    const iso = (ms: number | null) => (ms ? new Date(ms).toISOString() : '');
    const page = (before: number) =>
      this.filtered(q, Date.now()).selectAll().where('id', '<', before).orderBy('id', 'desc').limit(500).execute();
    const view = (r: Selectable<RedemptionRow>) => this.view(r);
    async function* lines(): AsyncGenerator<string> {
      yield csvLine(cols);
      let before = Number.MAX_SAFE_INTEGER;
      for (;;) {
        const rows = await page(before);
        let chunk = '';
        for (const r of rows) {
          const v = view(r);
          chunk += csvLine([
            v.id,
            v.name,
            v.code,
            v.quota,
            v.quota_usd,
            v.status,
            v.note,
            iso(v.created_at),
            iso(v.expires_at),
            v.used_user_id,
            iso(v.redeemed_at),
          ]);
        }
        if (chunk) yield chunk;
        if (rows.length < 500) return;
        before = Number(rows[rows.length - 1].id);
      }
    }
    return Readable.from(lines(), { objectMode: false });
  }

  /**
   * Redeems `rawCode` for `userId`. 400 with a code saying why when it cannot be redeemed:
   * `invalid_code` (no such code: counts as a guess), `code_used`, `code_disabled`, `code_expired`;
   * 403 when its creator could not have topped up this account directly (an admin's code for an
   * admin or root): the code stays unused.
   */
  async redeem(userId: number, rawCode: string): Promise<Redeemed> {
    const { code, r, now } = await this.redeemable(rawCode);
    if (!(await this.mayCredit(r.created_by === null ? null : Number(r.created_by), userId)))
      throw fail('forbidden', 'this code cannot credit this account: only root may top up admin and root accounts');
    const quota = Number(r.quota);
    const planId = r.plan_id === null || r.plan_id === undefined ? null : Number(r.plan_id);
    const plans = this.plans;
    const ok =
      planId !== null && plans
        ? // A code that grants a plan: claimed and granted in one transaction.
          await withTx(this.core.h, async (tx) => {
            if (!(await this.ledger().claimCodeInTx(tx, userId, Number(r.id), now))) return false;
            await plans.grantInTx(tx, userId, planId);
            return true;
          }).then(async (done) => {
            if (done) await plans.granted();
            return done;
          })
        : await this.ledger().redeemCode(userId, Number(r.id), code, quota, now);
    if (!ok) await this.lostClaim(Number(r.id), now);
    const user = await this.ledger().creditedUser(userId);
    if (!user) throw new Error(`no user with id ${userId}`);
    // The credit in the user's logs (type topup; the ledger row has the same ref).
    await insertLogs(this.core.h, [
      topupLog({
        at: now,
        ref: code,
        userId,
        username: user.username,
        group: user.group_name,
        quota,
        content: `redemption code "${r.name}"`,
        other: { redemption_id: Number(r.id) },
      }),
    ]);
    // A top-up: recorded with the user who redeemed as the actor (the code itself never).
    await this.audit.record(
      { id: userId, username: user.username, role: user.role, group: user.group_name },
      'redemption.redeem',
      { type: 'redemption', id: Number(r.id) },
      { status: 'enabled', balance: Number(user.quota) - quota },
      { status: 'used', used_user_id: userId, quota, balance: Number(user.quota) },
    );
    return {
      quota,
      quota_usd: quotaToUsd(quota, this.core.config.quotaPerUsd),
      balance: Number(user.quota),
      ...(planId !== null ? { plan_id: planId } : {}),
    };
  }

  /**
   * Redeems `rawCode` into team `teamId`'s wallet, by member `actor` (the route checks their role).
   * Refusals as `redeem`; a code that grants a plan is refused (a plan is held by a person) and stays
   * unused. The balance answered is the team's.
   */
  async redeemForTeam(actor: AuditActor & { id: number }, teamId: number, rawCode: string): Promise<Redeemed> {
    const { code, r, now } = await this.redeemable(rawCode);
    if (r.plan_id !== null && r.plan_id !== undefined)
      throw fieldError('key', 'this code grants a plan, which a person holds: redeem it on your own account');
    const quota = Number(r.quota);
    if (!(await this.ledger().redeemCodeForTeam(teamId, actor.id, Number(r.id), code, quota, now))) await this.lostClaim(Number(r.id), now);
    const balance = await this.ledger().available({ userId: actor.id, keyId: null, unlimitedKey: true, teamId });
    await this.audit.record(
      actor,
      'redemption.redeem',
      { type: 'redemption', id: Number(r.id) },
      { status: 'enabled' },
      { status: 'used', used_user_id: actor.id, team_id: teamId, quota, balance },
    );
    return { quota, quota_usd: quotaToUsd(quota, this.core.config.quotaPerUsd), balance };
  }

  /** The code's row if it can be redeemed now; `invalid_code` (a guess) or why it cannot. */
  private async redeemable(rawCode: string) {
    const code = normaliseCode(rawCode);
    if (!CODE_RE.test(code)) throw invalid();
    const r = await this.db.selectFrom('redemptions').selectAll().where('code_hash', '=', hashCode(code)).executeTakeFirst();
    if (!r) throw invalid();
    const now = Date.now();
    this.refuse(this.statusOf(r, now));
    return { code, r, now };
  }

  /** Another request (or node) claimed the code first, or it was disabled meanwhile: says which. */
  private async lostClaim(id: number, now: number): Promise<never> {
    const again = await this.db.selectFrom('redemptions').select(['status', 'expires_at']).where('id', '=', id).executeTakeFirst();
    this.refuse(again ? this.statusOf(again, now) : 'used');
    throw fail('code_used');
  }

  private refuse(s: CodeStatus): void {
    if (s === 'used') throw fail('code_used');
    if (s === 'disabled') throw fail('code_disabled');
    if (s === 'expired') throw fail('code_expired');
  }
}
