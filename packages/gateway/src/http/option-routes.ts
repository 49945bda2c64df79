/**
 * The run-time options under /api/option (root): every option with its value and default, a change
 * of one (`{key, value}`) or several (`{options: {...}}`), and a reset to the default. Envelope
 * {success, message, data}. Each route declares its schemas (http/schemas/options.ts): Fastify checks
 * requests and writes answers with them. Thin: decode, call services.admin.options, encode.
 */
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDeps } from './deps.ts';
import { familyErrorHandler } from './errors.ts';
import { requireUser } from './auth.ts';
import { Reader } from '../platform/validate.ts';
import { Envelope, adminErrors, loggedIn, ref } from './schemas/common.ts';
import { KeyParams, OPTION_SCHEMAS, Option, OptionChange } from './schemas/options.ts';
import { ok } from './envelope.ts';

/** An options operation: root only; every answer is the whole list of options. */
const op = <M extends object = object>(summary: string, more?: M) => ({
  tags: ['options'],
  summary: `${summary} (root)`,
  security: loggedIn,
  ...(more as M),
  response: { 200: Envelope(Type.Array(ref(Option))), ...adminErrors },
});

export async function optionRoutes(app: FastifyInstance, deps: AppDeps): Promise<void> {
  const options = deps.services.admin.options;
  const rootOnly = { onRequest: requireUser(deps, 'root') };
  for (const s of OPTION_SCHEMAS) app.addSchema(s);

  await app.register(async (scope) => {
    scope.setErrorHandler(familyErrorHandler('admin'));
    const api = scope.withTypeProvider<TypeBoxTypeProvider>();

    api.get('/api/option', { ...rootOnly, schema: op('All options with their values and defaults') }, async () => ok(options.list()));
    api.put(
      '/api/option',
      { ...rootOnly, schema: op('Set one option ({key, value}) or several ({options: {...}})', { body: ref(OptionChange) }) },
      async (req) => {
        const b = Reader.of(req.body);
        if (b.has('options')) {
          const map = b.only(['options']).object('options')!;
          for (const [k, v] of Object.entries(map)) options.normalise(k, v, `options.${k}`);
          for (const [k, v] of Object.entries(map)) await options.set(k, v, `options.${k}`, req.user);
        } else {
          b.only(['key', 'value']);
          const key = b.str('key', { required: true, max: 128 })!;
          await options.set(key, b.obj.value, 'value', req.user);
        }
        return ok(options.list());
      },
    );
    api.delete('/api/option/:key', { ...rootOnly, schema: op('Reset an option to its default', { params: KeyParams }) }, async (req) => {
      await options.reset(req.params.key, req.user);
      return ok(options.list());
    });
  });
}
