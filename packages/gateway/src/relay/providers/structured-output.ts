/**
 * Structured outputs where a vendor has no native form for them: the response format becomes a forced
 * tool whose input is the answer's JSON object, and the tool's call becomes the answer's text on the
 * way back — in a whole answer and, event by event, in a stream (the tool's argument deltas become text
 * deltas). Each family's own mapping lives beside its codec (`<family>/structured-output.ts`).
 */
import type { CanonicalRequest, CanonicalResponse, CanonicalStreamEvent, StreamDecoder, Tool } from './canonical.ts';
import { isObj } from './canonical.ts';

/** The forced tool's name; a caller's own tool of that name keeps it, and the answer tool takes a suffix. */
export const OUTPUT_TOOL = 'json_response';

/**
 * Asks for `req.responseFormat` (JSON, with or without a schema) through a forced tool: the tool is
 * added to the request's tools, chosen, and named in `req.outputTool`; the response format is removed.
 * A caller's own tools stay callable: the model must then call one of them or the answer tool.
 * Thinking is left out, since Claude takes no forced tool with it. `req` is the attempt's own copy, so
 * its fields are replaced, never edited in place.
 */
export function useOutputTool(req: CanonicalRequest): void {
  const rf = req.responseFormat;
  if (!rf || rf.type === 'text') return;
  const taken = new Set((req.tools ?? []).map((t) => t.name));
  let name = OUTPUT_TOOL;
  for (let i = 2; taken.has(name); i++) name = `${OUTPUT_TOOL}_${i}`;
  const schema = rf.type === 'json_schema' && isObj(rf.schema) ? rf.schema : { type: 'object' };
  const described = rf.type === 'json_schema' && rf.description ? ` ${rf.description}` : '';
  const tool: Tool = {
    name,
    description: `Give the answer as this tool's input: the JSON object the request asks for.${described}`,
    parameters: schema,
  };
  const own = req.tools?.filter((t) => !t.native).length ?? 0;
  req.tools = [...(req.tools ?? []), tool];
  // Alone the answer tool is forced; beside the caller's tools the model must call one of them.
  const tc = req.toolChoice;
  if (!own || tc === 'none') req.toolChoice = { name };
  else if (tc === undefined || tc === 'auto') req.toolChoice = 'required';
  delete req.responseFormat;
  req.outputTool = name;
  // Claude refuses a forced tool with extended thinking (on Anthropic's API and on Bedrock alike).
  if (req.reasoning && req.reasoning.enabled !== false) {
    delete req.reasoning;
    req.dropped.push('reasoning (a forced answer tool does not go with thinking)');
  }
}

/** A whole answer: calls of the answer tool become its text, and `tool_calls` becomes `stop` when no other call is left. */
export function unwrapOutputTool(resp: CanonicalResponse, name: string): CanonicalResponse {
  for (const c of resp.choices) {
    const answers = c.toolCalls.filter((t) => t.name === name);
    if (!answers.length) continue;
    c.toolCalls = c.toolCalls.filter((t) => t.name !== name);
    for (const a of answers) c.parts.push({ type: 'text', text: a.arguments });
    if (!c.toolCalls.length && c.finishReason === 'tool_calls') c.finishReason = 'stop';
  }
  return resp;
}

/**
 * A stream: the answer tool's start is left out, its argument deltas become text deltas of the same
 * choice, later tool calls keep consecutive indexes, and a `tool_calls` finish becomes `stop` when the
 * answer tool was the only call.
 */
export function unwrapOutputToolStream(inner: StreamDecoder, name: string): StreamDecoder {
  /** Per choice: the upstream tool indexes of answer calls, and the other calls' indexes as the caller sees them. */
  const answers = new Map<number, Set<number>>();
  const others = new Map<number, Map<number, number>>();
  const of = <T>(m: Map<number, T>, i: number, make: () => T): T => {
    let v = m.get(i);
    if (v === undefined) m.set(i, (v = make()));
    return v;
  };
  const map = (evs: CanonicalStreamEvent[]): CanonicalStreamEvent[] => {
    const out: CanonicalStreamEvent[] = [];
    for (const e of evs) {
      if (e.type === 'tool_call_start') {
        if (e.name === name) of(answers, e.index, () => new Set()).add(e.toolIndex);
        else {
          const o = of(others, e.index, () => new Map());
          o.set(e.toolIndex, o.size);
          out.push({ ...e, toolIndex: o.size - 1 });
        }
      } else if (e.type === 'tool_call_args') {
        if (answers.get(e.index)?.has(e.toolIndex)) {
          if (e.delta) out.push({ type: 'text', index: e.index, text: e.delta });
        } else out.push({ ...e, toolIndex: others.get(e.index)?.get(e.toolIndex) ?? e.toolIndex });
      } else if (e.type === 'finish' && e.reason === 'tool_calls' && answers.has(e.index) && !others.get(e.index)?.size) {
        out.push({ ...e, reason: 'stop' });
      } else out.push(e);
    }
    return out;
  };
  return { push: (ev) => map(inner.push(ev)), end: () => map(inner.end()) };
}

/**
 * The schema with `additionalProperties: false` on every object schema that does not say otherwise:
 * Anthropic's and Bedrock's structured outputs take closed objects only (Anthropic's SDKs close them the same way).
 */
export function closedObjects(s: unknown): any {
  if (Array.isArray(s)) return s.map(closedObjects);
  if (!isObj(s)) return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'properties' || k === '$defs' || k === 'definitions' || k === 'patternProperties')
      out[k] = isObj(v) ? Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, closedObjects(pv)])) : v;
    else if (k === 'items' || k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'prefixItems' || k === 'not')
      out[k] = closedObjects(v);
    else out[k] = v;
  }
  const isObject = out.type === 'object' || (Array.isArray(out.type) && out.type.includes('object'));
  if (isObject && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}
