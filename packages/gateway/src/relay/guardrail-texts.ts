/**
 * The text parts of a model call as guardrails see them (docs/guardrails.md): in order, from the
 * request body or the answer in the caller's API family (OpenAI chat and completions, Responses,
 * Anthropic messages, Gemini), each with a setter so a mask writes the part back where it was.
 */
import { isObj } from '../platform/validate.ts';

export interface TextSlot {
  get(): string;
  set(v: string): void;
}

type Obj = Record<string, unknown>;

function field(o: Obj, k: string, out: TextSlot[]): void {
  if (typeof o[k] === 'string') out.push({ get: () => o[k] as string, set: (v) => (o[k] = v) });
}

/** A string content, or the `text` of its parts (of the given types, or any part with a string `text`). */
function content(o: Obj, k: string, out: TextSlot[], types?: ReadonlySet<string>): void {
  const c = o[k];
  if (typeof c === 'string') field(o, k, out);
  else if (Array.isArray(c)) for (const part of c) if (isObj(part) && (!types || types.has(String(part.type)))) field(part, 'text', out);
}

const TEXT = new Set(['text']);
const RESPONSES_TEXT = new Set(['input_text', 'output_text', 'text']);

/** The text parts of a request body in format `cf` (`openai` chat or completions, `responses`, `anthropic`, `gemini`). */
export function requestSlots(cf: string, body: Obj): TextSlot[] {
  const out: TextSlot[] = [];
  if (cf === 'openai') {
    if (Array.isArray(body.messages)) for (const m of body.messages) if (isObj(m)) content(m, 'content', out, TEXT);
    if (typeof body.prompt === 'string') field(body, 'prompt', out);
    else if (Array.isArray(body.prompt)) for (let i = 0; i < body.prompt.length; i++) field(body.prompt as unknown as Obj, String(i), out);
  } else if (cf === 'responses') {
    field(body, 'instructions', out);
    if (typeof body.input === 'string') field(body, 'input', out);
    else if (Array.isArray(body.input)) for (const it of body.input) if (isObj(it)) content(it, 'content', out, RESPONSES_TEXT);
  } else if (cf === 'anthropic') {
    content(body, 'system', out, TEXT);
    if (Array.isArray(body.messages)) for (const m of body.messages) if (isObj(m)) content(m, 'content', out, TEXT);
  } else if (cf === 'gemini') {
    for (const k of ['systemInstruction', 'system_instruction']) {
      const si = body[k];
      if (isObj(si) && Array.isArray(si.parts)) for (const p of si.parts) if (isObj(p)) field(p, 'text', out);
    }
    if (Array.isArray(body.contents))
      for (const c of body.contents) if (isObj(c) && Array.isArray(c.parts)) for (const p of c.parts) if (isObj(p)) field(p, 'text', out);
  }
  return out;
}

/** The text parts of an answer in format `cf`. */
export function responseSlots(cf: string, body: Obj): TextSlot[] {
  const out: TextSlot[] = [];
  if (cf === 'openai') {
    if (Array.isArray(body.choices))
      for (const c of body.choices) {
        if (!isObj(c)) continue;
        if (isObj(c.message)) content(c.message, 'content', out, TEXT);
        else field(c, 'text', out);
      }
  } else if (cf === 'responses') {
    if (Array.isArray(body.output))
      for (const it of body.output) if (isObj(it) && it.type === 'message') content(it, 'content', out, RESPONSES_TEXT);
  } else if (cf === 'anthropic') {
    content(body, 'content', out, TEXT);
  } else if (cf === 'gemini') {
    if (Array.isArray(body.candidates))
      for (const c of body.candidates)
        if (isObj(c) && isObj(c.content) && Array.isArray(c.content.parts))
          for (const p of c.content.parts) if (isObj(p) && p.thought !== true) field(p, 'text', out);
  }
  return out;
}
