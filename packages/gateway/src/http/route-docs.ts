/**
 * How routes describe themselves. A route declares its schemas (`params`, `querystring`, `body`,
 * `response`, with TypeBox) in its options: Fastify validates requests and serializes answers with
 * them, and @fastify/swagger builds the OpenAPI document (GET /api/openapi.json) from the registered
 * routes. A route without its own schemas takes its described operation from http/docs/ (by method
 * and path) as documentation only: nothing is validated or serialized by it.
 */
import type { FastifyInstance, FastifySchemaValidationError, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import { Ajv, type AnySchema } from 'ajv';
import addFormats from 'ajv-formats';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { describedPaths, documentBase, type Schema } from './docs/index.ts';
import { SHARED_SCHEMAS } from './schemas/common.ts';
import { LOG_SCHEMAS } from './schemas/admin-logs.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's schemas only describe it (http/docs/): not used to validate or serialize. */
    describedOnly?: boolean;
    /** The OpenAPI path of a wildcard route (`/api/price/*` is `/api/price/{model}`); a route with schemas sets it itself. */
    docPath?: string;
  }
}

/** `/api/user/:id` → `/api/user/{}`: a route and an OpenAPI path with the same shape have the same key. */
const shapeOf = (method: string, url: string) => `${method.toUpperCase()} ${url.replace(/:\w+|\{\w+\}/g, '{}')}`;

/** Wildcard routes by the path their operation is described at. */
const WILDCARDS: Record<string, string> = {
  'POST /v1beta/models/*': '/v1beta/models/{model}:{action}',
};

type Param = { name: string; in: string; required?: boolean; schema?: Schema; description?: string };

/** A described operation as a Fastify route schema (what @fastify/swagger reads back into the same operation). */
function routeSchema(op: Schema, routeParams?: string[]): Record<string, unknown> {
  const o = op as {
    tags?: string[];
    summary?: string;
    description?: string;
    security?: unknown;
    parameters?: Param[];
    requestBody?: { content: Record<string, { schema: Schema }> };
    responses?: Record<string, unknown>;
  };
  const group = (where: string, names?: string[]) => {
    const ps = (o.parameters ?? []).filter((p) => p.in === where);
    if (!ps.length) return undefined;
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    ps.forEach((p, i) => {
      const name = names?.[i] ?? p.name;
      properties[name] = { ...(p.schema ?? {}), ...(p.description ? { description: p.description } : {}) };
      if (p.required || where === 'path') required.push(name);
    });
    return { type: 'object', properties, ...(required.length ? { required } : {}) };
  };
  const body = o.requestBody?.content;
  const bodyType = body ? Object.keys(body)[0] : undefined;
  return {
    ...(o.tags ? { tags: o.tags } : {}),
    ...(o.summary ? { summary: o.summary } : {}),
    ...(o.description ? { description: o.description } : {}),
    ...(o.security ? { security: o.security } : {}),
    ...(group('path', routeParams) ? { params: group('path', routeParams) } : {}),
    ...(group('query') ? { querystring: group('query') } : {}),
    ...(group('header') ? { headers: group('header') } : {}),
    ...(body && bodyType ? (bodyType === 'application/json' ? { body: body[bodyType].schema } : { body: { content: body } }) : {}),
    ...(o.responses ? { response: o.responses } : {}),
  };
}

/** Operations that only describe their routes (`METHOD /openapi/{path}`), marked `x-described-only` in the document. */
const describedOnly = new WeakMap<FastifyInstance, Set<string>>();

const noValidation = () => () => true;
const plainJson = () => (data: unknown) => JSON.stringify(data);

/** The schemas a context shares, named by their ids: contexts (and gateways) with the same ones share compilers. */
const sharedKey = (externalSchemas: Record<string, unknown>) => Object.keys(externalSchemas).sort().join(' ');

/**
 * Every route's compilation not made yet: `compileRouteSchemas` makes them all at once (a test does, so a schema
 * that cannot compile fails there rather than at a route's first call). Each entry is dropped once compiled.
 */
const pending = new Set<() => void>();

/** Compiles every route schema not compiled yet (validators and serializers); throws the first that fails. */
export function compileRouteSchemas(): number {
  const all = [...pending];
  for (const compile of all) compile();
  return all.length;
}

type Validate = ((data: unknown, cxt?: unknown) => boolean) & { errors?: FastifySchemaValidationError[] | null; schemaEnv?: unknown };
const ajvs = new Map<string, { body: Ajv; text: Ajv }>();

/**
 * Fastify's validators of route schemas (its `schemaController` factory): Ajv with the shared schemas.
 * Path parameters, query strings and headers are text, so their numbers and booleans are read from it
 * (`coerceTypes`); a JSON body is taken as sent — a number is not a string — and an unknown field is
 * refused, not removed, as the services' own checks do.
 *
 * A route's validator is compiled when it first validates, not when the route is registered, and the Ajv
 * instances are made once per set of shared schemas for the process, when the first of its validators
 * compiles: a gateway starts in a fraction of the time, and routes never called cost nothing.
 */
export function buildRouteValidator(externalSchemas: Record<string, unknown>) {
  const key = sharedKey(externalSchemas);
  // The Ajv pair of these shared schemas, made by the first validator of the set that compiles: adding the
  // schemas checks each against the meta-schema, which allocates tens of megabytes a node that serves
  // nothing yet need not.
  const ajvOf = (part: 'body' | 'text'): Ajv => {
    let pair = ajvs.get(key);
    if (!pair) {
      const make = (coerceTypes: false | 'array') => {
        const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
        addFormats.default(ajv);
        for (const s of Object.values(externalSchemas)) ajv.addSchema(s as AnySchema);
        return ajv;
      };
      pair = { body: make(false), text: make('array') };
      ajvs.set(key, pair);
    }
    return pair[part];
  };
  return ({ schema, httpPart }: { schema: unknown; httpPart?: string }): Validate => {
    let fn: Validate | undefined;
    const compile = () => {
      pending.delete(compile);
      const ajv = ajvOf(httpPart === 'body' ? 'body' : 'text');
      const id = (schema as { $id?: string }).$id;
      return (fn ??= ((id && ajv.getSchema(id)) || ajv.compile(schema as AnySchema)) as Validate);
    };
    pending.add(compile);
    const v: Validate = (data, cxt) => {
      const ok = (fn ?? compile())(data, cxt);
      v.errors = fn!.errors;
      return ok;
    };
    // Fastify passes the request as the root's parent, so defaults and coerced values reach it.
    v.schemaEnv = true;
    return v;
  };
}

const serializers = new Map<string, (route: { schema: unknown }) => (data: unknown) => string>();

/**
 * Fastify's serializers of route answers: fast-json-stringify, compiled when a status's answer is first sent
 * (most routes of a gateway answer few of their declared statuses), once per schema for the process.
 */
export function buildRouteSerializer(externalSchemas: Record<string, unknown>, serializerOpts?: unknown) {
  const key = sharedKey(externalSchemas);
  let compile = serializers.get(key);
  if (!compile) {
    const made = new WeakMap<object, (data: unknown) => string>();
    const base = SerializerSelector()(externalSchemas, serializerOpts as never);
    compile = (route) => {
      let fn = made.get(route.schema as object);
      if (!fn) made.set(route.schema as object, (fn = base(route as never) as (data: unknown) => string));
      return fn;
    };
    serializers.set(key, compile);
  }
  const once = compile;
  return (route: { schema: unknown }) => {
    let fn: ((data: unknown) => string) | undefined;
    const make = () => {
      pending.delete(make);
      return (fn ??= once(route));
    };
    pending.add(make);
    return (data: unknown) => (fn ?? make())(data);
  };
}

/** A wildcard route's declared `*` parameter under the name its documented path gives it (`{model}`). */
function wildcardNamed<S>(schema: S, docPath?: string): S {
  const params = (schema as { params?: { properties?: Record<string, unknown>; required?: string[] } } | undefined)?.params;
  const name = docPath?.match(/\{(\w+)\}[^{]*$/)?.[1];
  if (!name || !params?.properties?.['*']) return schema;
  const { '*': star, ...rest } = params.properties;
  return { ...schema, params: { ...params, properties: { ...rest, [name]: star }, required: [name] } };
}

/** Registers @fastify/swagger and the described operations; call before any route is registered. */
export async function describeRoutes(app: FastifyInstance): Promise<void> {
  const base = documentBase();
  const described = new Map<string, Schema>();
  const marked = new Set<string>();
  describedOnly.set(app, marked);
  for (const [path, ops] of Object.entries(describedPaths())) {
    for (const [method, op] of Object.entries(ops)) described.set(shapeOf(method, path), op);
  }
  // Log rows and pages are answered by the admin routes and a team's routes alike.
  for (const s of [...SHARED_SCHEMAS, ...LOG_SCHEMAS]) app.addSchema(s);
  app.addHook('onRoute', (r: RouteOptions) => {
    if (r.schema || typeof r.url !== 'string') return;
    const url = r.url;
    const methods = [r.method].flat();
    const docPath = methods.map((m) => WILDCARDS[`${m} ${url}`]).find(Boolean);
    const op = methods.map((m) => described.get(shapeOf(m, docPath ?? url))).find(Boolean);
    if (!op) return;
    const params = docPath ? undefined : [...url.matchAll(/:(\w+)/g)].map((m) => m[1]);
    r.schema = routeSchema(op, params);
    for (const m of methods) marked.add(`${m.toLowerCase()} ${docPath ?? url.replace(/:(\w+)/g, '{$1}')}`);
    r.config = { ...(r.config as object), describedOnly: true, ...(docPath ? { docPath } : {}) };
    r.validatorCompiler = noValidation;
    r.serializerCompiler = plainJson;
  });
  await app.register(swagger, {
    openapi: base as never,
    hideUntagged: true,
    transform: ({ schema, url, route }) => ({ schema: wildcardNamed(schema, route.config?.docPath), url: route.config?.docPath ?? url }),
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
}

/** The document as served, with `serverUrl` (PUBLIC_URL or the address asked) as its server. */
export function openApiDocument(app: FastifyInstance, serverUrl: string): Schema {
  const doc = app.swagger() as unknown as Schema & { paths: Record<string, unknown> };
  // @fastify/swagger reads a `:` of a described path as a parameter: `{model}:{action}` is put back.
  const marked = describedOnly.get(app) ?? new Set<string>();
  const paths = Object.fromEntries(
    Object.entries(doc.paths).map(([p, ops]) => {
      const path = p.replaceAll('}{}{', '}:{');
      const out = Object.entries(ops as Record<string, Schema>).map(([m, op]) => [
        m,
        marked.has(`${m} ${path}`) ? { ...op, 'x-described-only': true } : op,
      ]);
      return [path, Object.fromEntries(out)];
    }),
  );
  return { ...doc, servers: [{ url: serverUrl }], paths };
}
