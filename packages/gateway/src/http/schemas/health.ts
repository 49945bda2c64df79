/**
 * The schemas of the health routes (http/health-routes.ts): liveness, and readiness with the state of
 * each check, what failed and what works in a degraded way.
 */
import { Type } from 'typebox';

export const Alive = Type.Object({ ok: Type.Literal(true) }, { description: 'alive' });

export const Readiness = Type.Object(
  {
    ready: Type.Boolean(),
    checks: Type.Object({
      database: Type.String({ enum: ['ok', 'failed'] }),
      redis: Type.String({ enum: ['ok', 'failed', 'not configured'] }),
      plugins: Type.String({ enum: ['ok', 'not built'] }),
      shutdown: Type.String({ enum: ['ok', 'shutting down'] }),
    }),
    errors: Type.Optional(Type.Array(Type.String(), { description: 'what failed, without credentials' })),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description: 'what works in a degraded way (Redis unavailable: rate limits and throttles count on this node alone)',
      }),
    ),
  },
  { $id: 'Readiness' },
);

export const HEALTH_SCHEMAS = [Readiness];
