/**
 * The one error type domain code throws. Each HTTP family (OpenAI, Anthropic, Gemini, task, admin)
 * renders it in its own envelope; the message must be safe to show to the caller.
 */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    /** Machine-readable code, e.g. `model_not_found`, `insufficient_quota`. */
    readonly code: string,
    message: string,
    /** OpenAI-style error type, e.g. `invalid_request_error`. */
    readonly type: string = typeForStatus(status),
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

export function typeForStatus(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 402 || status === 429) return 'insufficient_quota';
  if (status >= 500) return 'upstream_error';
  return 'invalid_request_error';
}

export const badRequest = (message: string, code = 'invalid_request') => new GatewayError(400, code, message);
export const unauthorized = (message = 'invalid API key', code = 'invalid_api_key') => new GatewayError(401, code, message);
export const forbidden = (message: string, code = 'forbidden') => new GatewayError(403, code, message);
export const notFound = (message: string, code = 'not_found') => new GatewayError(404, code, message);

/** Longest piece of caller input (a model name, an action) repeated in an error message. */
export const ECHO_MAX = 200;

/** Caller input as it may appear in an error message: at most ECHO_MAX characters, longer input cut with `…`. */
export function echo(s: unknown, max = ECHO_MAX): string {
  const t = typeof s === 'string' ? s : String(s);
  return t.length <= max ? t : `${t.slice(0, max)}…`;
}
