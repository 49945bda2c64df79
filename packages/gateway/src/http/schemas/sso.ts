/**
 * The schemas of the single sign-on routes (http/sso-routes.ts): providers as admins see and change
 * them (accounts/sso-providers.ts), the login page's buttons and a user's links to providers.
 */
import { Type, type TSchema } from 'typebox';
import { Nullable } from './account.ts';

const Kind = Type.Union([Type.Literal('oidc'), Type.Literal('github')]);

export const SsoProvider = Type.Object(
  {
    id: Type.String({ description: 'slug used in URLs' }),
    kind: Kind,
    name: Type.String(),
    button_label: Type.String(),
    issuer: Type.String({ description: 'OpenID issuer (discovery), or the GitHub web address' }),
    api_url: Nullable(Type.String({ description: 'GitHub REST API address' })),
    client_id: Type.String(),
    client_secret_set: Type.Boolean({ description: 'the secret itself is never returned' }),
    scopes: Type.Array(Type.String()),
    account_mode: Type.Union([Type.Literal('link'), Type.Literal('create')], {
      description: 'first login: link to the account with the same verified e-mail (else create), or always create',
    }),
    default_group: Type.String({ description: 'group of accounts a first login creates' }),
    allow_insecure: Type.Boolean({ description: 'http:// addresses beyond loopback' }),
    enabled: Type.Boolean(),
    sort: Type.Integer(),
    redirect_uri: Type.String({ description: '{PUBLIC_URL}/api/sso/{id}/callback: register it with the provider' }),
    changed_by: Nullable(Type.Integer({ description: 'who changed the provider last (null: the configuration file)' })),
    changed_by_role: Type.Union([Type.Literal('user'), Type.Literal('admin'), Type.Literal('root')], {
      description:
        'their role then (the file counts as root): a sign-in through the provider never lands in an account of this role or above, unless root',
    }),
    created_at: Type.Integer(),
    updated_at: Type.Integer(),
  },
  { $id: 'SsoProvider' },
);

/** What creates or changes a provider; checked by accounts/sso-providers.ts (parseSsoProvider), which names the field. */
export const SsoProviderInput = Type.Object(
  {
    id: Type.Optional(Type.String({ description: 'create only: lower-case letters, digits, _ and -' })),
    kind: Type.Optional(Type.String({ description: 'create only: oidc or github; default oidc' })),
    name: Type.Optional(Type.String()),
    button_label: Type.Optional(Type.String()),
    issuer: Type.Optional(
      Type.String({ description: 'https URL (http for loopback or with allow_insecure); GitHub: default https://github.com' }),
    ),
    api_url: Type.Optional(Nullable(Type.String({ description: 'GitHub only' }))),
    client_id: Type.Optional(Type.String()),
    client_secret: Type.Optional(Type.String({ description: 'write only' })),
    scopes: Type.Optional(Type.Union([Type.Array(Type.String()), Type.String({ description: 'space separated' })])),
    account_mode: Type.Optional(Type.String({ description: 'link or create' })),
    default_group: Type.Optional(Type.String()),
    allow_insecure: Type.Optional(Type.Boolean()),
    enabled: Type.Optional(Type.Boolean()),
    sort: Type.Optional(Type.Integer()),
  },
  { $id: 'SsoProviderInput' },
);

export const SsoPublicProvider = Type.Object(
  { id: Type.String(), name: Type.String(), button_label: Type.String() },
  { $id: 'SsoPublicProvider' },
);

export const SsoLink = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    button_label: Type.String(),
    linked: Nullable(
      Type.Object({
        provider_id: Type.String(),
        email: Nullable(Type.String()),
        created_at: Type.Integer(),
        last_login_at: Type.Integer(),
      }),
    ),
  },
  { $id: 'SsoLink' },
);

export const SSO_SCHEMAS: TSchema[] = [SsoProvider, SsoProviderInput, SsoPublicProvider, SsoLink];
