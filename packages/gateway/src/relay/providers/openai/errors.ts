/** The OpenAI family's error envelope: `{error:{message, type, param, code}}` (also the task routes' and the Responses API's). */
import type { GatewayError } from '../../../platform/errors.ts';

export function openaiErrorBody(e: GatewayError): unknown {
  return { error: { message: e.message, type: e.type, param: null, code: e.code } };
}
