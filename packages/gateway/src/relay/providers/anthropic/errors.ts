/**
 * The Anthropic family's error envelope: `{type:'error', error:{type, message, details}, request_id}`,
 * the error type named by the status (`billing_error` for an exhausted balance).
 */
import type { GatewayError } from '../../../platform/errors.ts';

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

export function anthropicErrorBody(e: GatewayError, requestId?: string): unknown {
  return {
    type: 'error',
    error: {
      type: e.code === 'insufficient_quota' ? 'billing_error' : (ANTHROPIC_TYPE[e.status] ?? 'api_error'),
      message: e.message,
      details: { error_code: e.code },
    },
    request_id: requestId,
  };
}
