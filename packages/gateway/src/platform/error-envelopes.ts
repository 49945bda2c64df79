/**
 * The error envelope of each API family as a JSON body: `{error:{message,type,code}}` for OpenAI and
 * tasks, `{type:'error',error:{type,message}}` for Anthropic, `{error:{code,message,status}}` for
 * Gemini, `{success:false,message}` for `/api/*`. Rendered by the HTTP layer's error handlers
 * (http/errors.ts) and by the relay for an upstream error in the caller's family.
 */
import type { GatewayError } from './errors.ts';

/** The API families, each with its own error envelope. */
export type Family = 'openai' | 'anthropic' | 'gemini' | 'task' | 'admin';

const GEMINI_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  402: 'RESOURCE_EXHAUSTED',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const ANTHROPIC_TYPE: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'api_error',
  529: 'overloaded_error',
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
          code: e.status,
          message: e.message,
          status: GEMINI_STATUS[e.status] ?? 'UNKNOWN',
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
