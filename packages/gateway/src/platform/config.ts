/**
 * Process settings, read once from the environment. Every variable is listed in docs/configuration.md,
 * once. Durations are in seconds (`…_SECONDS`) and sizes in MiB (`…_MB`); older names of a variable
 * (ENV_ALIASES) are still read when the current one is unset, and each one found is named in a warning
 * (`Config.warnings`, logged at start).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isIP } from 'node:net';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | null;
  /** A Redis command not answered within this long fails; its caller counts on this node (platform/redis-health.ts). */
  redisCommandTimeoutMs: number;
  cryptoSecret: string;
  sessionSecret: string;
  configFile: string | null;
  rootPassword: string | null;
  /** The older TASK_PUBLIC_ADDRESS: the address of signed artifact links (else PUBLIC_URL); null when unset. */
  taskPublicAddress: string | null;
  logLevel: string;
  /**
   * Which X-Forwarded-For hops to believe when reading the client IP (Fastify's `trustProxy`):
   * false (none), the number of proxies in front of the gateway, or the proxies' addresses/CIDRs.
   */
  trustProxy: false | number | string[];
  /** Bearer token of GET /metrics; null: no metrics endpoint. */
  metricsToken: string | null;
  /** Quota units per USD. */
  quotaPerUsd: number;
  relayMaxRetries: number;
  relayTimeoutMs: number;
  /** Serve models that have no price row for free (default: refuse them with 403 `model_price_not_set`). */
  relayAllowUnpricedModels: boolean;
  /** How often auto-disabled channels and keys are probed for recovery. */
  relayProbeIntervalMs: number;
  cacheSyncIntervalMs: number;
  /** How often each node looks for open relay reserves of dead nodes (billing/recovery.ts). */
  relayRecoveryIntervalMs: number;
  /** How long a graceful stop (SIGTERM) lets requests and streams in flight finish before cutting them. */
  shutdownTimeoutMs: number;
  /** How long a conversation sticks to the channel that served it (relay/affinity.ts); 0 turns it off. */
  relayAffinityTtlMs: number;
  /** A Responses WebSocket with no turn in progress is closed after this long without a message (relay/responses-socket.ts); 0: never. */
  responsesSocketIdleMs: number;
  /** A node's liveness lease, renewed every third of it; its open reserves are recovered once it lapsed. */
  nodeLeaseMs: number;
  logRetentionDays: number;
  /** Days of hourly usage roll-ups kept (0: forever). */
  usageRetentionDays: number;
  /** Days a converted Responses conversation can be continued with `previous_response_id` (0: forever). */
  responsesRetentionDays: number;
  taskPollIntervalSeconds: number;
  taskPollMaxFailures: number;
  /** How long a node holds a claimed task while polling it. */
  taskPollLeaseSeconds: number;
  /** Ceiling of the poll back-off after failures. */
  taskPollBackoffMaxSeconds: number;
  taskTimeoutMinutes: number;
  taskProtocolTimeoutSeconds: number;
  /** How often protocol waits (image, Responses sync/stream) look at the task and poll it in-request. */
  taskProtocolTickMs: number;
  /** SSE heartbeat interval of Responses streams. */
  taskProtocolHeartbeatSeconds: number;
  /** Largest file the host downloads for a plugin (image b64_json results). */
  maxFileDownloadMb: number;
  contentAllowPrivateAddresses: boolean;
  /** Task callbacks (tasks/callbacks): how often the lease holder looks for due deliveries. */
  taskCallbackIntervalMs: number;
  /** First retry delay of a failed delivery; doubles per attempt up to taskCallbackRetryMaxMs. */
  taskCallbackRetryBaseMs: number;
  taskCallbackRetryMaxMs: number;
  /** A delivery is given up this long after its first attempt. */
  taskCallbackGiveUpMs: number;
  /** Time one delivery attempt may take (connect, answer). */
  taskCallbackTimeoutMs: number;
  pluginCallTimeoutMs: number;
  pluginMemoryLimitMb: number;
  pluginPoolSize: number;
  nodeId: string;
  /**
   * Other serving processes write the same database file: this process is one of `WORKERS` > 1
   * (the primary sets GATEHOUSE_WORKER for each). The ledger then never waits for SQLite's lock on
   * its thread (billing/ledger.ts).
   */
  sharedWriters: boolean;
  /** Serve the web console at `/` (CONSOLE_ENABLED, default true). */
  consoleEnabled: boolean;
  /** The console's build directory (CONSOLE_DIR); null: packages/web/dist. */
  consoleDir: string | null;
  /** Time a client has to send a whole request (headers and body), in ms; 0: no limit. */
  requestTimeoutMs: number;
  /** Largest total size of the files of one multipart upload (task submissions, image edits, audio). */
  maxUploadBytes: number;
  /** Where the secret came from when CRYPTO_SECRET was not set: a file beside the SQLite database. */
  cryptoSecretFile: string | null;
  /** Alert e-mail: the SMTP server (`smtp://user:pass@host:port`, `smtps://…`; null: no e-mail) and the sender. */
  smtpUrl: string | null;
  mailFrom: string;
  /** Stripe online top-up: the secret API key and the webhook signing secret (both needed). */
  stripeSecretKey: string | null;
  stripeWebhookSecret: string | null;
  /** Another address for Stripe's API (a proxy); null: api.stripe.com. */
  stripeApiBase: string | null;
  /**
   * The gateway's public address (PUBLIC_URL, or its older name SERVER_ADDRESS; no trailing slash):
   * links in mail and in task artifacts, SSO redirect URIs, checkout return addresses, the OpenAPI
   * servers, the WebAuthn relying party of passkeys; null: from the request where that is allowed.
   */
  publicUrl: string | null;
  /** Older variable names found in the environment, each with what to set instead (logged at start). */
  warnings: string[];
}

/**
 * Older names of environment variables → the current name (and the factor from the old unit to the
 * new one). An older name is read only when the current one is unset.
 */
export const ENV_ALIASES: Readonly<Record<string, { name: string; factor?: number }>> = {
  SERVER_ADDRESS: { name: 'PUBLIC_URL' },
  TASK_TIMEOUT_MINUTES: { name: 'TASK_TIMEOUT_SECONDS', factor: 60 },
  TASK_CALLBACK_GIVE_UP_HOURS: { name: 'TASK_CALLBACK_GIVE_UP_SECONDS', factor: 3600 },
  TASK_PLUGIN_PROTOCOL_TICK_MILLISECONDS: { name: 'TASK_PLUGIN_PROTOCOL_TICK_SECONDS', factor: 0.001 },
  PLUGIN_CALL_TIMEOUT_MS: { name: 'PLUGIN_CALL_TIMEOUT_SECONDS', factor: 0.001 },
  LOG_RETENTION_DAYS: { name: 'LOG_RETENTION_SECONDS', factor: 86_400 },
  USAGE_RETENTION_DAYS: { name: 'USAGE_RETENTION_SECONDS', factor: 86_400 },
  RESPONSES_RETENTION_DAYS: { name: 'RESPONSES_RETENTION_SECONDS', factor: 86_400 },
};

/**
 * The environment with each older name that is set (and whose current name is not) read under its
 * current name, converted to its unit; `warnings` gets one line per older name found.
 */
function withAliases(env: NodeJS.ProcessEnv, warnings: string[]): NodeJS.ProcessEnv {
  let out = env;
  for (const [old, { name, factor }] of Object.entries(ENV_ALIASES)) {
    const raw = env[old];
    if (raw === undefined || raw === '') continue;
    if (env[name] !== undefined && env[name] !== '') {
      warnings.push(`${old} is ignored: ${name} is set (${old} is its older name)`);
      continue;
    }
    let v = raw;
    if (factor !== undefined) {
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new Error(`${old} must be a number, got "${raw}"`);
      // A factor below 1 divides (ms → s), so whole values stay exact.
      v = String(factor < 1 ? n / Math.round(1 / factor) : n * factor);
    }
    warnings.push(
      `${old} is an older name of ${name}: it still works, but set ${name}${factor !== undefined ? ` (${name}=${v})` : ''} instead`,
    );
    out = out === env ? { ...env } : out;
    out[name] = v;
  }
  if (env.TASK_PUBLIC_ADDRESS) {
    warnings.push('TASK_PUBLIC_ADDRESS is an older setting: it still sets the address of artifact links, but set PUBLIC_URL instead');
  }
  return out;
}

function num(env: NodeJS.ProcessEnv, name: string, dflt: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got "${raw}"`);
  return n;
}

function positive(n: number, dflt: number): number {
  return n > 0 ? n : dflt;
}

function bool(env: NodeJS.ProcessEnv, name: string, dflt: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  return /^(1|true|yes|on)$/i.test(raw);
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: unset/`false`/`0` trusts no hop; a whole number `n` trusts the last `n` hops (the
 * client is the `n`-th address from the right of X-Forwarded-For); a comma-separated list of
 * addresses, CIDRs or `loopback`/`linklocal`/`uniquelocal` trusts exactly those proxies. `true`
 * (every hop, so the client picks its own address) is refused.
 */
export function trustProxy(raw: string | undefined): false | number | string[] {
  const v = (raw ?? '').trim();
  if (v === '' || /^(false|no|off|0)$/i.test(v)) return false;
  if (/^(true|yes|on)$/i.test(v)) {
    throw new Error(
      'TRUST_PROXY=true is not accepted: it trusts every X-Forwarded-For entry, so any client can claim any address. ' +
        'Set TRUST_PROXY to the number of proxies in front of the gateway (e.g. TRUST_PROXY=1) or to their addresses or CIDRs (e.g. TRUST_PROXY=10.0.0.0/8,127.0.0.1)',
    );
  }
  if (/^\d+$/.test(v)) return Number(v);
  const list = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const e of list) {
    if (PROXY_NAMES.has(e)) continue;
    const [addr, bits, extra] = e.split('/');
    const fam = isIP(addr);
    const max = fam === 4 ? 32 : 128;
    if (!fam || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max))) {
      throw new Error(
        `TRUST_PROXY: "${e}" is not an address, a CIDR or one of loopback, linklocal, uniquelocal (expected a hop count like 1 or a list like 10.0.0.0/8,127.0.0.1)`,
      );
    }
  }
  return list;
}

export type DatabaseKind = 'sqlite' | 'postgres' | 'mysql';

/** How each supported DATABASE_URL looks, for error messages. */
export const DATABASE_URL_EXAMPLES =
  'sqlite:./data/gatehouse.db, postgres://user:password@127.0.0.1:5432/gatehouse or mysql://user:password@127.0.0.1:3306/gatehouse';

/** A DATABASE_URL fit for messages and logs: user and password replaced. */
export const redactDatabaseUrl = (url: string): string => url.replace(/\/\/[^@/]*@/, '//***@');

/**
 * The database a DATABASE_URL names: `sqlite:PATH` (or a plain file path), `postgres://…` / `postgresql://…`,
 * `mysql://…` / `mariadb://…`. Anything else (another scheme, a misspelt one) is refused with the setting, what
 * was wrong and examples, before anything is created.
 */
export function databaseKind(url: string): DatabaseKind {
  if (/^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  if (/^(mysql|mariadb):\/\//i.test(url)) return 'mysql';
  const sqlite = /^sqlite:(?:\/\/)?(.*)$/i.exec(url);
  if (sqlite) {
    if (!sqlite[1].trim())
      throw new Error(`DATABASE_URL "${url}" names no file: write the path after sqlite:, e.g. sqlite:./data/gatehouse.db`);
    return 'sqlite';
  }
  // A scheme (two letters or more: "C:" is a Windows drive) that is none of the above.
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(url);
  if (scheme) {
    const rest = url.slice(scheme[0].length).replace(/^\/\//, '');
    const hint = /^sqlite|^file$/i.test(scheme[1])
      ? ` Did you mean sqlite:${rest}?`
      : /^(pg|postgre)/i.test(scheme[1])
        ? ` Did you mean postgres://${rest}?`
        : /^(my|maria)/i.test(scheme[1])
          ? ` Did you mean mysql://${rest}?`
          : '';
    throw new Error(
      `DATABASE_URL "${redactDatabaseUrl(url)}" starts with "${scheme[1]}:", which is not a database Gatehouse supports (SQLite, PostgreSQL, MySQL/MariaDB).${hint} Examples: ${DATABASE_URL_EXAMPLES}`,
    );
  }
  return 'sqlite';
}

/**
 * CRYPTO_SECRET seals channel keys and signs links, so it must survive restarts and be the same on
 * every node. Without it, a SQLite install keeps a generated one in `crypto-secret` beside the database
 * file; PostgreSQL/MySQL (shared by several nodes) require it to be set.
 */
function resolveCryptoSecret(env: NodeJS.ProcessEnv, databaseUrl: string): { secret: string; file: string | null } {
  if (env.CRYPTO_SECRET) return { secret: env.CRYPTO_SECRET, file: null };
  if (databaseKind(databaseUrl) !== 'sqlite') {
    throw new Error(
      'CRYPTO_SECRET must be set when DATABASE_URL is PostgreSQL or MySQL: every node needs the same value, e.g. CRYPTO_SECRET=$(openssl rand -hex 32)',
    );
  }
  const path = databaseUrl.replace(/^sqlite:(\/\/)?/i, '');
  if (path === ':memory:') return { secret: randomBytes(32).toString('hex'), file: null };
  const file = join(dirname(resolve(path)), 'crypto-secret');
  try {
    if (existsSync(file)) return { secret: readFileSync(file, 'utf8').trim(), file };
    mkdirSync(dirname(file), { recursive: true });
    const secret = randomBytes(32).toString('hex');
    writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
    return { secret, file };
  } catch (e) {
    throw new Error(
      `CRYPTO_SECRET is not set and cannot be kept in ${file}, beside the SQLite database of DATABASE_URL=${databaseUrl}: ${(e as Error).message}. ` +
        'Check that the folder exists or can be made and that this user may write there (example: DATABASE_URL=sqlite:./data/gatehouse.db), or set CRYPTO_SECRET.',
    );
  }
}

export function loadConfig(given: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const warnings: string[] = [];
  const env = withAliases(given, warnings);
  const databaseUrl = overrides.databaseUrl ?? (env.DATABASE_URL || 'sqlite:./data/gatehouse.db');
  databaseKind(databaseUrl);
  const { secret: cryptoSecret, file: cryptoSecretFile } = overrides.cryptoSecret
    ? { secret: overrides.cryptoSecret, file: null }
    : resolveCryptoSecret(env, databaseUrl);
  const cfg: Config = {
    port: num(env, 'PORT', 3000),
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    redisUrl: env.REDIS_URL || null,
    redisCommandTimeoutMs: Math.max(10, num(env, 'REDIS_COMMAND_TIMEOUT_SECONDS', 0.5) * 1000),
    cryptoSecret,
    sessionSecret: env.SESSION_SECRET || `session:${cryptoSecret}`,
    configFile: env.GATEHOUSE_CONFIG || null,
    rootPassword: env.GATEHOUSE_ROOT_PASSWORD || null,
    taskPublicAddress: env.TASK_PUBLIC_ADDRESS ? env.TASK_PUBLIC_ADDRESS.replace(/\/+$/, '') : null,
    logLevel: env.LOG_LEVEL || 'info',
    trustProxy: trustProxy(env.TRUST_PROXY),
    metricsToken: env.METRICS_TOKEN || null,
    quotaPerUsd: num(env, 'QUOTA_PER_USD', 500_000),
    relayMaxRetries: num(env, 'RELAY_MAX_RETRIES', 2),
    relayTimeoutMs: num(env, 'RELAY_TIMEOUT_SECONDS', 300) * 1000,
    relayAllowUnpricedModels: bool(env, 'RELAY_ALLOW_UNPRICED_MODELS', false),
    relayProbeIntervalMs: num(env, 'RELAY_PROBE_INTERVAL_SECONDS', 60) * 1000,
    cacheSyncIntervalMs: num(env, 'CACHE_SYNC_INTERVAL_SECONDS', 1) * 1000,
    relayRecoveryIntervalMs: positive(num(env, 'RELAY_RECOVERY_INTERVAL_SECONDS', 10), 10) * 1000,
    relayAffinityTtlMs: Math.max(0, num(env, 'RELAY_AFFINITY_TTL_SECONDS', 300)) * 1000,
    responsesSocketIdleMs: Math.max(0, num(env, 'RESPONSES_WEBSOCKET_IDLE_SECONDS', 600)) * 1000,
    shutdownTimeoutMs: Math.max(0, num(env, 'SHUTDOWN_TIMEOUT_SECONDS', 30)) * 1000,
    nodeLeaseMs: positive(num(env, 'NODE_LEASE_SECONDS', 30), 30) * 1000,
    logRetentionDays: num(env, 'LOG_RETENTION_SECONDS', 0) / 86_400,
    usageRetentionDays: num(env, 'USAGE_RETENTION_SECONDS', 0) / 86_400,
    responsesRetentionDays: num(env, 'RESPONSES_RETENTION_SECONDS', 30 * 86_400) / 86_400,
    taskPollIntervalSeconds: num(env, 'TASK_POLL_INTERVAL_SECONDS', 15),
    taskPollMaxFailures: num(env, 'TASK_POLL_MAX_FAILURES', 20),
    taskPollLeaseSeconds: num(env, 'TASK_POLL_LEASE_SECONDS', 60),
    taskPollBackoffMaxSeconds: num(env, 'TASK_POLL_BACKOFF_MAX_SECONDS', 300),
    taskTimeoutMinutes: num(env, 'TASK_TIMEOUT_SECONDS', 86_400) / 60,
    taskProtocolTimeoutSeconds: num(env, 'TASK_PLUGIN_PROTOCOL_TIMEOUT_SECONDS', 600),
    taskProtocolTickMs: Math.round(positive(num(env, 'TASK_PLUGIN_PROTOCOL_TICK_SECONDS', 2), 2) * 1000),
    taskProtocolHeartbeatSeconds: positive(num(env, 'TASK_PLUGIN_PROTOCOL_HEARTBEAT_SECONDS', 15), 15),
    maxFileDownloadMb: positive(num(env, 'MAX_FILE_DOWNLOAD_MB', 64), 64),
    contentAllowPrivateAddresses: bool(env, 'CONTENT_ALLOW_PRIVATE_ADDRESSES', false),
    taskCallbackIntervalMs: positive(num(env, 'TASK_CALLBACK_INTERVAL_SECONDS', 1), 1) * 1000,
    taskCallbackRetryBaseMs: positive(num(env, 'TASK_CALLBACK_RETRY_BASE_SECONDS', 10), 10) * 1000,
    taskCallbackRetryMaxMs: positive(num(env, 'TASK_CALLBACK_RETRY_MAX_SECONDS', 3600), 3600) * 1000,
    taskCallbackGiveUpMs: positive(num(env, 'TASK_CALLBACK_GIVE_UP_SECONDS', 86_400), 86_400) * 1000,
    taskCallbackTimeoutMs: positive(num(env, 'TASK_CALLBACK_TIMEOUT_SECONDS', 10), 10) * 1000,
    pluginCallTimeoutMs: Math.round(num(env, 'PLUGIN_CALL_TIMEOUT_SECONDS', 5) * 1000),
    pluginMemoryLimitMb: num(env, 'PLUGIN_MEMORY_LIMIT_MB', 64),
    pluginPoolSize: num(env, 'PLUGIN_POOL_SIZE', 2),
    nodeId: env.NODE_ID || `node-${randomBytes(4).toString('hex')}`,
    sharedWriters: !!env.GATEHOUSE_WORKER,
    consoleEnabled: bool(env, 'CONSOLE_ENABLED', true),
    consoleDir: env.CONSOLE_DIR || null,
    requestTimeoutMs: Math.max(0, num(env, 'REQUEST_TIMEOUT_SECONDS', 120)) * 1000,
    maxUploadBytes: positive(num(env, 'MAX_UPLOAD_MB', 128), 128) * 1024 * 1024,
    cryptoSecretFile,
    smtpUrl: env.SMTP_URL || null,
    mailFrom: env.MAIL_FROM || 'Gatehouse <gatehouse@localhost>',
    stripeSecretKey: env.STRIPE_SECRET_KEY || null,
    stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET || null,
    stripeApiBase: env.STRIPE_API_BASE || null,
    publicUrl: env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/+$/, '') : null,
    warnings,
    ...overrides,
  };
  return cfg;
}
