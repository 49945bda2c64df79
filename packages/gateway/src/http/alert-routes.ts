/**
 * Alerts under /api: a user's own alert settings (GET/PUT /api/user/self/alerts: low-balance
 * threshold, e-mail, webhook), the outbox for admins (GET /api/alert) and a test alert for root
 * (POST /api/alert/test). Envelope {success, message, data}. Thin: decode, call services.alerts, encode.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import type { Obj } from '../platform/validate.ts';
import { ok } from './envelope.ts';

export async function alertRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { alerts } = deps.services.alerts;
  const anyUser = { onRequest: requireUser(deps, 'user') };
  const adminOnly = { onRequest: requireUser(deps, 'admin') };
  const rootOnly = { onRequest: requireUser(deps, 'root') };
  const q = (req: FastifyRequest) => (req.query ?? {}) as Obj;

  await app.register(async (api) => {
    api.setErrorHandler(familyErrorHandler('admin'));

    api.get('/api/user/self/alerts', anyUser, async (req) => ok(await alerts.settings(req.user!.id)));
    api.put('/api/user/self/alerts', anyUser, async (req) => {
      const saved = await alerts.saveSettings(req.user!.id, alerts.parseSettings(req.body));
      return ok(saved, saved.webhook_secret ? 'the webhook signing secret is shown once: store it now' : '');
    });
    api.get('/api/alert', adminOnly, async (req) => ok(await alerts.list(alerts.parseQuery(q(req)))));
    api.post('/api/alert/test', rootOnly, async (req) => ok(await alerts.test(req.user!.username), 'test alert queued'));
  });
}
