/**
 * Error envelopes of each API family. Domain code throws GatewayError; the family's error handler
 * renders it here. Unknown errors become a 500 whose text names no internals.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../platform/errors.ts';

export type Family = 'openai' | 'anthropic' | 'gemini' | 'task' | 'admin';

export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const fe = err as FastifyError;
  if (fe && typeof fe.statusCode === 'number' && fe.statusCode < 500) {
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new GatewayError(415, 'unsupported_media_type', fe.message);
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new GatewayError(413, 'request_too_large', 'request body too large');
    if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new GatewayError(400, 'invalid_json', 'request body is empty; a JSON body is required');
    if (fe instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/.test(fe.message)) {
      return new GatewayError(400, 'invalid_json', `invalid JSON body: ${fe.message}`);
    }
    return new GatewayError(fe.statusCode, fe.code ?? 'invalid_request', fe.message);
  }
  return new GatewayError(500, 'internal_error', 'internal error');
}

const GEMINI_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND',
  402: 'RESOURCE_EXHAUSTED', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 502: 'UNAVAILABLE', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED',
};

const ANTHROPIC_TYPE: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 402: 'billing_error', 403: 'permission_error',
  404: 'not_found_error', 413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error', 502: 'api_error',
  503: 'overloaded_error', 504: 'api_error', 529: 'overloaded_error',
};

export function errorBody(family: Family, e: GatewayError, requestId?: string): unknown {
  switch (family) {
    case 'anthropic':
      return {
        type: 'error',
        error: {
          type: e.code === 'insufficient_quota' ? 'billing_error' : (ANTHROPIC_TYPE[e.status] ?? 'api_error'),
          message: e.message,
          details: { error_code: e.code },
        },
        request_id: requestId,
      };
    case 'gemini':
      return {
        error: {
          code: e.status, message: e.message, status: GEMINI_STATUS[e.status] ?? 'UNKNOWN',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: e.code, domain: 'gatehouse' }],
        },
      };
    case 'admin': {
      // The field a 400 is about, when known (the message starts with it too), for forms.
      const field = typeof e.details?.field === 'string' ? e.details.field : undefined;
      return field ? { success: false, message: e.message, data: null, field } : { success: false, message: e.message, data: null };
    }
    case 'task':
    case 'openai':
    default:
      return { error: { message: e.message, type: e.type, param: null, code: e.code } };
  }
}

export function sendError(reply: FastifyReply, family: Family, err: unknown): FastifyReply {
  const e = toGatewayError(err);
  if (e.status === 500 && !(err instanceof GatewayError)) reply.log?.error?.({ err }, 'unhandled error');
  const rid = (reply.request as FastifyRequest & { requestId?: string }).requestId;
  return reply.code(e.status).type('application/json').send(errorBody(family, e, rid));
}

/** Sets the error handler of an encapsulated Fastify scope to a family's envelope. */
export function familyErrorHandler(family: Family) {
  return (err: unknown, _req: FastifyRequest, reply: FastifyReply) => sendError(reply, family, err);
}
