/**
 * The one error type domain code throws. Each HTTP family (OpenAI, Anthropic, Gemini, task, admin)
 * renders it in its own envelope; the message must be safe to show to the caller.
 */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    /** Machine-readable code, e.g. `model_not_found`, `insufficient_quota`. */
    readonly code: string,
    message: string,
    /** OpenAI-style error type, e.g. `invalid_request_error`. */
    readonly type: string = typeForStatus(status),
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

export function typeForStatus(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 402 || status === 429) return 'insufficient_quota';
  if (status >= 500) return 'upstream_error';
  return 'invalid_request_error';
}

/** One entry of the error catalog: the status every route answers with, the OpenAI-style type, the message. */
export interface ErrorEntry {
  readonly status: number;
  /** OpenAI-style type; `typeForStatus(status)` when not given. */
  readonly type?: string;
  /** Other types a site may choose for this code (`fail(code, message, { type })`). */
  readonly types?: readonly string[];
  /** The message, with `{name}` placeholders filled from `fail`'s params; a site may pass a message of its own instead. */
  readonly message: string;
}

/**
 * The error catalog: every code the gateway answers with, one status per code on every route.
 * docs/api.md#error-codes lists the same codes (platform/errors.test.ts compares them).
 */
export const ERRORS = {
  alerts_not_configured: {
    status: 400,
    message: 'no operator alert destination is set (options AlertWebhookUrl, or AlertEmailTo with SMTP_URL)',
  },
  api_key_expired: { status: 401, message: 'API key has expired' },
  artifact_address_refused: { status: 502, message: 'the artifact address is not public' },
  artifact_gone: { status: 410, message: 'the artifact is no longer available upstream' },
  artifact_not_found: { status: 404, message: 'artifact not found' },
  artifact_not_ready: { status: 409, message: 'the task is not finished (status {status})' },
  artifact_proxy_loop: { status: 502, message: 'artifact proxy loop was rejected' },
  artifact_redirect_refused: { status: 502, message: 'the artifact upstream redirected too often or to a refused address' },
  artifact_upstream_auth_failed: { status: 502, message: 'the artifact upstream refused the credentials' },
  artifact_upstream_busy: { status: 503, message: 'the artifact upstream is busy' },
  artifact_upstream_error: { status: 502, message: 'the artifact upstream answered with an error' },
  artifact_upstream_timeout: { status: 504, message: 'the artifact upstream timed out' },
  artifacts_not_supported: { status: 404, message: 'plugin "{plugin}" does not provide artifacts' },
  artifacts_unavailable: { status: 503, message: 'artifact content is not available' },
  callback_secret_missing: {
    status: 400,
    message: 'this API key has no callback signing secret yet: create one with POST /api/token/:id/callback-secret',
  },
  callback_url_invalid: { status: 400, message: '{field} is not a valid callback URL' },
  callback_url_not_public: { status: 400, message: '{field} must resolve to a public address' },
  channel_exists: { status: 409, message: 'a channel named "{name}" already exists' },
  channel_not_found: { status: 404, message: 'no channel with id {id}' },
  channel_setting_invalid: { status: 400, message: '{field}: is not valid for this channel type' },
  channel_setting_required: { status: 400, message: '{field}: is required for this channel type' },
  code_disabled: { status: 400, message: 'this redemption code is disabled' },
  code_expired: { status: 400, message: 'this redemption code has expired' },
  code_not_found: { status: 404, message: 'no redemption code with id {id}' },
  code_redeemed: { status: 409, message: 'this code was already redeemed: its status cannot change' },
  code_used: { status: 400, message: 'this redemption code was already used' },
  cross_site_refused: {
    status: 403,
    message: 'refused: a change made with the session cookie needs a JSON body and must come from the console itself',
  },
  email_not_configured: {
    status: 503,
    message:
      'e-mail is not configured on this gateway (the operator must set SMTP_URL and PUBLIC_URL): verification and password reset links cannot be sent',
  },
  email_taken: { status: 409, message: 'email: this address belongs to another account' },
  email_verified: { status: 409, message: 'email: this address is already verified' },
  file_too_large: { status: 413, message: 'file {file} is larger than {limit} bytes' },
  files_too_large: { status: 413, message: 'files together are larger than {limit} bytes' },
  forbidden: { status: 403, message: 'this action is not allowed for this account' },
  group_not_allowed: { status: 403, message: 'this key may not use group "{group}"' },
  group_ratio_not_found: { status: 404, message: 'no ratio for group "{group}"' },
  guardrail_blocked: { status: 400, message: 'blocked by guardrail {plugin}: {reason}' },
  image_generation_failed: { status: 400, message: 'image generation failed' },
  insufficient_quota: { status: 429, message: 'quota exhausted: this API key has used up its quota' },
  internal_error: { status: 500, message: 'internal error' },
  invalid_api_key: { status: 401, message: 'invalid API key' },
  invalid_bedrock_key: { status: 400, message: 'the Bedrock key is not valid' },
  invalid_channel_binding: { status: 400, message: "the channel's plugin binding is not valid" },
  invalid_code: { status: 400, message: 'the code is not valid' },
  invalid_credentials: { status: 401, message: 'wrong username or password' },
  invalid_email: { status: 400, message: 'email: is not a valid e-mail address' },
  invalid_field: { status: 400, message: '{field}: is not valid' },
  invalid_icon: { status: 400, message: 'icon: {problem}' },
  invalid_invitation_code: { status: 403, message: 'invitation_code: is not a valid invitation code' },
  invalid_json: { status: 400, message: 'invalid JSON body: {reason}' },
  invalid_link: { status: 400, message: 'this link is invalid, already used or expired: ask for a new one' },
  invitation_expired: { status: 410, message: 'this invitation has expired: ask the team for a new one' },
  invitation_used: { status: 409, message: 'this invitation has already been accepted or was revoked' },
  invalid_passkey: { status: 400, message: 'the passkey could not be verified' },
  invalid_password: { status: 400, message: 'password must be 8-256 characters' },
  invalid_request: { status: 400, message: 'invalid request: {problem}' },
  invalid_request_error: { status: 400, message: 'invalid request: {problem}' },
  invalid_role: { status: 400, message: 'role must be one of {roles}' },
  invalid_service_account: { status: 400, message: 'the key is not a valid service-account JSON key' },
  invalid_signature: { status: 400, message: 'the webhook signature does not verify' },
  invalid_username: { status: 400, message: 'username must be 1-64 characters of letters, digits, _ . @ -' },
  invitation_required: { status: 403, message: 'invitation_code: an invitation code is required to sign up' },
  ip_not_allowed: { status: 403, message: 'API key may not be used from {ip}' },
  key_exists: { status: 409, message: 'key: this key value is already in use' },
  key_not_found: { status: 404, message: 'no such API key' },
  market_fetch_failed: { status: 502, message: 'could not fetch {url}: {reason}' },
  market_index_invalid: { status: 502, message: '{url} is not a valid marketplace index' },
  market_sha256_mismatch: { status: 502, message: '{file} hashes to {got}, the index says {want}' },
  missing_api_key: { status: 401, message: 'no API key: send Authorization: Bearer <key>' },
  mode_not_supported: { status: 400, message: 'this mode is not supported' },
  model_not_allowed: { status: 403, message: 'this API key may not use model "{model}"' },
  model_not_found: { status: 404, message: 'the model "{model}" does not exist or this key may not use it' },
  model_not_on_route: { status: 400, message: 'model "{model}" is not served by this route' },
  model_not_supported: { status: 400, message: 'plugin "{plugin}" does not serve model "{model}"' },
  mcp_server_exists: { status: 409, message: 'name: an MCP server "{name}" already exists' },
  mcp_server_not_found: { status: 404, message: 'no MCP server "{name}" (or it is disabled)' },
  mcp_server_unreachable: { status: 502, message: 'the MCP server "{name}" cannot be used: {reason}' },
  model_price_error: { status: 400, message: 'the price of "{model}" cannot be computed: {reason}' },
  model_price_not_set: { status: 403, message: 'model "{model}" has no price set; an administrator must set one before it can be used' },
  model_required: { status: 400, message: 'the request needs a "model" string' },
  no_available_channel: { status: 503, message: 'no available channel for model "{model}" in group "{group}"' },
  no_pending_login: { status: 401, message: 'this login was already completed: log in again' },
  not_found: { status: 404, types: ['invalid_request_error'], message: 'not found' },
  origin_task_channel_conflict: { status: 400, message: 'origin task {task} was made on another channel than the other origin tasks' },
  origin_task_channel_disabled: { status: 400, message: 'the channel of origin task {task} is disabled or no longer runs this plugin' },
  origin_task_not_found: { status: 400, message: 'origin task {task} was not found' },
  origin_task_platform_mismatch: { status: 400, message: 'origin task {task} was made by another plugin' },
  passkey_exists: { status: 409, message: 'this passkey is already registered' },
  passkeys_unavailable: { status: 503, message: "passkeys need PUBLIC_URL (the console's public address) to be set" },
  payment_not_found: { status: 404, message: 'no such payment' },
  payment_provider_error: { status: 502, message: 'the payment provider refused to start the checkout: {reason}' },
  payment_provider_not_found: { status: 404, message: 'online top-up with {name} is not configured on this gateway' },
  payments_disabled: { status: 400, message: 'online top-up with {name} is not configured on this gateway' },
  plugin_artifacts_invalid: { status: 502, message: "the plugin's artifacts hook returned an invalid answer" },
  plan_exists: { status: 409, message: 'a plan named "{name}" already exists' },
  plan_in_use: { status: 409, message: 'users hold this plan: disable it instead of deleting it' },
  plan_not_found: { status: 404, message: 'no plan with id {id}' },
  plugin_conflict: { status: 409, message: '{key}@{version} conflicts with the running plugins' },
  plugin_content_request_invalid: { status: 502, message: "the plugin's content request is invalid: {reason}" },
  plugin_hook_failed: { status: 400, message: 'a plugin hook refused the request: {reason}' },
  plugin_host_not_allowed: {
    status: 502,
    message: "the plugin's request to {url} is not allowed: credentials go only to the channel host and allowedHosts",
  },
  plugin_in_use: { status: 409, message: 'task plugin is still in use' },
  plugin_invalid: { status: 400, message: 'the plugin source is invalid: {reason}' },
  plugin_not_found: { status: 404, message: 'no task plugin "{plugin}" is installed and enabled' },
  plugin_render_failed: { status: 502, type: 'server_error', message: "the plugin's render hook failed: {reason}" },
  plugin_render_invalid: { status: 502, type: 'server_error', message: "the plugin's render hook returned an invalid answer: {reason}" },
  plugin_request_invalid: { status: 400, message: 'the plugin refused the request: {reason}' },
  plugin_response_invalid: { status: 502, message: "the plugin's answer is invalid: {reason}" },
  plugin_runtime_unavailable: { status: 503, message: 'the task plugin runtime is not available' },
  plugin_submit_event_failed: { status: 502, message: 'the plugin failed to read an event of the submission stream: {reason}' },
  plugin_submit_event_invalid: { status: 502, message: 'the plugin returned an invalid answer for an event of the submission stream' },
  plugin_submit_response_invalid: { status: 502, message: "the upstream's answer to a task submission could not be used: {reason}" },
  plugin_submit_stream_failed: { status: 502, message: 'the upstream event stream of a task submission failed: {reason}' },
  plugin_submit_stream_timeout: {
    status: 504,
    message: 'the upstream event stream of a task submission was idle too long or passed its deadline',
  },
  plugin_too_large: { status: 413, message: 'the plugin source is larger than 1 MiB' },
  plugin_usage_invalid: { status: 400, message: "the plugin's usage hook returned an invalid answer: {reason}" },
  previous_response_not_found: { status: 404, type: 'invalid_request_error', message: "Previous response with id '{id}' not found." },
  price_not_found: { status: 404, message: 'no price for model "{model}"' },
  rate_limit_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    types: ['requests', 'tokens', 'concurrency'],
    message: 'rate limit reached for {scope}: try again in {retry_after} s',
  },
  reauth_required: { status: 403, message: '{field}: this change needs your current password' },
  request_too_large: { status: 413, message: 'request body too large' },
  reserve_closed: { status: 409, message: 'the reserve of this call was already closed' },
  shutting_down: { status: 503, message: 'this node is shutting down: connect again' },
  signup_disabled: { status: 403, message: 'sign-up is turned off on this gateway: ask an administrator for an account' },
  source_sha256_mismatch: { status: 400, message: 'sourceSha256 does not match the source (source hashes to {sha})' },
  sso_denied: { status: 400, message: 'the provider refused the login: {reason}' },
  sso_email_unverified: {
    status: 403,
    message: 'single sign-on refused: an account with this e-mail exists, but the provider has not verified the address',
  },
  sso_failed: { status: 400, message: 'single sign-on refused: {reason}' },
  sso_invalid_state: { status: 400, message: 'single sign-on refused: {reason}; start the login again' },
  sso_identity_taken: { status: 409, message: 'this sign-in of the provider is linked to another account' },
  sso_link_refused: {
    status: 403,
    message: 'single sign-on refused: this provider may not sign in to this account; log in with the password',
  },
  sso_provider_error: { status: 502, message: 'the SSO provider answered with an error: {reason}' },
  sso_provider_exists: { status: 409, message: 'id: an SSO provider "{id}" already exists' },
  sso_provider_not_found: { status: 404, message: 'no SSO provider "{id}"' },
  sso_provider_unreachable: { status: 502, message: 'the SSO provider cannot be reached: {reason}' },
  submit_outcome_unknown: {
    status: 502,
    message: 'the upstream may have accepted the task but its answer could not be used; task {task} is kept for review and was not retried',
  },
  task_changed: { status: 409, message: 'task {task} changed while it was being resolved; try again' },
  task_host_unavailable: { status: 503, message: 'the task host is not available' },
  task_not_completed: { status: 400, message: 'Task is not completed yet, current status: {status}' },
  task_not_flagged: { status: 409, message: 'the task is not flagged for review' },
  task_not_found: { status: 404, message: 'Task not found' },
  task_not_resolvable: { status: 409, message: 'task {task} is {status}; only unfinished flagged tasks can be resolved' },
  task_timeout: { status: 504, type: 'server_error', message: 'the task is still running; task {task} settles when it completes' },
  team_exists: { status: 409, message: 'name: a team named "{name}" already exists' },
  team_last_owner: { status: 409, message: 'a team keeps at least one owner: make another member owner first' },
  team_member_exists: { status: 409, message: 'this user is already a member of the team' },
  team_member_not_found: { status: 404, message: 'this user is not a member of the team' },
  team_not_found: { status: 404, message: 'no team with id {id}' },
  too_many_attempts: {
    status: 429,
    type: 'rate_limit_error',
    message: 'too many failed attempts from this address: try again in {wait} s',
  },
  totp_already_enabled: { status: 409, message: 'two-factor authentication with an authenticator app is already on' },
  totp_not_enabled: { status: 409, message: 'two-factor authentication with an authenticator app is not on' },
  totp_not_set_up: { status: 409, message: 'start with POST /api/user/2fa/setup' },
  two_factor_failed: { status: 401, message: 'wrong or already used code' },
  two_factor_not_enabled: { status: 409, message: 'two-factor authentication is not on' },
  two_factor_required: {
    status: 403,
    message:
      'this account must set up a second factor (authenticator app or passkey) in the console before its access token or command-line sessions work',
  },
  two_factor_setup_required: {
    status: 403,
    message: 'set up a second factor (authenticator app or passkey) on your profile first: admins must use one',
  },
  unauthorized: { status: 401, message: 'this route needs a bearer token' },
  unknown_file_reference: { status: 400, message: 'unknown file reference "{ref}"' },
  unsupported_media_type: { status: 415, message: 'unsupported content type' },
  upstream_auth_failed: { status: 502, message: "the upstream refused the gateway's credentials: {reason}" },
  upstream_busy: { status: 429, message: 'the upstream is busy (HTTP 429)' },
  upstream_error: { status: 502, message: 'the upstream failed: {reason}' },
  upstream_read_failed: { status: 502, message: 'reading the upstream response failed' },
  upstream_read_timeout: { status: 504, message: 'reading the upstream response timed out' },
  upstream_rejected: { status: 400, message: 'the upstream rejected the task (HTTP {status})' },
  upstream_response_too_large: { status: 502, message: 'upstream response is larger than {limit} bytes' },
  upstream_timeout: { status: 504, message: 'upstream timed out' },
  upstream_unknown: { status: 502, message: "the upstream's answer could not be used" },
  upstream_unreachable: { status: 502, message: 'upstream could not be reached' },
  user_disabled: { status: 403, message: 'this user is disabled' },
  user_exists: { status: 409, message: 'username: "{username}" is taken' },
  user_not_found: { status: 404, message: 'no user with id {id}' },
  username_taken: { status: 409, message: 'no free username for the new account' },
  version_exists: {
    status: 409,
    message: '{key}@{version} is already stored with a different source; versions are immutable, publish a new version',
  },
  video_not_found: { status: 404, type: 'invalid_request_error', message: "No video found with id '{id}'." },
  wrong_password: { status: 400, message: 'old_password: is not the current password' },
} as const satisfies Record<string, ErrorEntry>;

/** A code of the catalog; a code that is not in it does not type-check. */
export type ErrorCode = keyof typeof ERRORS;

/** The placeholder names of a message template: `{model}` gives `model`. */
type Holes<S extends string> = S extends `${string}{${infer P}}${infer R}` ? P | Holes<R> : never;
type TemplateOf<C extends ErrorCode> = (typeof ERRORS)[C]['message'];
/** The params that fill the message template of code `C`; each is written as a template literal writes it. */
export type ErrorParams<C extends ErrorCode> = { readonly [K in Holes<TemplateOf<C>>]: unknown };
type TypesOf<C extends ErrorCode> = (typeof ERRORS)[C] extends { readonly types: readonly (infer T)[] } ? T : never;

export interface FailOptions<C extends ErrorCode> {
  /** Extra fields for the envelope, e.g. `{ field }` for the console's forms. */
  details?: Record<string, unknown>;
  /** One of the code's `types` in place of its type. */
  type?: TypesOf<C>;
}

/** The arguments after the code: params when the template has placeholders (or a message of the site's own), else an optional message. */
type FailArgs<C extends ErrorCode> = [Holes<TemplateOf<C>>] extends [never]
  ? [message?: string, options?: FailOptions<C>]
  : [message: string | ErrorParams<C>, options?: FailOptions<C>];

/** The status of a code as the catalog gives it. */
export const statusOf = (code: ErrorCode): number => ERRORS[code].status;

/** A template with its placeholders filled (caller input among the params is to be cut by `echo` first). */
export function fillTemplate(template: string, params: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{(\w+)\}/g, (hole, name: string) => (name in params ? String(params[name]) : hole));
}

/**
 * The error of catalog code `code`: its status and type from the catalog, its message the template
 * filled from `params`, or the site's own message text. E.g. `fail('model_not_found', { model })`,
 * `fail('invalid_request', 'messages[0].role: ...')`.
 */
export function fail<C extends ErrorCode>(code: C, ...[message, options]: FailArgs<C>): GatewayError {
  const entry: ErrorEntry = ERRORS[code];
  const text = typeof message === 'string' ? message : fillTemplate(entry.message, message ?? {});
  const type = (options?.type as string | undefined) ?? entry.type ?? typeForStatus(entry.status);
  return new GatewayError(entry.status, code, text, type, options?.details);
}

/** GatewayError's constructor arguments for catalog code `code`, for the error classes that extend GatewayError. */
export function catalogArgs(
  code: ErrorCode,
  message: string,
  details?: Record<string, unknown>,
): ConstructorParameters<typeof GatewayError> {
  const entry: ErrorEntry = ERRORS[code];
  return [entry.status, code, message, entry.type ?? typeForStatus(entry.status), details];
}

/**
 * An error another party decided, rendered in the caller's envelope with that party's status and
 * code: an upstream's own 4xx passed on, a task plugin's failure code, Fastify's refusals. Such codes
 * are not the gateway's and are not in the catalog.
 */
export function foreignError(status: number, code: string, message: string, type?: string): GatewayError {
  return new GatewayError(status, code, message, type);
}

/** Longest piece of caller input (a model name, an action) repeated in an error message. */
export const ECHO_MAX = 200;

/** Caller input as it may appear in an error message: at most ECHO_MAX characters, longer input cut with `…`. */
export function echo(s: unknown, max = ECHO_MAX): string {
  const t = typeof s === 'string' ? s : String(s);
  return t.length <= max ? t : `${t.slice(0, max)}…`;
}
