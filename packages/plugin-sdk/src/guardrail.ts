/**
 * The guardrail-plugin contract, version 1 (docs/guardrails.md): a single-file plugin with
 * `meta.kind: 'guardrail'` and one hook, `check(ctx, {stage, texts})`, answering a verdict.
 */
import type { JsonObject } from './index.ts';

/** The manifest of a guardrail plugin: `export const meta = {...}`. */
export interface GuardrailManifest {
  apiVersion: 1;
  kind: 'guardrail';
  key: string;
  name: string;
  version: string;
  author: { name: string; url?: string };
  description?: string;
  /** Default settings, handed to every check as `ctx.config`. */
  config?: JsonObject;
}

/** What `check` is told about the call (ids and names only). */
export interface GuardrailContext {
  model: string;
  userId: number;
  keyId: number | null;
  group: string;
  requestId: string;
  endpoint: string;
  config: JsonObject;
}

export interface GuardrailInput {
  /** `input`: the request before it goes upstream; `output`: the answer (a window of it when streamed). */
  stage: 'input' | 'output';
  /** The call's text parts, in order. */
  texts: string[];
}

export interface GuardrailMaskSpan {
  /** Which text of `texts`; `start`/`end` are UTF-16 offsets in it (end exclusive). */
  index: number;
  start: number;
  end: number;
  replacement: string;
}

export type GuardrailVerdict =
  | { action: 'allow' }
  | { action: 'block'; reason: string }
  | { action: 'mask'; spans: GuardrailMaskSpan[] }
  | { action: 'annotate'; tags: string[] };

/** The one hook of a guardrail plugin. */
export type GuardrailCheck = (ctx: GuardrailContext, input: GuardrailInput) => GuardrailVerdict;
