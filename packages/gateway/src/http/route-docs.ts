/**
 * How routes describe themselves. A route declares its schemas (`params`, `querystring`, `body`,
 * `response`, with TypeBox) in its options: Fastify validates requests and serializes answers with
 * them, and @fastify/swagger builds the OpenAPI document (GET /api/openapi.json) from the registered
 * routes. A route without its own schemas takes its described operation from http/docs/ (by method
 * and path) as documentation only: nothing is validated or serialized by it.
 */
import type { FastifyInstance, RouteOptions } from 'fastify';
import swagger from '@fastify/swagger';
import { Ajv, type AnySchema } from 'ajv';
import addFormats from 'ajv-formats';
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

/**
 * Fastify's validators of route schemas (its `schemaController` factory): Ajv with the shared schemas.
 * Path parameters, query strings and headers are text, so their numbers and booleans are read from it
 * (`coerceTypes`); a JSON body is taken as sent — a number is not a string — and an unknown field is
 * refused, not removed, as the services' own checks do.
 */
export function buildRouteValidator(externalSchemas: Record<string, unknown>) {
  const make = (coerceTypes: false | 'array') => {
    const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
    addFormats.default(ajv);
    for (const s of Object.values(externalSchemas)) ajv.addSchema(s as AnySchema);
    return ajv;
  };
  const body = make(false);
  const text = make('array');
  return ({ schema, httpPart }: { schema: unknown; httpPart?: string }) => {
    const ajv = httpPart === 'body' ? body : text;
    const id = (schema as { $id?: string }).$id;
    return (id && ajv.getSchema(id)) || ajv.compile(schema as AnySchema);
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
