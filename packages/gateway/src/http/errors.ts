/**
 * Error envelopes of each API family. Domain code throws GatewayError; the family's error handler
 * renders it here: `{success:false,message}` for `/api/*`, OpenAI's envelope for tasks, and each model
 * API family's own from its provider (relay/providers/<vendor>/errors.ts). Unknown errors become a 500
 * whose text names no internals.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, fail, foreignError } from '../platform/errors.ts';
import { FieldError } from '../platform/validate.ts';
import type { Logger } from '../platform/logger.ts';
import { openaiErrorBody } from '../relay/providers/openai/errors.ts';
import { formatProvider } from '../relay/providers/registry.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The gateway's logger (Fastify's own logger is off); `sendError` logs every 500 with it. */
    gatehouseLog: Logger | null;
  }
}

/** The API families, each with its own error envelope. */
export type Family = 'openai' | 'anthropic' | 'gemini' | 'task' | 'admin' | 'mcp';

/** The body of a gateway error in a family's envelope. */
export function errorBody(family: Family, e: GatewayError, requestId?: string): unknown {
  if (family === 'admin') {
    // The field a 400 is about, when known (the message starts with it too), for forms.
    const field = typeof e.details?.field === 'string' ? e.details.field : undefined;
    return field ? { success: false, message: e.message, data: null, field } : { success: false, message: e.message, data: null };
  }
  if (family === 'task') return openaiErrorBody(e);
  // MCP (JSON-RPC): a request refused before it reached the MCP server has no id.
  if (family === 'mcp') return { jsonrpc: '2.0', error: { code: -32001, message: e.message, data: { code: e.code } }, id: null };
  return formatProvider(family).codec!.errorBody!(e, requestId);
}

export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const fe = err as FastifyError;
  if (fe && Array.isArray(fe.validation) && fe.validation.length) return schemaError(fe.validation[0], fe.validationContext);
  if (fe && typeof fe.statusCode === 'number' && fe.statusCode < 500) {
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return fail('unsupported_media_type', fe.message);
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return fail('request_too_large');
    if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return fail('invalid_json', 'request body is empty; a JSON body is required');
    if (fe instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/.test(fe.message)) {
      return fail('invalid_json', { reason: fe.message });
    }
    return foreignError(fe.statusCode, fe.code ?? 'invalid_request', fe.message);
  }
  return fail('internal_error');
}

type SchemaIssue = NonNullable<FastifyError['validation']>[number];

/**
 * A request refused by its route's schema (http/route-docs.ts), as the error the same input gets from
 * the services' own checks (platform/validate.ts): `invalid_field`, naming the field by its path.
 */
function schemaError(v: SchemaIssue, where?: string): GatewayError {
  const p = v.params as Record<string, unknown>;
  const path = v.instancePath
    .split('/')
    .slice(1)
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((a, k) => (/^\d+$/.test(k) ? `${a}[${k}]` : a ? `${a}.${k}` : k), '');
  const child = (k: unknown) => (path ? `${path}.${String(k)}` : String(k));
  const types: Record<string, string> = {
    integer: 'must be an integer',
    number: 'must be a number',
    boolean: 'must be true or false',
    object: 'must be a JSON object',
    array: 'must be a list',
    string: 'must be a string',
  };
  let field = path || (where === 'body' ? 'body' : (where ?? 'request'));
  let problem = v.message ?? 'is not valid';
  if (v.keyword === 'required') [field, problem] = [child(p.missingProperty), 'is required'];
  else if (v.keyword === 'additionalProperties') [field, problem] = [child(p.additionalProperty), 'unknown field'];
  else if (v.keyword === 'type') problem = types[String(p.type).split(',')[0]] ?? problem;
  else if (v.keyword === 'enum') problem = `must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
  else if (v.keyword === 'minimum') problem = `must be at least ${String(p.limit)}`;
  else if (v.keyword === 'maximum') problem = `must be at most ${String(p.limit)}`;
  else if (v.keyword === 'minLength') problem = `must be at least ${String(p.limit)} characters`;
  else if (v.keyword === 'maxLength') problem = `must be at most ${String(p.limit)} characters`;
  else if (v.keyword === 'minItems') problem = `must have at least ${String(p.limit)} items`;
  else if (v.keyword === 'maxItems') problem = `must have at most ${String(p.limit)} items`;
  return new FieldError(field, problem);
}

export function sendError(reply: FastifyReply, family: Family, err: unknown): FastifyReply {
  const e = toGatewayError(err);
  const rid = (reply.request as FastifyRequest & { requestId?: string }).requestId;
  if (e.status === 500) {
    // Every 500 is logged with its exception (stack included): the caller only sees "internal error".
    const log = reply.server?.gatehouseLog ?? reply.log;
    log?.error?.(
      { err, requestId: rid, method: reply.request?.method, path: reply.request?.url?.split('?')[0] },
      'request failed with an internal error',
    );
  }
  // A refusal that names when to come back (a plan's window, a limit) says it in Retry-After.
  const after = (err as { retryAfter?: unknown }).retryAfter;
  if (e.status === 429 && typeof after === 'number' && after > 0 && !reply.hasHeader('retry-after'))
    reply.header('retry-after', String(after));
  // The console translates an /api error by its catalog code.
  if (family === 'admin') reply.header('x-error-code', e.code);
  return reply
    .code(e.status)
    .type('application/json')
    .send(errorBody(family, e, rid));
}

/** Sets the error handler of an encapsulated Fastify scope to a family's envelope. */
export function familyErrorHandler(family: Family) {
  return (err: unknown, _req: FastifyRequest, reply: FastifyReply) => sendError(reply, family, err);
}
