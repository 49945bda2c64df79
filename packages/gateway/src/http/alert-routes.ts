/**
 * Alerts under /api: a user's own alert settings (GET/PUT /api/user/self/alerts: low-balance
 * threshold, e-mail, webhook), the outbox for admins (GET /api/alert) and a test alert for root
 * (POST /api/alert/test); each declares its schemas (http/schemas/alerts.ts). Envelope {success, message, data}. Thin: decode, call services.alerts, encode.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Envelope, Paged, adminErrors, loggedIn, ref } from './schemas/common.ts';
import { ALERT_SCHEMAS, Alert, AlertEvent, AlertListQuery, AlertSettings, AlertSettingsInput } from './schemas/alerts.ts';
import { ok } from './envelope.ts';

export async function alertRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { alerts } = deps.services.alerts;
  const anyUser = { onRequest: requireUser(deps, 'user') };
  const adminOnly = { onRequest: requireUser(deps, 'admin') };
  const rootOnly = { onRequest: requireUser(deps, 'root') };

  // Every route declares its schemas (http/schemas/alerts.ts): Fastify checks requests and writes answers with them.
  for (const s of ALERT_SCHEMAS) app.addSchema(s);
  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    const settings = { 200: Envelope(ref(AlertSettings)), ...adminErrors };
    api.get(
      '/api/user/self/alerts',
      { ...anyUser, schema: { tags: ['alerts'], summary: 'Your low-balance alert settings', security: loggedIn, response: settings } },
      async (req) => ok(await alerts.settings(req.user!.id)),
    );
    api.put(
      '/api/user/self/alerts',
      {
        ...anyUser,
        schema: {
          tags: ['alerts'],
          summary:
            'Set your low-balance threshold, e-mail and webhook (fields not given are kept); a generated webhook secret is in the answer once',
          security: loggedIn,
          body: ref(AlertSettingsInput),
          response: settings,
        },
      },
      async (req) => {
        const saved = await alerts.saveSettings(req.user!.id, alerts.parseSettings(req.body));
        return ok(saved, saved.webhook_secret ? 'the webhook signing secret is shown once: store it now' : '');
      },
    );
    api.get(
      '/api/alert',
      {
        ...adminOnly,
        schema: {
          tags: ['alerts'],
          summary: 'The alert outbox: every delivery with its status and attempts, newest first (admin)',
          security: loggedIn,
          querystring: AlertListQuery,
          response: { 200: Paged(ref(Alert)), ...adminErrors },
        },
      },
      async (req) => ok(await alerts.list(alerts.parseQuery(req.query))),
    );
    api.post(
      '/api/alert/test',
      {
        ...rootOnly,
        schema: {
          tags: ['alerts'],
          summary: 'Queue a test operator alert (400 when no operator destination is set) (root)',
          security: loggedIn,
          response: { 200: Envelope(ref(AlertEvent)), ...adminErrors },
        },
      },
      async (req) => ok(await alerts.test(req.user!.username), 'test alert queued'),
    );
  });
}
