/**
 * The team API: operators' teams at /api/team (create, list, change, delete; top up the wallet at
 * POST /api/team/{id}/quota), a team's members, invitations, keys, usage and logs at
 * /api/team/{id}/…, accepting an invitation (POST /api/team/invitations/accept) and the signed-in
 * user's teams (GET /api/user/teams), the team's plan (GET, POST /api/team/{id}/plan). Envelope {success, message, data}. Who may call what is
 * teams/access.ts's rule (a team the caller does not belong to answers 404); the services are
 * admin/teams.ts and admin/team-activity.ts. Each route declares its schemas (http/schemas/teams.ts;
 * the logs and their CSV export take those of /api/log/self, http/schemas/admin-logs.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { ok } from './envelope.ts';
import { redeemGuard, startCheckout } from './topup-routes.ts';
import { paging, type Obj } from '../platform/validate.ts';
import { Envelope, adminErrors, loggedIn, ref } from './schemas/common.ts';
import {
  AcceptBody,
  Accepted,
  AddMemberBody,
  InvitationParams,
  InviteBody,
  Invited,
  KeyParams,
  MemberParams,
  Paged,
  TEAM_SCHEMAS,
  Team,
  TeamIdParams,
  TeamInput,
  TeamInvitation,
  TeamKey,
  TeamMember,
  TeamTopUpBody,
  TeamUsage,
  TeamUsageQuery,
  UpdateMemberBody,
} from './schemas/teams.ts';
import { MyPlan, PlanIdBody } from './schemas/plans.ts';
import { CsvAnswer, LogExportQuery, LogQuery, TeamLogPage } from './schemas/admin-logs.ts';

/** A teams operation: tagged, behind a login, its answers and error answers. */
const op = <D extends TSchema, M extends object = object>(summary: string, data: D, more?: M) => ({
  tags: ['teams'],
  summary,
  security: loggedIn,
  ...(more as M),
  response: { 200: Envelope(data), ...adminErrors },
});

const ListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  keyword: Type.Optional(Type.String({ maxLength: 64 })),
});

export async function teamRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const teams = deps.services.admin.teams;
  const activity = deps.services.admin.teamActivity;
  const adminOnly = { onRequest: requireUser(deps, 'admin'), bodyLimit: 64 * 1024 };
  const anyUser = { onRequest: requireUser(deps, 'user'), bodyLimit: 16 * 1024 };
  for (const s of TEAM_SCHEMAS) app.addSchema(s);
  const team = ref(Team);
  const byId = { params: TeamIdParams };

  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    // ---- operators ----
    api.get('/api/team', { ...adminOnly, schema: op('Teams, by name (admin)', Paged(team), { querystring: ListQuery }) }, async (req) =>
      ok(await teams.list({ ...paging(req.query as Obj), keyword: req.query.keyword })),
    );
    api.post(
      '/api/team',
      { ...adminOnly, schema: op('Create a team with an empty wallet (admin)', team, { body: ref(TeamInput) }) },
      async (req) => ok(await teams.create(req.body, req.user!), 'team created'),
    );
    api.get(
      '/api/team/:id',
      { ...anyUser, schema: op('A team you belong to, with your role (admins: any team)', team, byId) },
      async (req) => ok(await teams.get(req.params.id, req.user!)),
    );
    api.put('/api/team/:id', { ...adminOnly, schema: op('Change a team (admin)', team, { ...byId, body: ref(TeamInput) }) }, async (req) =>
      ok(await teams.update(req.params.id, req.body, req.user!)),
    );
    api.delete(
      '/api/team/:id',
      { ...adminOnly, schema: op('Delete a team: its members and open invitations go, its keys are disabled (admin)', Type.Null(), byId) },
      async (req) => {
        await teams.remove(req.params.id, req.user!);
        return ok(null, 'team deleted');
      },
    );
    api.post(
      '/api/team/:id/quota',
      {
        ...anyUser,
        schema: op("Top up the team's wallet, once per ref (admins; the team's owners and admins when the operator allows it)", team, {
          ...byId,
          body: TeamTopUpBody,
        }),
      },
      async (req) => ok(await teams.topUp(req.params.id, req.body, req.user!), 'wallet topped up'),
    );

    const guarded = redeemGuard(deps);
    api.post(
      '/api/team/:id/redeem',
      {
        ...anyUser,
        schema: op(
          "Redeem a redemption code into the team's wallet (the team's owners and admins; admins). Refusals as POST /api/user/topup; a code that grants a plan is refused and stays unused",
          Type.Object({
            quota: Type.Integer(),
            quota_usd: Type.Number(),
            balance: Type.Integer({ description: "the team's wallet after the credit, quota units" }),
          }),
          { ...byId, body: Type.Object({ key: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false }) },
        ),
      },
      async (req, reply) =>
        ok(
          await guarded(req, reply, () =>
            teams.redeem(req.params.id, req.user!, (id) => deps.services.topup.codes.redeemForTeam(req.user!, id, req.body.key)),
          ),
          'code redeemed',
        ),
    );

    for (const provider of deps.services.topup.payments.providers.keys())
      api.post(
        `/api/team/:id/${provider}/pay`,
        {
          ...anyUser,
          schema: op(
            `Start a ${provider} checkout that tops up the team's wallet (the team's owners and admins; admins); pay at data.url`,
            Type.Object({
              trade_no: Type.String(),
              url: Type.String({ description: 'where to pay' }),
              pay_link: Type.String({ description: 'the same as url' }),
              currency: Type.String(),
              amount: Type.Number(),
              quota: Type.Integer({ description: 'what the wallet is credited once paid, quota units' }),
            }),
            {
              ...byId,
              body: Type.Object(
                { amount: Type.Number({ description: 'in units of the top-up currency' }), payment_method: Type.Optional(Type.String()) },
                { additionalProperties: false },
              ),
            },
          ),
        },
        async (req, reply) => {
          await teams.requireManager(req.params.id, req.user!);
          return ok(await startCheckout(deps, provider, req, reply, req.body.amount, req.params.id), 'pay at the returned URL');
        },
      );

    // ---- the team's plan (billing/plans.ts): paid from the team's wallet, drawn on by the team's keys ----
    const plans = deps.services.billing.plans;
    api.get(
      '/api/team/:id/plan',
      {
        ...anyUser,
        schema: op("The team's plan, what each of its windows used, and the plans on sale (the team's members; admins)", ref(MyPlan), byId),
      },
      async (req) => {
        await teams.get(req.params.id, req.user!);
        const [held, all] = await Promise.all([plans.mine({ teamId: req.params.id }), plans.list()]);
        return ok({ ...held, on_sale: all.filter((p) => p.enabled).map(({ subscribers: _n, ...p }) => p) });
      },
    );
    api.post(
      '/api/team/:id/plan',
      {
        ...anyUser,
        schema: op(
          "Buy or renew a plan for the team from the team's wallet, charged once (the team's owners and admins; admins)",
          ref(MyPlan),
          { ...byId, body: PlanIdBody },
        ),
      },
      async (req) => {
        await teams.requireManager(req.params.id, req.user!);
        return ok(await plans.buyForTeam(req.params.id, req.body.plan_id, req.user!), 'plan bought');
      },
    );

    // ---- the signed-in user ----
    api.get(
      '/api/user/teams',
      { ...anyUser, schema: op('The teams you belong to, with your role in each', Type.Array(team)) },
      async (req) => ok(await teams.mine(req.user!.id)),
    );
    api.post(
      '/api/team/invitations/accept',
      {
        ...anyUser,
        schema: op('Accept an invitation with its token: once (410 invitation_expired, 409 invitation_used)', Accepted, {
          body: AcceptBody,
        }),
      },
      async (req) => ok(await teams.accept(req.body.token, req.user!), 'welcome to the team'),
    );

    // ---- members ----
    api.get(
      '/api/team/:id/members',
      { ...anyUser, schema: op("The team's members, owners first", Type.Array(ref(TeamMember)), byId) },
      async (req) => ok(await teams.members(req.params.id, req.user!)),
    );
    api.post(
      '/api/team/:id/members',
      {
        ...anyUser,
        schema: op('Add an existing user (by username, email or user_id) with a role and budget', ref(TeamMember), {
          ...byId,
          body: AddMemberBody,
        }),
      },
      async (req) => ok(await teams.addMember(req.params.id, req.body, req.user!), 'member added'),
    );
    api.put(
      '/api/team/:id/members/:userId',
      {
        ...anyUser,
        schema: op("Change a member's role or budget (budget_usd per budget_period; null: no cap)", ref(TeamMember), {
          params: MemberParams,
          body: UpdateMemberBody,
        }),
      },
      async (req) => ok(await teams.updateMember(req.params.id, req.params.userId, req.body, req.user!)),
    );
    api.delete(
      '/api/team/:id/members/:userId',
      {
        ...anyUser,
        schema: op('Remove a member (or leave the team); their team keys are disabled', Type.Null(), { params: MemberParams }),
      },
      async (req) => {
        await teams.removeMember(req.params.id, req.params.userId, req.user!);
        return ok(null, 'member removed');
      },
    );

    // ---- invitations ----
    api.get(
      '/api/team/:id/invitations',
      { ...anyUser, schema: op("The team's invitations, newest first", Type.Array(ref(TeamInvitation)), byId) },
      async (req) => ok(await teams.invitations(req.params.id, req.user!)),
    );
    api.post(
      '/api/team/:id/invitations',
      {
        ...anyUser,
        schema: op('Invite an address: a link that works once, until it expires, mailed (or returned to hand over)', Invited, {
          ...byId,
          body: InviteBody,
        }),
      },
      async (req) => ok(await teams.invite(req.params.id, req.body, req.user!), 'invitation sent'),
    );
    api.delete(
      '/api/team/:id/invitations/:invId',
      { ...anyUser, schema: op('Revoke an open invitation', Type.Null(), { params: InvitationParams }) },
      async (req) => {
        await teams.revokeInvitation(req.params.id, req.params.invId, req.user!);
        return ok(null, 'invitation revoked');
      },
    );

    // ---- keys ----
    api.get(
      '/api/team/:id/keys',
      {
        ...anyUser,
        schema: op("The team's keys (owners and admins: all; members: their own)", Paged(TeamKey), { ...byId, querystring: ListQuery }),
      },
      async (req) => ok(await activity.listKeys(req.params.id, req.user!, { ...paging(req.query as Obj), keyword: req.query.keyword })),
    );
    api.post(
      '/api/team/:id/keys',
      {
        ...anyUser,
        schema: op('Create a key for yourself paid by the team (the fields of POST /api/token); shown once', TeamKey, {
          ...byId,
          body: Type.Object({}, { additionalProperties: true, description: 'the fields of POST /api/token' }),
        }),
      },
      async (req) => ok(await activity.createKey(req.params.id, req.body, req.user!), 'the key is shown once: store it now'),
    );
    api.delete(
      '/api/team/:id/keys/:keyId',
      { ...anyUser, schema: op('Delete a team key (owners and admins: any; members: their own)', Type.Null(), { params: KeyParams }) },
      async (req) => {
        await activity.removeKey(req.params.id, req.params.keyId, req.user!);
        return ok(null, 'key deleted');
      },
    );

    // ---- usage and logs ----
    api.get(
      '/api/team/:id/usage',
      {
        ...anyUser,
        schema: op("What the team's keys spent, per member and per UTC day", ref(TeamUsage), { ...byId, querystring: TeamUsageQuery }),
      },
      async (req) => ok(await activity.usage(req.params.id, req.user!, req.query)),
    );
    api.get(
      '/api/team/:id/logs',
      {
        ...anyUser,
        schema: op(
          "The team keys' log rows (owners and admins: every member's, without others' request and answer text unless the operator allows it; members: their own)",
          TeamLogPage,
          { ...byId, querystring: LogQuery(true) },
        ),
      },
      async (req) => ok(await activity.queryLogs(req.params.id, req.user!, req.query as Obj)),
    );
    api.get(
      '/api/team/:id/logs/export',
      {
        ...anyUser,
        schema: {
          tags: ['teams'],
          summary: "The team keys' log rows as CSV (streamed; the same rows as the list)",
          security: loggedIn,
          ...byId,
          querystring: LogExportQuery(true),
          response: { 200: CsvAnswer, ...adminErrors },
        },
      },
      async (req, reply) => {
        const { id } = req.params;
        const body = await activity.exportLogs(id, req.user!, req.query as Obj);
        return (
          reply
            .header('content-type', 'text/csv; charset=utf-8')
            .header('content-disposition', `attachment; filename="team-${id}-logs-${new Date().toISOString().slice(0, 10)}.csv"`)
            .header('cache-control', 'no-store')
            // A stream of CSV text: sent as it is, not serialized.
            .send(body as unknown as string)
        );
      },
    );
  });
}
