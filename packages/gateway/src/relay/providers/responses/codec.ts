/**
 * The OpenAI Responses API as a caller's format (never an upstream's): a Responses request for a model
 * that only a chat, Anthropic or Gemini channel serves is decoded into the canonical model, and the
 * answer is encoded back as a Response object or as the Responses event stream, in the event order
 * OpenAI sends (created, in_progress, output items with their parts and deltas, completed).
 *
 * Input items: messages (user, system, developer, assistant; `input_text`, `input_image`,
 * `input_file`, `output_text`), `function_call` and `function_call_output`, `custom_tool_call` and its
 * output (freeform tools, passed as a function with one string argument `input`), and `reasoning`
 * (its summary is kept as thinking text; encrypted content only means something to OpenAI). Tools:
 * `function` and `custom`, and `namespace` groups of them (each tool offered as `<namespace>__<name>`, its calls
 * answered with `namespace` again); other hosted tools (web search, file search, computer use …) have no
 * equivalent on other vendors and are left out, noted in the log.
 *
 * The codec is in sections: requests (request.ts), the Response object (response.ts), the event
 * stream (stream.ts); output items read back as messages are here.
 */
import type { Message } from '../canonical.ts';
import { isObj } from '../canonical.ts';
import { decodeInput } from './request.ts';
export { decodeRequest } from './request.ts';
export { customToolNames, encodeResponse, namespacedToolNames, responseId, usageToResponses } from './response.ts';
export type { ResponseEcho } from './response.ts';
export { createStreamEncoder, streamError } from './stream.ts';

/** Output items of a Response as canonical messages (for `previous_response_id`). */
export function outputMessages(output: unknown[]): Message[] {
  const dropped: string[] = [];
  return decodeInput(
    output.map((o) => (isObj(o) && o.type === 'message' ? { ...o, role: 'assistant' } : o)),
    dropped,
  );
}
