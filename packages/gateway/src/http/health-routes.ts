/**
 * Health for load balancers and orchestrators: `GET /healthz` (the process answers; no I/O) and
 * `GET /readyz` (this node can serve: database reachable, plugin runtime built, not shutting down), and
 * `GET /` like `/healthz` when the console is off (it is the console's page otherwise).
 * Redis, when configured, is checked too, but a node without it still serves — its rate limits and
 * throttles count on the node alone (platform/redis-health.ts) — so a failed Redis is a warning, not
 * unreadiness: taking every node out of the load balancer at once would stop the gateway. Both are
 * cheap enough to call every second: readiness runs one `SELECT 1` and one Redis PING, each bounded by
 * a short time-out, and concurrent probes share one check. Both declare their answers
 * (http/schemas/health.ts).
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppDeps } from './deps.ts';
import { Alive, HEALTH_SCHEMAS, Readiness as ReadinessSchema } from './schemas/health.ts';
import { ref } from './schemas/common.ts';

const CHECK_TIMEOUT_MS = 2_000;

type CheckState = 'ok' | 'failed' | 'not configured' | 'not built' | 'shutting down';

export interface Readiness {
  ready: boolean;
  checks: { database: CheckState; redis: CheckState; plugins: CheckState; shutdown: CheckState };
  /** What failed, without connection strings or credentials. */
  errors?: string[];
  /** What works in a degraded way (Redis unavailable: limits and throttles count per node). */
  warnings?: string[];
}

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

export function healthRoutes(app: FastifyInstance, deps: AppDeps): void {
  const { core, services } = deps;
  let closing = false;
  let inFlight: Promise<Readiness> | null = null;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  async function check(): Promise<Readiness> {
    const errors: string[] = [];
    const checks: Readiness['checks'] = {
      database: 'ok',
      redis: 'not configured',
      plugins: 'ok',
      shutdown: closing || app.draining ? 'shutting down' : 'ok',
    };
    const db = withTimeout(sql`select 1`.execute(core.h.db), 'database').catch((e: Error) => {
      checks.database = 'failed';
      errors.push(`database: ${e.message.split('\n')[0]?.replace(/\/\/[^@\s]*@/g, '//***@')}`);
    });
    const warnings: string[] = [];
    const redis = core.redis
      ? withTimeout(core.redis.ping(), 'redis').then(
          () => {
            checks.redis = 'ok';
          },
          (e: Error) => {
            checks.redis = 'failed';
            warnings.push(
              `redis: ${e.message.split('\n')[0].replace(/\/\/[^@\s]*@/g, '//***@')}; rate limits, throttles and session affinity count on this node alone until it is back`,
            );
          },
        )
      : null;
    await Promise.all([db, redis]);
    if (services.plugins.lastRebuild.status === 'never') checks.plugins = 'not built';
    const ready = Object.entries(checks).every(([k, c]) => c === 'ok' || c === 'not configured' || k === 'redis');
    return { ready, checks, ...(errors.length ? { errors } : {}), ...(warnings.length ? { warnings } : {}) };
  }

  for (const s of HEALTH_SCHEMAS) app.addSchema(s);
  const health = { tags: ['health'], security: [] };
  app.get('/healthz', { schema: { ...health, summary: 'Liveness: the process answers (no I/O)', response: { 200: Alive } } }, async () => ({
    ok: true,
  }));
  // Without the console, the root answers like /healthz: clients probe it before their first call (Claude Code
  // sends HEAD /), and a gateway run for its APIs alone should not fail that probe.
  if (!deps.console) app.get('/', async () => ({ ok: true }));
  const readiness = ref(ReadinessSchema);
  const readyz = {
    ...health,
    summary: 'Readiness: database reachable, Redis when configured, plugin runtime built, not shutting down',
    response: {
      200: { ...readiness, description: 'ready' },
      503: { ...readiness, description: 'not ready; checks and errors say why' },
    },
  };
  app.get('/readyz', { schema: readyz }, async (_req, reply) => {
    inFlight ??= check().finally(() => {
      inFlight = null;
    });
    const r = await inFlight;
    return reply
      .code(r.ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send(r);
  });
}
