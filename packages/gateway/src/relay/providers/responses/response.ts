/** Canonical answers → the Responses API's Response object: the codec's response section (codec.ts). */
import type { CanonicalRequest, CanonicalResponse, FinishReason, Usage } from '../canonical.ts';
import { emptyUsage, isObj, textOf } from '../canonical.ts';

export function usageToResponses(u: Usage): Record<string, unknown> {
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedInputTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

/** Response fields that echo the request. */
export interface ResponseEcho {
  /** Names of the caller's freeform (custom) tools: their calls are answered as `custom_tool_call` items. */
  customTools?: ReadonlySet<string>;
  /** The caller's tools of `namespace` groups, by the name they were offered under: their calls name the namespace. */
  namespacedTools?: ReadonlyMap<string, { namespace: string; name: string }>;
  previousResponseId?: string | null;
  store?: boolean;
  /** The request's `text.format` (a JSON schema …), repeated in the Response's `text`. */
  textFormat?: unknown;
}

function statusOf(reason: FinishReason | null): { status: string; incomplete: Record<string, string> | null } {
  if (reason === 'length') return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
  if (reason === 'content_filter') return { status: 'incomplete', incomplete: { reason: 'content_filter' } };
  return { status: 'completed', incomplete: null };
}

export function callItem(
  id: string,
  callId: string,
  name: string,
  args: string,
  custom: boolean,
  status = 'completed',
  ns?: { namespace: string; name: string },
): Record<string, unknown> {
  const named = ns ? { name: ns.name, namespace: ns.namespace } : { name };
  if (custom) return { type: 'custom_tool_call', id, call_id: callId, ...named, input: customInput(args), status };
  return { type: 'function_call', id, call_id: callId, ...named, arguments: args, status };
}

export function responseObject(
  id: string,
  created: number,
  model: string,
  output: unknown[],
  usage: Usage | null,
  reason: FinishReason | null,
  echo: ResponseEcho,
  status?: string,
): Record<string, unknown> {
  const s = statusOf(reason);
  return {
    id,
    object: 'response',
    created_at: created,
    status: status ?? s.status,
    error: null,
    incomplete_details: status ? null : s.incomplete,
    model,
    output,
    parallel_tool_calls: true,
    previous_response_id: echo.previousResponseId ?? null,
    store: echo.store ?? true,
    text: { format: echo.textFormat ?? { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    usage: usage ? usageToResponses(usage) : null,
    metadata: {},
  };
}

export const responseId = (requestId: string): string => `resp_${requestId}`;

export function encodeResponse(
  res: CanonicalResponse,
  clientModel: string,
  requestId: string,
  echo: ResponseEcho = {},
): Record<string, unknown> {
  const c = res.choices[0];
  const output: unknown[] = [];
  if (c) {
    const thinking = c.parts
      .filter((p) => p.type === 'thinking')
      .map((p) => (p as { text: string }).text)
      .join('');
    if (thinking) output.push({ type: 'reasoning', id: `rs_${requestId}`, summary: [{ type: 'summary_text', text: thinking }] });
    const text = textOf(c.parts.filter((p) => p.type === 'text'));
    if (text || !c.toolCalls.length) {
      output.push({
        type: 'message',
        id: `msg_${requestId}`,
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
      });
    }
    c.toolCalls.forEach((t, i) =>
      output.push(
        callItem(
          `fc_${requestId}_${i}`,
          t.id,
          t.name,
          t.arguments,
          !!echo.customTools?.has(t.name),
          'completed',
          echo.namespacedTools?.get(t.name),
        ),
      ),
    );
  }
  return responseObject(
    responseId(requestId),
    res.created ?? Math.floor(Date.now() / 1000),
    clientModel,
    output,
    res.usage ?? emptyUsage(),
    c?.finishReason ?? 'stop',
    echo,
  );
}

/** The names of a request's freeform tools (from its decoded tools). */
export function customToolNames(req: CanonicalRequest | null): Set<string> {
  return new Set((req?.tools ?? []).filter((t) => t.freeform).map((t) => t.name));
}

/** A request's tools of `namespace` groups, by the name they are offered under (from its decoded tools). */
export function namespacedToolNames(req: CanonicalRequest | null): Map<string, { namespace: string; name: string }> {
  return new Map((req?.tools ?? []).flatMap((t) => (t.namespace ? [[t.name, t.namespace] as const] : [])));
}

export function customInput(args: string): string {
  try {
    const v = JSON.parse(args) as unknown;
    return isObj(v) && typeof v.input === 'string' ? v.input : args;
  } catch {
    return args;
  }
}
