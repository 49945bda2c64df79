/** The Gemini family's error envelope: `{error:{code, message, status, details}}`, the status named by the HTTP status. */
import type { GatewayError } from '../../../platform/errors.ts';

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

export function geminiErrorBody(e: GatewayError): unknown {
  return {
    error: {
      code: e.status,
      message: e.message,
      status: GEMINI_STATUS[e.status] ?? 'UNKNOWN',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: e.code, domain: 'gatehouse' }],
    },
  };
}
