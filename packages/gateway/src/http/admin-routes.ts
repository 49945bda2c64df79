/**
 * The admin API under /api/: users, API keys (/api/token),
 * logs (with CSV export), usage reports, the audit log (/api/audit), and the OpenAPI document. Envelope {success, message, data}; lists put {items, total, page,
 * page_size} in data. Thin: decode, call services.admin, encode. Each route declares its schemas
 * (http/schemas/admin.ts, admin-logs.ts); the bodies of users and keys are read by their services.
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireKey, requireUser } from './auth.ts';
import { ROLE_RANK } from '../accounts/types.ts';
import { Reader, fieldError, paging, usdToQuota, type Obj } from '../platform/validate.ts';
import { buildRouteValidator, openApiDocument } from './route-docs.ts';
import { parseUsageQuery } from '../logs/usage.ts';
import { ok } from './envelope.ts';
import { Envelope, IdParams, PAGING, Paged, adminErrors, loggedIn, ref } from './schemas/common.ts';
import {
  ADMIN_SCHEMAS,
  AuditEntry,
  AuditQuery,
  CallbackSecret,
  ChildKeyInput,
  Key,
  KeyInput,
  KeyListQuery,
  LedgerEntry,
  NewKey,
  QuotaChange,
  QuotaHold,
  User,
  UserCreate,
  UserListQuery,
  UserUpdate,
} from './schemas/admin.ts';
import { CsvAnswer, LogExportQuery, LogPage, LogQuery, UsageQuery, UsageReport } from './schemas/admin-logs.ts';

/** An operation of `tag`, behind a login (`(admin)` in the summary: admins only), its answer and error answers. */
const op = <D extends TSchema, M extends object = object>(tag: string, summary: string, data: D, more?: M, role?: 'admin') => ({
  tags: [tag],
  summary: role ? `${summary} (${role})` : summary,
  security: loggedIn,
  ...(more as M),
  response: { 200: Envelope(data), ...adminErrors },
});

/** A CSV export: its answer is text/csv. */
const csvOp = <M extends object>(tag: string, summary: string, more: M, role?: 'admin') => ({
  tags: [tag],
  summary: role ? `${summary} (${role})` : summary,
  security: loggedIn,
  ...more,
  response: { 200: CsvAnswer, 400: adminErrors[400], 401: adminErrors[401], 403: adminErrors[403], 404: adminErrors[404] },
});

export async function adminRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const admin = deps.services.admin;
  const anyUser = { onRequest: requireUser(deps, 'user') };
  const adminOnly = { onRequest: requireUser(deps, 'admin') };
  const isAdmin = (role: keyof typeof ROLE_RANK) => ROLE_RANK[role] >= ROLE_RANK.admin;

  await app.register(async (root) => {
    root.setErrorHandler(familyErrorHandler('admin'));
    for (const s of ADMIN_SCHEMAS) root.addSchema(s);
    const api = root.withTypeProvider<TypeBoxTypeProvider>();
    // The bodies of users and keys are read by their services (admin/users.ts, admin/keys.ts), whose
    // messages name the field the tests and the console show: their schemas describe, the rest validates.
    const validate = buildRouteValidator(root.getSchemas());
    const serviceReadsBody = {
      validatorCompiler: ({ schema, httpPart }: { schema: unknown; httpPart?: string }) =>
        httpPart === 'body' ? () => true : validate({ schema, httpPart }),
    };

    api.get('/api/openapi.json', async (req) => openApiDocument(app, admin.options.publicUrl() || `${req.protocol}://${req.host}`));

    // ---- users (admin) ----
    api.get(
      '/api/user',
      { ...adminOnly, schema: op('users', 'List users', Paged(ref(User)).properties.data, { querystring: UserListQuery }, 'admin') },
      async (req) => {
        const r = new Reader(req.query as Obj);
        return ok(
          await admin.users.list({
            ...paging(req.query as Obj),
            keyword: r.str('keyword', { max: 64 }),
            role: r.oneOf('role', ['user', 'admin', 'root']),
            status: r.oneOf('status', ['enabled', 'disabled']),
            group: r.str('group', { max: 64 }),
          }),
        );
      },
    );
    api.post(
      '/api/user',
      { ...adminOnly, ...serviceReadsBody, schema: op('users', 'Create a user', ref(User), { body: ref(UserCreate) }, 'admin') },
      async (req) => ok(await admin.users.create(admin.users.parse(req.body, 'create'), req.user)),
    );
    api.get('/api/user/:id', { ...adminOnly, schema: op('users', 'One user', ref(User), { params: IdParams }, 'admin') }, async (req) =>
      ok(await admin.users.get(req.params.id)),
    );
    api.put(
      '/api/user/:id',
      {
        ...adminOnly,
        ...serviceReadsBody,
        schema: op(
          'users',
          'Update role, group, status, password, display name',
          ref(User),
          { params: IdParams, body: ref(UserUpdate) },
          'admin',
        ),
      },
      async (req) => ok(await admin.users.update(req.params.id, admin.users.parse(req.body, 'update'), req.user)),
    );
    api.delete(
      '/api/user/:id',
      { ...adminOnly, schema: op('users', 'Delete a user and their keys', Type.Null(), { params: IdParams }, 'admin') },
      async (req) => {
        await admin.users.remove(req.params.id, req.user);
        return ok(null, 'user deleted');
      },
    );
    api.post(
      '/api/user/:id/quota',
      {
        ...adminOnly,
        ...serviceReadsBody,
        schema: op(
          'users',
          'Top up, deduct or set the balance (writes a ledger row)',
          ref(User),
          { params: IdParams, body: ref(QuotaChange) },
          'admin',
        ),
      },
      async (req) => {
        const r = Reader.of(req.body).only(['mode', 'amount', 'amount_usd', 'reason']);
        const mode = r.oneOf('mode', ['add', 'set']) ?? 'add';
        const reason = r.str('reason', { max: 500 });
        const units = r.num('amount', { int: true, min: -1e15, max: 1e15 });
        const usd = r.num('amount_usd', { min: -1e9, max: 1e9 });
        if (units === undefined && usd === undefined) throw fieldError('amount', 'give amount (quota units) or amount_usd');
        const amount = units ?? usdToQuota(usd!, deps.core.config.quotaPerUsd);
        return ok(await admin.users.changeQuota(req.params.id, { mode, amount, reason }, req.user));
      },
    );
    api.get(
      '/api/user/:id/ledger',
      {
        ...adminOnly,
        schema: op(
          'users',
          "The user's ledger, newest first: every movement of the balance, with the reason of top-ups and adjustments",
          Paged(ref(LedgerEntry)).properties.data,
          { params: IdParams, querystring: Type.Object(PAGING) },
          'admin',
        ),
      },
      async (req) => ok(await admin.users.ledgerHistory(req.params.id, paging(req.query as Obj), req.user)),
    );

    // ---- API keys (users: their own; admins: also others) ----
    api.get(
      '/api/token',
      {
        ...anyUser,
        schema: op('keys', 'List API keys (your own; admins: ?all=true or ?user_id=)', Paged(ref(Key)).properties.data, {
          querystring: KeyListQuery,
        }),
      },
      async (req) => {
        const qq = req.query as Obj;
        const r = new Reader(qq);
        let userId: number | undefined = req.user!.id;
        if (isAdmin(req.user!.role)) {
          if (r.bool('all')) userId = undefined;
          else if (qq.user_id !== undefined) userId = r.num('user_id', { int: true, min: 1 });
        }
        return ok(await admin.keys.list({ ...paging(qq), userId, keyword: r.str('keyword', { max: 128 }) }));
      },
    );
    api.post(
      '/api/token',
      {
        ...anyUser,
        ...serviceReadsBody,
        schema: op('keys', 'Create an API key; the full key is in data.key, shown once', NewKey, { body: ref(KeyInput) }),
      },
      async (req) => {
        const input = admin.keys.parse(req.body, 'create');
        const made = await admin.keys.create(input, req.user);
        return ok(made, 'the key is shown once: store it now');
      },
    );
    api.get('/api/token/:id', { ...anyUser, schema: op('keys', 'One API key', ref(Key), { params: IdParams }) }, async (req) =>
      ok(await admin.keys.get(req.params.id, req.user)),
    );
    api.put(
      '/api/token/:id',
      { ...anyUser, ...serviceReadsBody, schema: op('keys', 'Update an API key', ref(Key), { params: IdParams, body: ref(KeyInput) }) },
      async (req) => ok((await admin.keys.update(req.params.id, admin.keys.parse(req.body, 'update'), req.user)).view),
    );
    api.delete(
      '/api/token/:id',
      { ...anyUser, schema: op('keys', 'Delete (revoke) an API key', Type.Null(), { params: IdParams }) },
      async (req) => {
        await admin.keys.remove(req.params.id, req.user);
        return ok(null, 'key deleted');
      },
    );
    // A key mints a child key, authenticated by the parent key itself as Bearer.
    api.post(
      '/api/token/:id/children',
      {
        onRequest: requireKey(deps),
        ...serviceReadsBody,
        schema: {
          tags: ['keys'],
          summary:
            "Mint a child key, authenticated by the parent key itself as Bearer; its ceiling is taken out of the parent's remaining ceiling; the full key is in data.key, shown once",
          security: [{ apiKey: [] }],
          params: IdParams,
          body: ref(ChildKeyInput),
          response: {
            200: Envelope(NewKey),
            400: adminErrors[400],
            401: { ...adminErrors[401], description: 'invalid API key' },
            403: adminErrors[403],
            404: adminErrors[404],
            429: { ...adminErrors[403], description: "the key's user is over their request limit" },
          },
        },
      },
      async (req) => ok(await admin.keys.createChild(req.params.id, req.principal!, req.body), 'the key is shown once: store it now'),
    );
    api.post(
      '/api/token/:id/callback-secret',
      {
        ...anyUser,
        schema: op(
          'keys',
          'Make a new task callback signing secret for the key (the old one stops signing at once); shown only in this answer',
          ref(CallbackSecret),
          { params: IdParams },
        ),
      },
      async (req) => ok(await admin.keys.rotateCallbackSecret(req.params.id, req.user), 'the callback secret is shown once: store it now'),
    );

    // ---- audit log (admin) ----
    api.get(
      '/api/audit',
      {
        ...adminOnly,
        schema: op(
          'audit',
          'The audit log of administrative writes, newest first',
          Paged(ref(AuditEntry)).properties.data,
          { querystring: AuditQuery },
          'admin',
        ),
      },
      async (req) => ok(await admin.audit.list(admin.audit.parseQuery(req.query as Obj), admin.names)),
    );

    // ---- quota holds (QuotaAllowanceEnabled) ----
    api.get(
      '/api/quota/holds',
      {
        ...adminOnly,
        schema: op(
          'options',
          'Open quota holds of every node (QuotaAllowanceEnabled): what each has taken, spent and still holds',
          Type.Array(ref(QuotaHold)),
          {},
          'admin',
        ),
      },
      async () => ok(await deps.services.billing.ledger.openHolds()),
    );

    // ---- logs ----
    api.get(
      '/api/log',
      {
        ...adminOnly,
        schema: op(
          'logs',
          'Query logs with totals for the filter (newest first, keyset pages)',
          ref(LogPage),
          { querystring: LogQuery(false) },
          'admin',
        ),
      },
      async (req) => {
        const p = admin.logs.parseQuery(req.query as Obj, false);
        return ok(await admin.logs.query(p.filter, p, false));
      },
    );
    api.get(
      '/api/log/self',
      {
        ...anyUser,
        schema: op('logs', 'Your own logs (same filters except user and channel; no channel or upstream model in the rows)', ref(LogPage), {
          querystring: LogQuery(true),
        }),
      },
      async (req) => {
        const p = admin.logs.parseQuery(req.query as Obj, true);
        return ok(await admin.logs.query({ ...p.filter, userId: req.user!.id }, p, true));
      },
    );
    const csv = (reply: FastifyReply, name: string, body: Readable) =>
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`)
        .header('cache-control', 'no-store')
        .send(body);
    api.get(
      '/api/log/export',
      {
        ...adminOnly,
        schema: csvOp(
          'logs',
          'The logs of a filter as CSV (newest first), streamed: Content-Disposition attachment',
          { querystring: LogExportQuery(false) },
          'admin',
        ),
      },
      async (req, reply) => csv(reply, 'logs', admin.logs.exportCsv(admin.logs.parseQuery(req.query as Obj, false).filter, false)),
    );
    api.get(
      '/api/log/self/export',
      { ...anyUser, schema: csvOp('logs', 'Your own logs as CSV (streamed)', { querystring: LogExportQuery(true) }) },
      async (req, reply) => {
        const p = admin.logs.parseQuery(req.query as Obj, true);
        return csv(reply, 'my-logs', admin.logs.exportCsv({ ...p.filter, userId: req.user!.id }, true));
      },
    );

    // ---- usage (dashboard) ----
    api.get(
      '/api/usage',
      {
        ...adminOnly,
        schema: op(
          'usage',
          'Usage report for the dashboard: totals, a series in hour or day buckets, top groups by quota (from hourly roll-ups; ranges are whole hours)',
          ref(UsageReport),
          { querystring: UsageQuery(false) },
          'admin',
        ),
      },
      async (req) => ok(await admin.usage.query(parseUsageQuery(req.query as Obj, false))),
    );
    api.get(
      '/api/usage/self',
      {
        ...anyUser,
        schema: op('usage', 'Your own usage report (same shape; no user or channel filter, group_by model or key)', ref(UsageReport), {
          querystring: UsageQuery(true),
        }),
      },
      async (req) => {
        const p = parseUsageQuery(req.query as Obj, true);
        // A user's own report leaves out what the calls cost the operator upstream.
        return ok(await admin.usage.query({ ...p, filter: { ...p.filter, userId: req.user!.id } }, false));
      },
    );
  });
}
