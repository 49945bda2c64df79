/**
 * The schemas of the team routes (http/team-routes.ts): teams, members, invitations, a team's usage,
 * and the bodies that create and change them. Keys and log rows keep the shapes of /api/token and
 * /api/log (described loosely here: their own routes are not yet described by schemas).
 */
import { Type, type TSchema } from 'typebox';
import { ref } from './common.ts';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
export const TeamRoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member'), Type.Literal('viewer')], {
  description: 'a role in the team',
});
const Standing = Type.Union(
  [Type.Literal('operator'), Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member'), Type.Literal('viewer')],
  {
    description: "the caller's role in the team; operator: a gateway admin",
  },
);
const Period = Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')]);

const TeamSettingsSchema = Type.Object(
  {
    allow_admin_topup: Type.Optional(Type.Boolean({ description: 'team owners and admins may top up the wallet' })),
    share_bodies: Type.Optional(
      Type.Boolean({ description: "team owners and admins see the request and answer text of other members' calls" }),
    ),
  },
  { additionalProperties: false },
);

export const Team = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    quota: Type.Integer({ description: "the wallet's balance, quota units" }),
    quota_usd: Type.Number(),
    used_quota: Type.Integer(),
    used_quota_usd: Type.Number(),
    request_count: Type.Integer(),
    models: Nullable(Type.Array(Type.String(), { description: "the models the team's keys may call; null: every model" })),
    group: Nullable(Type.String()),
    rpm: Type.Integer(),
    tpm: Type.Integer(),
    max_concurrency: Type.Integer(),
    budget_usd: Nullable(Type.Number()),
    budget_period: Nullable(Type.String()),
    settings: TeamSettingsSchema,
    created_at: Type.Integer(),
    updated_at: Type.Integer(),
    my_role: Type.Optional(Standing),
  },
  { $id: 'Team' },
);

export const TeamInput = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 48 })),
    models: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 191 }), { maxItems: 500 }))),
    group: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
    rpm: Type.Optional(Type.Integer({ minimum: 0 })),
    tpm: Type.Optional(Type.Integer({ minimum: 0 })),
    max_concurrency: Type.Optional(Type.Integer({ minimum: 0 })),
    budget_usd: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
    budget_period: Type.Optional(Nullable(Period)),
    settings: Type.Optional(TeamSettingsSchema),
  },
  { $id: 'TeamInput', additionalProperties: false },
);

export const TeamTopUpBody = Type.Object(
  {
    quota_usd: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1e9 })),
    quota: Type.Optional(Type.Integer({ minimum: 1 })),
    ref: Type.String({ minLength: 1, maxLength: 100, description: 'names the request: the same ref credits the wallet once' }),
  },
  { additionalProperties: false },
);

export const TeamMember = Type.Object(
  {
    team_id: Type.Integer(),
    user_id: Type.Integer(),
    username: Type.String(),
    display_name: Type.String(),
    role: TeamRoleSchema,
    budget_usd: Nullable(Type.Number({ description: "the member's delegated wallet: at most this of the team's money per period" })),
    budget_period: Nullable(Type.String()),
    created_at: Type.Integer(),
  },
  { $id: 'TeamMember' },
);

export const AddMemberBody = Type.Object(
  {
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 191 })),
    user_id: Type.Optional(Type.Integer({ minimum: 1 })),
    role: TeamRoleSchema,
    budget_usd: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
    budget_period: Type.Optional(Nullable(Period)),
  },
  { additionalProperties: false },
);

export const UpdateMemberBody = Type.Object(
  {
    role: Type.Optional(TeamRoleSchema),
    budget_usd: Type.Optional(Nullable(Type.Number({ minimum: 0 }))),
    budget_period: Type.Optional(Nullable(Period)),
  },
  { additionalProperties: false },
);

export const TeamInvitation = Type.Object(
  {
    id: Type.Integer(),
    team_id: Type.Integer(),
    email: Type.String(),
    role: TeamRoleSchema,
    expires_at: Type.Integer(),
    accepted_at: Nullable(Type.Integer()),
    accepted_by: Nullable(Type.Integer()),
    revoked_at: Nullable(Type.Integer()),
    created_by: Nullable(Type.Integer()),
    created_at: Type.Integer(),
  },
  { $id: 'TeamInvitation' },
);

export const InviteBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 191 }),
    role: TeamRoleSchema,
    ttl_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 720, description: 'how long the link works (default 72)' })),
  },
  { additionalProperties: false },
);

export const Invited = Type.Object({
  invitation: ref(TeamInvitation),
  mailed: Type.Boolean({ description: 'the link was mailed to the address' }),
  link: Type.Optional(Type.String({ description: 'the link to hand over (only when it was not mailed); it works once' })),
});

export const AcceptBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

export const Accepted = Type.Object({ team: ref(Team), role: TeamRoleSchema });

const Sums = {
  calls: Type.Integer(),
  quota: Type.Integer(),
  quota_usd: Type.Number(),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
};
export const TeamUsage = Type.Object(
  {
    from: Type.Integer(),
    to: Type.Integer(),
    totals: Type.Object(Sums),
    members: Type.Array(Type.Object({ user_id: Type.Integer(), username: Type.String(), ...Sums })),
    days: Type.Array(Type.Object({ day: Type.Integer({ description: "the UTC day's start, unix ms" }), ...Sums })),
  },
  { $id: 'TeamUsage' },
);

export const TeamUsageQuery = Type.Object({
  from: Type.Optional(Type.Integer({ minimum: 0, description: 'unix ms (default: 30 days before to)' })),
  to: Type.Optional(Type.Integer({ minimum: 0, description: 'unix ms (default: now)' })),
});

/** A key of the team (the shape of /api/token's keys, with team_id). */
export const TeamKey = Type.Object(
  {
    id: Type.Integer(),
    user_id: Type.Integer(),
    team_id: Nullable(Type.Integer()),
    name: Type.String(),
    hint: Type.String(),
    status: Type.String(),
  },
  { additionalProperties: true },
);

export const Paged = <T extends TSchema>(item: T) =>
  Type.Object(
    { items: Type.Array(item), total: Type.Integer(), page: Type.Integer(), page_size: Type.Integer() },
    { additionalProperties: true },
  );

export const LogRowLoose = Type.Object(
  { id: Type.Integer(), content: Type.Optional(Nullable(Type.String())) },
  { additionalProperties: true },
);

export const TeamIdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
export const MemberParams = Type.Object({ id: Type.Integer({ minimum: 1 }), userId: Type.Integer({ minimum: 1 }) });
export const InvitationParams = Type.Object({ id: Type.Integer({ minimum: 1 }), invId: Type.Integer({ minimum: 1 }) });
export const KeyParams = Type.Object({ id: Type.Integer({ minimum: 1 }), keyId: Type.Integer({ minimum: 1 }) });

export const TEAM_SCHEMAS: TSchema[] = [Team, TeamInput, TeamMember, TeamInvitation, TeamUsage];
