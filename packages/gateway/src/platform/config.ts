/**
 * Process settings, read once from the environment. Every variable is listed in docs/configuration.md.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | null;
  cryptoSecret: string;
  sessionSecret: string;
  configFile: string | null;
  rootPassword: string | null;
  serverAddress: string | null;
  taskPublicAddress: string | null;
  logLevel: string;
  /** Trust X-Forwarded-For from a reverse proxy when reading the client IP. */
  trustProxy: boolean;
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
  logRetentionDays: number;
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
  pluginCallTimeoutMs: number;
  pluginMemoryLimitMb: number;
  pluginPoolSize: number;
  nodeId: string;
  /** Serve the web console at `/` (CONSOLE_ENABLED, default true). */
  consoleEnabled: boolean;
  /** The console's build directory (CONSOLE_DIR); null: packages/web/dist. */
  consoleDir: string | null;
  /** Where the secret came from when CRYPTO_SECRET was not set: a file beside the SQLite database. */
  cryptoSecretFile: string | null;
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

/**
 * CRYPTO_SECRET seals channel keys and signs links, so it must survive restarts and be the same on
 * every node. Without it, a SQLite install keeps a generated one in `crypto-secret` beside the database
 * file; PostgreSQL/MySQL (shared by several nodes) require it to be set.
 */
function resolveCryptoSecret(env: NodeJS.ProcessEnv, databaseUrl: string): { secret: string; file: string | null } {
  if (env.CRYPTO_SECRET) return { secret: env.CRYPTO_SECRET, file: null };
  const m = /^sqlite:(?:\/\/)?(.+)$/i.exec(databaseUrl);
  if (!m || m[1] === ':memory:') {
    if (m) return { secret: randomBytes(32).toString('hex'), file: null };
    throw new Error('CRYPTO_SECRET must be set when DATABASE_URL is PostgreSQL or MySQL (every node needs the same value)');
  }
  const file = join(dirname(resolve(m[1])), 'crypto-secret');
  if (existsSync(file)) return { secret: readFileSync(file, 'utf8').trim(), file };
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret + '\n', { mode: 0o600, flag: 'wx' });
  return { secret, file };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const databaseUrl = overrides.databaseUrl ?? (env.DATABASE_URL || 'sqlite:./data/gatehouse.db');
  const { secret: cryptoSecret, file: cryptoSecretFile } = overrides.cryptoSecret
    ? { secret: overrides.cryptoSecret, file: null }
    : resolveCryptoSecret(env, databaseUrl);
  const cfg: Config = {
    port: num(env, 'PORT', 3000),
    host: env.HOST || '0.0.0.0',
    databaseUrl,
    redisUrl: env.REDIS_URL || null,
    cryptoSecret,
    sessionSecret: env.SESSION_SECRET || `session:${cryptoSecret}`,
    configFile: env.GATEHOUSE_CONFIG || null,
    rootPassword: env.GATEHOUSE_ROOT_PASSWORD || null,
    serverAddress: env.SERVER_ADDRESS || null,
    taskPublicAddress: env.TASK_PUBLIC_ADDRESS || null,
    logLevel: env.LOG_LEVEL || 'info',
    trustProxy: bool(env, 'TRUST_PROXY', false),
    metricsToken: env.METRICS_TOKEN || null,
    quotaPerUsd: num(env, 'QUOTA_PER_USD', 500_000),
    relayMaxRetries: num(env, 'RELAY_MAX_RETRIES', 2),
    relayTimeoutMs: num(env, 'RELAY_TIMEOUT_SECONDS', 300) * 1000,
    relayAllowUnpricedModels: bool(env, 'RELAY_ALLOW_UNPRICED_MODELS', false),
    relayProbeIntervalMs: num(env, 'RELAY_PROBE_INTERVAL_SECONDS', 60) * 1000,
    cacheSyncIntervalMs: num(env, 'CACHE_SYNC_INTERVAL_SECONDS', 1) * 1000,
    logRetentionDays: num(env, 'LOG_RETENTION_DAYS', 0),
    taskPollIntervalSeconds: num(env, 'TASK_POLL_INTERVAL_SECONDS', 15),
    taskPollMaxFailures: num(env, 'TASK_POLL_MAX_FAILURES', 20),
    taskPollLeaseSeconds: num(env, 'TASK_POLL_LEASE_SECONDS', 60),
    taskPollBackoffMaxSeconds: num(env, 'TASK_POLL_BACKOFF_MAX_SECONDS', 300),
    taskTimeoutMinutes: num(env, 'TASK_TIMEOUT_MINUTES', 1440),
    taskProtocolTimeoutSeconds: num(env, 'TASK_PLUGIN_PROTOCOL_TIMEOUT_SECONDS', 600),
    taskProtocolTickMs: positive(num(env, 'TASK_PLUGIN_PROTOCOL_TICK_MILLISECONDS', 2000), 2000),
    taskProtocolHeartbeatSeconds: positive(num(env, 'TASK_PLUGIN_PROTOCOL_HEARTBEAT_SECONDS', 15), 15),
    maxFileDownloadMb: positive(num(env, 'MAX_FILE_DOWNLOAD_MB', 64), 64),
    contentAllowPrivateAddresses: bool(env, 'CONTENT_ALLOW_PRIVATE_ADDRESSES', false),
    pluginCallTimeoutMs: num(env, 'PLUGIN_CALL_TIMEOUT_MS', 5000),
    pluginMemoryLimitMb: num(env, 'PLUGIN_MEMORY_LIMIT_MB', 64),
    pluginPoolSize: num(env, 'PLUGIN_POOL_SIZE', 2),
    nodeId: env.NODE_ID || `node-${randomBytes(4).toString('hex')}`,
    consoleEnabled: bool(env, 'CONSOLE_ENABLED', true),
    consoleDir: env.CONSOLE_DIR || null,
    cryptoSecretFile,
    ...overrides,
  };
  return cfg;
}
