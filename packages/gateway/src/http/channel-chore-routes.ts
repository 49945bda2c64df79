/**
 * Channel chores at New API's paths, in its envelope {success, message, data}: upstream balances,
 * the upstream's model list, tags, copies and deletes of several channels, a test of every model; and
 * the public models and prices list (GET /api/pricing, no login, while PublicPricingEnabled is on).
 * Each route declares its schemas (http/schemas/channels.ts). Thin: decode, call the relay's and the
 * administration's services, encode.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { Reader } from '../platform/validate.ts';
import { fail } from '../platform/errors.ts';
import { parseIds } from '../admin/channel-bulk.ts';
import { ChannelType } from '../channels/types.ts';
import { publicPricing } from '../relay/public-pricing.ts';
import { Envelope, IdParams, adminErrors, ref } from './schemas/common.ts';
import { Balance, Balances, Channel, ChannelTestAll, CopyQuery, IdsBody, PublicPricing, TagBody, TagEdit } from './schemas/channels.ts';
import { channelOp as op } from './channel-routes.ts';
import { ok } from './envelope.ts';

/** Shared schemas registered by http/channel-routes.ts; the public pricing list is this module's. */
const CHORE_SCHEMAS = [PublicPricing];

export async function channelChoreRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const { admin, relay } = deps.services;
  const adminOnly = { onRequest: requireUser(deps, 'admin') };

  for (const x of CHORE_SCHEMAS) app.addSchema(x);
  const byId = { params: IdParams };

  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    // ---- upstream balance ----
    api.get(
      '/api/channel/update_balance/:id',
      {
        ...adminOnly,
        schema: op("Read the channel's upstream balance from its vendor's billing endpoint and store it", Envelope(Balance), byId),
      },
      async (req) => {
        const id = req.params.id;
        await admin.channels.get(id);
        return ok(await relay.updateBalance(id, req.user));
      },
    );
    // Every enabled relay channel whose vendor publishes a balance; each one's result.
    api.get(
      '/api/channel/update_balance',
      {
        ...adminOnly,
        schema: op('Read and store the balance of every enabled OpenAI-compatible channel; each result', Envelope(Balances)),
      },
      async (req) => {
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
      },
    );

    // ---- the upstream's model list (data: the list; added/removed: what a sync would change) ----
    api.get(
      '/api/channel/fetch_models/:id',
      {
        ...adminOnly,
        schema: op(
          "The upstream's model list (data), with what a sync would add to and remove from the channel's models",
          Type.Object({
            success: Type.Boolean(),
            message: Type.String(),
            data: Type.Array(Type.String()),
            added: Type.Array(Type.String()),
            removed: Type.Array(Type.String()),
          }),
          byId,
        ),
      },
      async (req) => {
        const id = req.params.id;
        await admin.channels.get(id);
        const r = await relay.fetchModels(id);
        return { ...ok(r.models), added: r.added, removed: r.removed };
      },
    );

    // ---- tags ----
    const changedIds = Envelope(Type.Array(Type.Integer()));
    api.post(
      '/api/channel/tag/disabled',
      { ...adminOnly, schema: op('Disable every channel of a tag; the ids changed', changedIds, { body: TagBody }) },
      async (req) => {
        const { tag } = admin.channelBulk.parseTag(req.body);
        return ok(await admin.channelBulk.setTagStatus(tag, false, req.user));
      },
    );
    api.post(
      '/api/channel/tag/enabled',
      { ...adminOnly, schema: op('Enable every channel of a tag; the ids changed', changedIds, { body: TagBody }) },
      async (req) => {
        const { tag } = admin.channelBulk.parseTag(req.body);
        return ok(await admin.channelBulk.setTagStatus(tag, true, req.user));
      },
    );
    api.put(
      '/api/channel/tag',
      {
        ...adminOnly,
        schema: op('Set the same fields on every channel of a tag; the channels changed', Envelope(Type.Array(ref(Channel))), {
          body: TagEdit,
        }),
      },
      async (req) => {
        const { tag, input } = admin.channelBulk.parseTagEdit(req.body);
        return ok(await admin.channelBulk.editTag(tag, input, req.user));
      },
    );

    // ---- copy, delete several, delete the disabled ----
    api.post(
      '/api/channel/copy/:id',
      {
        ...adminOnly,
        schema: op('Copy a channel under its name plus a suffix', Envelope(ref(Channel)), { ...byId, querystring: CopyQuery }),
      },
      async (req) => {
        const r = new Reader(req.query);
        const suffix = r.str('suffix', { max: 64 });
        const reset = r.bool('reset_balance');
        return ok(await admin.channelBulk.copy(req.params.id, { suffix, keepBalance: reset === false }, req.user));
      },
    );
    api.post(
      '/api/channel/batch',
      { ...adminOnly, schema: op('Delete the channels with these ids; how many went', Envelope(Type.Integer()), { body: IdsBody }) },
      async (req) => ok(await admin.channelBulk.removeMany(parseIds(req.body), req.user)),
    );
    api.delete(
      '/api/channel/disabled',
      { ...adminOnly, schema: op('Delete every disabled channel (by hand or automatically); how many went', Envelope(Type.Integer())) },
      async (req) => ok(await admin.channelBulk.removeDisabled(req.user)),
    );

    // ---- every model of a channel tested, kept as its last test ----
    api.post(
      '/api/channel/:id/test_all',
      { ...adminOnly, schema: op('Test every model of a channel; kept as its last test', Envelope(ref(ChannelTestAll)), byId) },
      async (req) => {
        const id = req.params.id;
        await admin.channels.get(id);
        const t = await relay.testAllModels(id);
        const failed = t.results.filter((r) => !r.ok).length;
        return ok(t, failed ? `${failed} of ${t.results.length} models failed` : '');
      },
    );

    // ---- public models and prices (no login) ----
    api.get(
      '/api/pricing',
      {
        schema: {
          tags: ['public'],
          summary: 'The models a visitor may call with their price per group (404 unless PublicPricingEnabled)',
          security: [],
          response: { 200: Envelope(ref(PublicPricing)), 404: adminErrors[404] },
        },
      },
      async () => {
        if (!admin.options.getBool('PublicPricingEnabled')) throw fail('not_found');
        return ok(publicPricing(relay.channels, deps.services.billing.prices));
      },
    );
  });
}
