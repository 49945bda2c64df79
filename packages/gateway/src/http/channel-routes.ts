/**
 * Channels under /api/channel (admins): list, create, read, change, delete, one key's state, a test
 * request, every model some channel lists, and where a chat call would go on a channel being edited.
 * Envelope {success, message, data}; lists put {items, total, page, page_size} in data. Each route
 * declares its schemas (http/schemas/channels.ts): Fastify checks requests and writes answers with
 * them. Thin: decode, call services.admin.channels and the relay, encode.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { Reader, fieldError, paging } from '../platform/validate.ts';
import { parseChannelType } from '../channels/types.ts';
import { chatCallUrl } from '../relay/channels.ts';
import { CHANNEL_STATUS } from '../admin/channels.ts';
import { Envelope, IdParams, Paged, adminErrors, loggedIn, ref } from './schemas/common.ts';
import {
  CHANNEL_SCHEMAS,
  Channel,
  ChannelInput,
  ChannelListQuery,
  ChannelTest,
  KeyIndexParams,
  KeyStateBody,
  ModelQuery,
  TestBody,
  UpstreamUrlBody,
} from './schemas/channels.ts';
import { ok } from './envelope.ts';

/** A channels operation: admins only, its answer and the error answers. */
export const channelOp = <M extends object = object>(summary: string, answer: TSchema, more?: M) => ({
  tags: ['channels'],
  summary: `${summary} (admin)`,
  security: loggedIn,
  ...(more as M),
  response: { 200: answer, ...adminErrors },
});
const op = channelOp;

export async function channelRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const admin = deps.services.admin;
  const adminOnly = { onRequest: requireUser(deps, 'admin') };
  for (const s of CHANNEL_SCHEMAS) app.addSchema(s);
  const channel = Envelope(ref(Channel));
  const byId = { params: IdParams };

  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    api.get(
      '/api/channel',
      { ...adminOnly, schema: op('List channels', Paged(ref(Channel)), { querystring: ChannelListQuery }) },
      async (req) => {
        const qq = req.query;
        const r = new Reader(qq);
        let type: number | undefined;
        if (qq.type !== undefined && qq.type !== '') {
          try {
            type = parseChannelType(qq.type);
          } catch (e) {
            throw fieldError('type', (e as Error).message);
          }
        }
        const st = r.oneOf('status', ['enabled', 'disabled', 'auto_disabled'] as const);
        return ok(
          await admin.channels.list({
            ...paging(qq),
            keyword: r.str('keyword', { max: 128 }),
            type,
            status: st ? CHANNEL_STATUS[st] : undefined,
            group: r.str('group', { max: 64 }),
            tag: r.str('tag', { max: 64 }),
          }),
        );
      },
    );
    // Every model some channel lists (for pickers), and where a chat call would go on a channel being edited.
    api.get(
      '/api/channel/models',
      { ...adminOnly, schema: op('Every model some channel lists, sorted (for pickers)', Envelope(Type.Array(Type.String()))) },
      async () => ok([...new Set(deps.services.relay.channels.all().flatMap((c) => c.models))].sort()),
    );
    api.post(
      '/api/channel/upstream-url',
      {
        ...adminOnly,
        schema: op(
          'Where a chat call to `model` would go on a channel of this type, base URL and settings: the URL the relay builds (null for task channels and for a URL that needs what only a key holds)',
          Envelope(Type.Object({ url: Type.Union([Type.String(), Type.Null()]) })),
          { body: UpstreamUrlBody },
        ),
      },
      async (req) => {
        const r = Reader.of(req.body).only(['type', 'base_url', 'settings', 'model']);
        let type: number;
        try {
          type = parseChannelType(r.obj.type ?? 'openai');
        } catch (e) {
          throw fieldError('type', (e as Error).message);
        }
        const url = chatCallUrl(
          type,
          r.str('base_url', { max: 2048 }) ?? '',
          r.object('settings') ?? {},
          r.str('model', { max: 191 }) || 'MODEL',
        );
        return ok({ url });
      },
    );
    api.post('/api/channel', { ...adminOnly, schema: op('Create a channel', channel, { body: ref(ChannelInput) }) }, async (req) =>
      ok(await admin.channels.create(admin.channels.parse(req.body, 'create'), '', { actor: req.user })),
    );
    api.get('/api/channel/:id', { ...adminOnly, schema: op('One channel', channel, byId) }, async (req) =>
      ok(await admin.channels.get(req.params.id)),
    );
    api.put(
      '/api/channel/:id',
      { ...adminOnly, schema: op('Update a channel (absent keys are kept)', channel, { ...byId, body: ref(ChannelInput) }) },
      async (req) =>
        ok((await admin.channels.update(req.params.id, admin.channels.parse(req.body, 'update'), '', { actor: req.user })).view),
    );
    api.delete('/api/channel/:id', { ...adminOnly, schema: op('Delete a channel', Envelope(Type.Null()), byId) }, async (req) => {
      await admin.channels.remove(req.params.id, req.user);
      return ok(null, 'channel deleted');
    });
    api.put(
      '/api/channel/:id/keys/:index',
      { ...adminOnly, schema: op('Enable or disable one key of a channel', channel, { params: KeyIndexParams, body: KeyStateBody }) },
      async (req) => {
        const r = Reader.of(req.body).only(['enabled', 'reason']);
        const enabled = r.bool('enabled');
        if (enabled === undefined) throw fieldError('enabled', 'is required (true or false)');
        return ok(
          await admin.channels.setKeyState(req.params.id, req.params.index, enabled, r.str('reason', { max: 500 }) ?? null, req.user),
        );
      },
    );
    api.post(
      '/api/channel/:id/test',
      {
        ...adminOnly,
        schema: op(
          "Send a small test request through the channel (success false with the upstream's message when it fails)",
          Envelope(ChannelTest),
          { ...byId, querystring: ModelQuery, body: TestBody },
        ),
      },
      async (req) => {
        const id = req.params.id;
        await admin.channels.get(id);
        const r = Reader.of(req.body ?? {}).only(['model']);
        const model = r.str('model', { max: 191 }) ?? new Reader(req.query).str('model', { max: 191 });
        const t = await deps.services.relay.testChannel(id, model);
        return { success: t.ok, message: t.ok ? 'ok' : t.message, data: { time_ms: t.timeMs, status: t.status, model: t.model } };
      },
    );
  });
}
