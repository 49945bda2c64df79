/**
 * Plans with usage windows: the operators' plans at /api/plan (admins: list, create, update, delete,
 * subscribers) and the user's plan at /api/user/plan (GET: the plan, its windows used and the plans on
 * sale; POST {plan_id}: buy or renew from the balance; POST /api/user/plan/{provider}/pay {plan_id,
 * recurring}: a provider's checkout). Envelope {success, message, data}. Thin:
 * decode, call services.billing.plans, encode.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { Reader, parseId } from '../platform/validate.ts';

const ok = (data: unknown, message = '') => ({ success: true, message, data });

export async function planRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const plans = deps.services.billing.plans;
  const adminOnly = { onRequest: requireUser(deps, 'admin'), bodyLimit: 64 * 1024 };
  const anyUser = { onRequest: requireUser(deps, 'user'), bodyLimit: 4 * 1024 };
  const idOf = (p: unknown) => parseId((p as { id: string }).id);

  await app.register(async (api) => {
    api.setErrorHandler(familyErrorHandler('admin'));

    api.get('/api/plan', adminOnly, async () => ok(await plans.list()));
    api.get('/api/plan/:id', adminOnly, async (req) => ok(plans.view(await plans.get(idOf(req.params)))));
    api.get('/api/plan/:id/subscribers', adminOnly, async (req) => ok(await plans.subscribers(idOf(req.params))));
    api.post('/api/plan', adminOnly, async (req) => ok(await plans.create(plans.parse(req.body), req.user), 'plan created'));
    // New API's style: PUT with the id in the body; also at /api/plan/{id}.
    api.put('/api/plan', adminOnly, async (req) => ok(await plans.update(parseId(Reader.of(req.body).obj.id), req.body, req.user)));
    api.put('/api/plan/:id', adminOnly, async (req) => ok(await plans.update(idOf(req.params), req.body, req.user)));
    api.delete('/api/plan/:id', adminOnly, async (req) => {
      await plans.remove(idOf(req.params), req.user);
      return ok(null, 'plan deleted');
    });

    api.get('/api/user/plan', anyUser, async (req) => {
      const [mine, all] = await Promise.all([plans.mine(req.user!.id), plans.list()]);
      const onSale = all.filter((p) => p.enabled).map(({ subscribers: _n, ...p }) => p);
      return ok({ ...mine, on_sale: onSale });
    });
    // A plan paid with a provider: once, or `recurring` (renewed by the provider every period).
    api.post('/api/user/plan/:provider/pay', anyUser, async (req) => {
      const r = Reader.of(req.body).only(['plan_id', 'recurring']);
      const planId = parseId(r.obj.plan_id, 'plan_id');
      const base = deps.services.admin.options.publicUrl() || `${req.protocol}://${req.host}`;
      const provider = (req.params as { provider: string }).provider;
      return ok(await deps.services.topup.payments.startPlan(provider, req.user!.id, planId, r.bool('recurring') ?? false, base));
    });
    api.post('/api/user/plan', anyUser, async (req) => {
      const planId = parseId(Reader.of(req.body).only(['plan_id']).obj.plan_id, 'plan_id');
      return ok(await plans.buy(req.user!.id, planId), 'plan bought');
    });
  });
}
