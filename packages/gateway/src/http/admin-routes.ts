/**
 * The admin API under /api/: users, API keys (/api/token),
 * logs (with CSV export), usage reports, the audit log (/api/audit), and the OpenAPI document. Envelope {success, message, data}; lists put {items, total, page,
 * page_size} in data. Thin: decode, call services.admin, encode.
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireKey, requireUser } from './auth.ts';
import { ROLE_RANK } from '../accounts/types.ts';
import { Reader, fieldError, paging, parseId, usdToQuota, type Obj } from '../platform/validate.ts';
import { openApiDocument } from './route-docs.ts';
import { parseUsageQuery } from '../logs/usage.ts';
import { ok } from './envelope.ts';

export async function adminRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const admin = deps.services.admin;
  const anyUser = { onRequest: requireUser(deps, 'user') };
  const adminOnly = { onRequest: requireUser(deps, 'admin') };
  const q = (req: FastifyRequest) => (req.query ?? {}) as Obj;
  const idOf = (req: FastifyRequest) => parseId((req.params as { id: string }).id);
  const isAdmin = (req: FastifyRequest) => ROLE_RANK[req.user!.role] >= ROLE_RANK.admin;

  await app.register(async (api) => {
    api.setErrorHandler(familyErrorHandler('admin'));

    api.get('/api/openapi.json', async (req) => openApiDocument(app, admin.options.publicUrl() || `${req.protocol}://${req.host}`));

    // ---- users (admin) ----
    api.get('/api/user', adminOnly, async (req) => {
      const qq = q(req);
      const r = new Reader(qq);
      return ok(
        await admin.users.list({
          ...paging(qq),
          keyword: r.str('keyword', { max: 64 }),
          role: r.oneOf('role', ['user', 'admin', 'root']),
          status: r.oneOf('status', ['enabled', 'disabled']),
          group: r.str('group', { max: 64 }),
        }),
      );
    });
    api.post('/api/user', adminOnly, async (req) => ok(await admin.users.create(admin.users.parse(req.body, 'create'), req.user)));
    api.get('/api/user/:id', adminOnly, async (req) => ok(await admin.users.get(idOf(req))));
    api.put('/api/user/:id', adminOnly, async (req) =>
      ok(await admin.users.update(idOf(req), admin.users.parse(req.body, 'update'), req.user)),
    );
    api.delete('/api/user/:id', adminOnly, async (req) => {
      await admin.users.remove(idOf(req), req.user);
      return ok(null, 'user deleted');
    });
    api.post('/api/user/:id/quota', adminOnly, async (req) => {
      const r = Reader.of(req.body).only(['mode', 'amount', 'amount_usd', 'reason']);
      const mode = r.oneOf('mode', ['add', 'set']) ?? 'add';
      const reason = r.str('reason', { max: 500 });
      const units = r.num('amount', { int: true, min: -1e15, max: 1e15 });
      const usd = r.num('amount_usd', { min: -1e9, max: 1e9 });
      if (units === undefined && usd === undefined) throw fieldError('amount', 'give amount (quota units) or amount_usd');
      const amount = units ?? usdToQuota(usd!, deps.core.config.quotaPerUsd);
      return ok(await admin.users.changeQuota(idOf(req), { mode, amount, reason }, req.user));
    });
    api.get('/api/user/:id/ledger', adminOnly, async (req) => ok(await admin.users.ledgerHistory(idOf(req), paging(q(req)), req.user)));

    // ---- API keys (users: their own; admins: also others) ----
    api.get('/api/token', anyUser, async (req) => {
      const qq = q(req);
      const r = new Reader(qq);
      let userId: number | undefined = req.user!.id;
      if (isAdmin(req)) {
        if (r.bool('all')) userId = undefined;
        else if (qq.user_id !== undefined) userId = r.num('user_id', { int: true, min: 1 });
      }
      return ok(await admin.keys.list({ ...paging(qq), userId, keyword: r.str('keyword', { max: 128 }) }));
    });
    api.post('/api/token', anyUser, async (req) => {
      const input = admin.keys.parse(req.body, 'create');
      const made = await admin.keys.create(input, req.user);
      return ok(made, 'the key is shown once: store it now');
    });
    api.get('/api/token/:id', anyUser, async (req) => ok(await admin.keys.get(idOf(req), req.user)));
    api.put('/api/token/:id', anyUser, async (req) =>
      ok((await admin.keys.update(idOf(req), admin.keys.parse(req.body, 'update'), req.user)).view),
    );
    api.delete('/api/token/:id', anyUser, async (req) => {
      await admin.keys.remove(idOf(req), req.user);
      return ok(null, 'key deleted');
    });
    // A key mints a child key, authenticated by the parent key itself as Bearer.
    api.post('/api/token/:id/children', { onRequest: requireKey(deps) }, async (req) =>
      ok(await admin.keys.createChild(idOf(req), req.principal!, req.body), 'the key is shown once: store it now'),
    );
    api.post('/api/token/:id/callback-secret', anyUser, async (req) =>
      ok(await admin.keys.rotateCallbackSecret(idOf(req), req.user), 'the callback secret is shown once: store it now'),
    );

    // ---- audit log (admin) ----
    api.get('/api/audit', adminOnly, async (req) => ok(await admin.audit.list(admin.audit.parseQuery(q(req)), admin.names)));

    // ---- quota holds (QuotaAllowanceEnabled) ----
    api.get('/api/quota/holds', adminOnly, async () => ok(await deps.services.billing.ledger.openHolds()));

    // ---- logs ----
    api.get('/api/log', adminOnly, async (req) => {
      const p = admin.logs.parseQuery(q(req), false);
      return ok(await admin.logs.query(p.filter, p, false));
    });
    api.get('/api/log/self', anyUser, async (req) => {
      const p = admin.logs.parseQuery(q(req), true);
      return ok(await admin.logs.query({ ...p.filter, userId: req.user!.id }, p, true));
    });
    const csv = (reply: FastifyReply, name: string, body: Readable) =>
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`)
        .header('cache-control', 'no-store')
        .send(body);
    api.get('/api/log/export', adminOnly, async (req, reply) =>
      csv(reply, 'logs', admin.logs.exportCsv(admin.logs.parseQuery(q(req), false).filter, false)),
    );
    api.get('/api/log/self/export', anyUser, async (req, reply) => {
      const p = admin.logs.parseQuery(q(req), true);
      return csv(reply, 'my-logs', admin.logs.exportCsv({ ...p.filter, userId: req.user!.id }, true));
    });

    // ---- usage (dashboard) ----
    api.get('/api/usage', adminOnly, async (req) => ok(await admin.usage.query(parseUsageQuery(q(req), false))));
    api.get('/api/usage/self', anyUser, async (req) => {
      const p = parseUsageQuery(q(req), true);
      // A user's own report leaves out what the calls cost the operator upstream.
      return ok(await admin.usage.query({ ...p, filter: { ...p.filter, userId: req.user!.id } }, false));
    });
  });
}
