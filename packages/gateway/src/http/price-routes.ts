/**
 * Model prices and group ratios under /api (read: any user; write: admins): the price book
 * (/api/price, one price at /api/price/{model}, the model may contain `/`), the list-price catalog
 * with its import, the price editor's preview, and group ratios (/api/group_ratio). Envelope
 * {success, message, data}. Each route declares its schemas (http/schemas/prices.ts): Fastify checks
 * requests and writes answers with them. Thin: decode, call services.admin, encode.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { Envelope, Paged, adminErrors, loggedIn, ref } from './schemas/common.ts';
import {
  CatalogEntry,
  CatalogImport,
  CatalogImportInput,
  GroupParams,
  GroupRatio,
  GroupRatioInput,
  ModelParams,
  PRICE_SCHEMAS,
  Price,
  PriceInput,
  PriceListQuery,
  PricePreview,
  PricePreviewInput,
} from './schemas/prices.ts';
import { Reader, paging } from '../platform/validate.ts';
import { ok } from './envelope.ts';

/** A prices operation: tagged, behind a login, its answer and error answers. */
const op = <M extends object = object>(summary: string, answer: TSchema, more?: M) => ({
  tags: ['prices'],
  summary,
  security: loggedIn,
  ...(more as M),
  response: { 200: answer, ...adminErrors },
});

export async function priceRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const admin = deps.services.admin;
  const anyUser = { onRequest: requireUser(deps, 'user') };
  const adminOnly = { onRequest: requireUser(deps, 'admin') };
  for (const s of PRICE_SCHEMAS) app.addSchema(s);
  const price = Envelope(ref(Price));
  const none = Envelope(Type.Null());
  const oneModel = { params: ModelParams };
  const modelPath = { docPath: '/api/price/{model}' };

  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    api.get(
      '/api/price',
      { ...anyUser, schema: op('List model prices', Paged(ref(Price)), { querystring: PriceListQuery }) },
      async (req) => ok(await admin.prices.list({ ...paging(req.query), keyword: new Reader(req.query).str('keyword', { max: 191 }) })),
    );
    for (const [method, summary] of [
      ['PUT', 'Set the price of a model (replaces it; POST does the same) (admin)'],
      ['POST', 'Set the price of a model (replaces it; the same as PUT) (admin)'],
    ] as const) {
      api.route({
        method,
        url: '/api/price',
        ...adminOnly,
        schema: op(summary, price, { body: ref(PriceInput) }),
        handler: async (req) => ok((await admin.prices.set(admin.prices.parse(req.body), req.user)).view),
      });
    }
    api.get(
      '/api/price/catalog',
      {
        ...adminOnly,
        schema: op(
          'The list-price catalog: every entry with its source and date, and whether the price book has the model (admin)',
          Envelope(Type.Array(ref(CatalogEntry))),
        ),
      },
      async () => ok(await admin.priceCatalog.list()),
    );
    api.post(
      '/api/price/import',
      {
        ...adminOnly,
        schema: op(
          "Adopt the catalog's prices (all, or `models`); prices already set are kept unless `overwrite` (admin)",
          Envelope(ref(CatalogImport)),
          { body: CatalogImportInput },
        ),
      },
      async (req) => ok(await admin.priceCatalog.import(admin.priceCatalog.parseImport(req.body), req.user)),
    );
    api.post(
      '/api/price/preview',
      {
        ...adminOnly,
        schema: op(
          'What a call with a given usage would cost at a price being edited (`price`) or a saved one (`model`) (admin)',
          Envelope(ref(PricePreview)),
          { body: ref(PricePreviewInput) },
        ),
      },
      async (req) => ok(await admin.priceCatalog.preview(req.body)),
    );
    api.get('/api/price/*', { ...anyUser, config: modelPath, schema: op('Price of one model', price, oneModel) }, async (req) =>
      ok(await admin.prices.get(decodeURIComponent(req.params['*']))),
    );
    api.delete('/api/price/*', { ...adminOnly, config: modelPath, schema: op('Delete a price (admin)', none, oneModel) }, async (req) => {
      await admin.prices.remove(decodeURIComponent(req.params['*']), req.user);
      return ok(null, 'price deleted');
    });

    api.get(
      '/api/group_ratio',
      { ...anyUser, schema: op('Group ratios (1 when a group has none)', Envelope(Type.Array(ref(GroupRatio)))) },
      async () => ok(await admin.prices.listRatios()),
    );
    api.put(
      '/api/group_ratio',
      { ...adminOnly, schema: op('Set a group ratio (admin)', Envelope(ref(GroupRatio)), { body: GroupRatioInput }) },
      async (req) => {
        const v = admin.prices.parseRatio(req.body);
        await admin.prices.setRatio(v, req.user);
        return ok(v);
      },
    );
    api.delete(
      '/api/group_ratio/:group',
      { ...adminOnly, schema: op('Delete a group ratio (admin)', none, { params: GroupParams }) },
      async (req) => {
        await admin.prices.removeRatio(req.params.group, req.user);
        return ok(null, 'group ratio deleted');
      },
    );
  });
}
