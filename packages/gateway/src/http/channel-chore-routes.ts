/**
 * Channel chores at New API's paths, in its envelope {success, message, data}: upstream balances,
 * the upstream's model list, tags, copies and deletes of several channels, a test of every model; and
 * the public models and prices list (GET /api/pricing, no login, while PublicPricingEnabled is on).
 * Thin: decode, call the relay's and the administration's services, encode.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { Reader, parseId, type Obj } from '../platform/validate.ts';
import { fail } from '../platform/errors.ts';
import { parseIds } from '../admin/channel-bulk.ts';
import { ChannelType } from '../channels/types.ts';
import { publicPricing } from '../relay/public-pricing.ts';
import { ok } from './envelope.ts';

export async function channelChoreRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { admin, relay } = deps.services;
  const adminOnly = { onRequest: requireUser(deps, 'admin') };
  const idOf = (req: FastifyRequest) => parseId((req.params as { id: string }).id);
  const q = (req: FastifyRequest) => new Reader((req.query ?? {}) as Obj);

  await app.register(async (api) => {
    api.setErrorHandler(familyErrorHandler('admin'));

    // ---- upstream balance ----
    api.get('/api/channel/update_balance/:id', adminOnly, async (req) => {
      const id = idOf(req);
      await admin.channels.get(id);
      return ok(await relay.updateBalance(id, req.user));
    });
    // Every enabled relay channel whose vendor publishes a balance; each one's result.
    api.get('/api/channel/update_balance', adminOnly, async (req) => {
      const results: Array<{ id: number; name: string; balance: number | null; error: string | null }> = [];
      for (const ch of relay.channels.all()) {
        if (ch.status !== 1 || ch.type !== ChannelType.openai) continue;
        try {
          results.push({ id: ch.id, name: ch.name, balance: (await relay.updateBalance(ch.id, req.user)).balance, error: null });
        } catch (e) {
          results.push({ id: ch.id, name: ch.name, balance: null, error: (e as Error).message });
        }
      }
      const failed = results.filter((r) => r.error).length;
      return ok(results, failed ? `${failed} of ${results.length} balances could not be read` : '');
    });

    // ---- the upstream's model list (data: the list; added/removed: what a sync would change) ----
    api.get('/api/channel/fetch_models/:id', adminOnly, async (req) => {
      const id = idOf(req);
      await admin.channels.get(id);
      const r = await relay.fetchModels(id);
      return { ...ok(r.models), added: r.added, removed: r.removed };
    });

    // ---- tags ----
    api.post('/api/channel/tag/disabled', adminOnly, async (req) => {
      const { tag } = admin.channelBulk.parseTag(req.body);
      return ok(await admin.channelBulk.setTagStatus(tag, false, req.user));
    });
    api.post('/api/channel/tag/enabled', adminOnly, async (req) => {
      const { tag } = admin.channelBulk.parseTag(req.body);
      return ok(await admin.channelBulk.setTagStatus(tag, true, req.user));
    });
    api.put('/api/channel/tag', adminOnly, async (req) => {
      const { tag, input } = admin.channelBulk.parseTagEdit(req.body);
      return ok(await admin.channelBulk.editTag(tag, input, req.user));
    });

    // ---- copy, delete several, delete the disabled ----
    api.post('/api/channel/copy/:id', adminOnly, async (req) => {
      const r = q(req);
      const suffix = r.str('suffix', { max: 64 });
      const reset = r.bool('reset_balance');
      return ok(await admin.channelBulk.copy(idOf(req), { suffix, keepBalance: reset === false }, req.user));
    });
    api.post('/api/channel/batch', adminOnly, async (req) => ok(await admin.channelBulk.removeMany(parseIds(req.body), req.user)));
    api.delete('/api/channel/disabled', adminOnly, async (req) => ok(await admin.channelBulk.removeDisabled(req.user)));

    // ---- every model of a channel tested, kept as its last test ----
    api.post('/api/channel/:id/test_all', adminOnly, async (req) => {
      const id = idOf(req);
      await admin.channels.get(id);
      const t = await relay.testAllModels(id);
      const failed = t.results.filter((r) => !r.ok).length;
      return ok(t, failed ? `${failed} of ${t.results.length} models failed` : '');
    });

    // ---- public models and prices (no login) ----
    api.get('/api/pricing', async () => {
      if (!admin.options.getBool('PublicPricingEnabled')) throw fail('not_found');
      return ok(publicPricing(relay.channels, deps.services.billing.prices));
    });
  });
}
