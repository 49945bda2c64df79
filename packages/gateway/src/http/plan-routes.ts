/**
 * Plans with usage windows: the operators' plans at /api/plan (admins: list, create, update, delete,
 * subscribers) and the user's plan at /api/user/plan (GET: the plan, its windows used and the plans on
 * sale; POST {plan_id}: buy or renew from the balance; POST /api/user/plan/{provider}/pay {plan_id,
 * recurring}: a provider's checkout). Envelope {success, message, data}. Each route declares its
 * schemas (http/schemas/plans.ts): Fastify checks requests and writes answers with them, and they are
 * the routes' part of the OpenAPI document. Thin: decode, call services.billing.plans, encode.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { parseId } from '../platform/validate.ts';
import { Envelope, IdParams, adminErrors, loggedIn, ref } from './schemas/common.ts';
import {
  MyPlan,
  PLAN_SCHEMAS,
  Plan,
  PlanCheckout,
  PlanIdBody,
  PlanInput,
  PlanPayBody,
  PlanSubscriber,
  ProviderParams,
} from './schemas/plans.ts';
import { ok } from './envelope.ts';

/** A plans operation: tagged, behind a login, its answers and error answers. */
const op = <D extends TSchema, M extends object = object>(summary: string, data: D, more?: M) => ({
  tags: ['plans'],
  summary,
  security: loggedIn,
  ...(more as M),
  response: { 200: Envelope(data), ...adminErrors },
});

export async function planRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const plans = deps.services.billing.plans;
  const adminOnly = { onRequest: requireUser(deps, 'admin'), bodyLimit: 64 * 1024 };
  const anyUser = { onRequest: requireUser(deps, 'user'), bodyLimit: 4 * 1024 };
  for (const s of PLAN_SCHEMAS) app.addSchema(s);
  const plan = ref(Plan);
  const byId = { params: IdParams };

  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/api/plan', { ...adminOnly, schema: op('Plans, with their running subscribers (admin)', Type.Array(plan)) }, async () =>
      ok(await plans.list()),
    );
    api.get('/api/plan/:id', { ...adminOnly, schema: op('One plan (admin)', plan, byId) }, async (req) =>
      ok(plans.view(await plans.get(req.params.id))),
    );
    api.get(
      '/api/plan/:id/subscribers',
      { ...adminOnly, schema: op("A plan's running subscribers (admin)", Type.Array(ref(PlanSubscriber)), byId) },
      async (req) => ok(await plans.subscribers(req.params.id)),
    );
    api.post('/api/plan', { ...adminOnly, schema: op('Create a plan (admin)', plan, { body: ref(PlanInput) }) }, async (req) =>
      ok(await plans.create(plans.parse(req.body), req.user), 'plan created'),
    );
    // New API's style: PUT with the id in the body; also at /api/plan/{id}.
    api.put(
      '/api/plan',
      { ...adminOnly, schema: op('Update a plan (id in the body) (admin)', plan, { body: ref(PlanInput) }) },
      async (req) => ok(await plans.update(parseId(req.body.id), req.body, req.user)),
    );
    api.put('/api/plan/:id', { ...adminOnly, schema: op('Update a plan (admin)', plan, { ...byId, body: ref(PlanInput) }) }, async (req) =>
      ok(await plans.update(req.params.id, req.body, req.user)),
    );
    api.delete(
      '/api/plan/:id',
      { ...adminOnly, schema: op('Delete a plan nobody holds (409 plan_in_use otherwise) (admin)', Type.Null(), byId) },
      async (req) => {
        await plans.remove(req.params.id, req.user);
        return ok(null, 'plan deleted');
      },
    );

    api.get(
      '/api/user/plan',
      { ...anyUser, schema: op('Your plan, what each window used, and the plans on sale', ref(MyPlan)) },
      async (req) => {
        const [mine, all] = await Promise.all([plans.mine(req.user!.id), plans.list()]);
        const onSale = all.filter((p) => p.enabled).map(({ subscribers: _n, ...p }) => p);
        return ok({ ...mine, on_sale: onSale });
      },
    );
    // A plan paid with a provider: once, or `recurring` (renewed by the provider every period).
    api.post(
      '/api/user/plan/:provider/pay',
      {
        ...anyUser,
        schema: op("Start a provider's checkout of a plan: once, or recurring (a subscription)", ref(PlanCheckout), {
          params: ProviderParams,
          body: PlanPayBody,
        }),
      },
      async (req) => {
        const base = deps.services.admin.options.publicUrl() || `${req.protocol}://${req.host}`;
        const { plan_id, recurring } = req.body;
        return ok(await deps.services.topup.payments.startPlan(req.params.provider, req.user!.id, plan_id, recurring ?? false, base));
      },
    );
    api.post(
      '/api/user/plan',
      { ...anyUser, schema: op('Buy or renew a plan from your balance (charged once)', ref(MyPlan), { body: PlanIdBody }) },
      async (req) => ok(await plans.buy(req.user!.id, req.body.plan_id), 'plan bought'),
    );
  });
}
