/**
 * The shared schemas of plans, sign-up, single sign-on and the MCP gateway.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import { schemas } from './components-core.ts';
import { type Schema, arr, bool, int, nullable, obj, str } from './kit.ts';

/** Single sign-on (accounts/sso.ts): providers for admins, the login page's list, the browser flow. */
export const ssoSchemas: Record<string, Schema> = {
  SsoProvider: obj(
    {
      id: str('slug used in URLs'),
      kind: str(undefined, { enum: ['oidc', 'github'] }),
      name: str(),
      button_label: str(),
      issuer: str('OpenID issuer (discovery), or the GitHub web address'),
      api_url: nullable(str('GitHub REST API address')),
      client_id: str(),
      client_secret_set: bool('the secret itself is never returned'),
      scopes: arr(str()),
      account_mode: str('first login: link to the account with the same verified e-mail (else create), or always create', {
        enum: ['link', 'create'],
      }),
      default_group: str('group of accounts a first login creates'),
      allow_insecure: bool('http:// addresses beyond loopback'),
      enabled: bool(),
      sort: int(),
      redirect_uri: str('{PUBLIC_URL}/api/sso/{id}/callback: register it with the provider'),
      changed_by: nullable(int('who changed the provider last (null: the configuration file)')),
      changed_by_role: str(
        'their role then (the file counts as root): a sign-in through the provider never lands in an account of this role or above, unless root',
        { enum: ['user', 'admin', 'root'] },
      ),
      created_at: int(),
      updated_at: int(),
    },
    [
      'id',
      'kind',
      'name',
      'button_label',
      'issuer',
      'api_url',
      'client_id',
      'client_secret_set',
      'scopes',
      'account_mode',
      'default_group',
      'allow_insecure',
      'enabled',
      'sort',
      'redirect_uri',
      'changed_by',
      'changed_by_role',
      'created_at',
      'updated_at',
    ],
  ),
  SsoLink: obj(
    {
      id: str(),
      name: str(),
      button_label: str(),
      linked: nullable(
        obj({ provider_id: str(), email: nullable(str()), created_at: int(), last_login_at: int() }, [
          'provider_id',
          'email',
          'created_at',
          'last_login_at',
        ]),
      ),
    },
    ['id', 'name', 'button_label', 'linked'],
  ),
  SsoProviderInput: obj({
    id: str('create only: lower-case letters, digits, _ and -'),
    kind: str('create only; default oidc', { enum: ['oidc', 'github'] }),
    name: str(),
    button_label: str(),
    issuer: str('https URL (http for loopback or with allow_insecure); GitHub: default https://github.com'),
    api_url: nullable(str('GitHub only')),
    client_id: str(),
    client_secret: str('write only'),
    scopes: { anyOf: [arr(str()), str('space separated')] },
    account_mode: str(undefined, { enum: ['link', 'create'] }),
    default_group: str(),
    allow_insecure: bool(),
    enabled: bool(),
    sort: int(),
  }),
  SsoPublicProvider: obj({ id: str(), name: str(), button_label: str() }, ['id', 'name', 'button_label']),
};
Object.assign(schemas, ssoSchemas);
