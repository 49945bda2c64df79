/**
 * Guardrails on model calls (docs/guardrails.md): which bound guardrail plugins check a call (the
 * `Guardrails` option, resolved again only when its text changes), the text parts of a request or an
 * answer in each API family, and one stage's run: the verdicts in binding order, masks applied to the
 * texts, the first block ending the run, a failing plugin handled by its binding's `on_error`.
 */
import type { Options } from '../options/options.ts';
import type { Metrics } from '../platform/metrics.ts';
import type { LogWriter } from '../logs/writer.ts';
import { fail } from '../platform/errors.ts';
import { isObj } from '../platform/validate.ts';
import type { RelayPrincipal } from './call.ts';
import { callLogRow } from './accounting.ts';
import { requestSlots, responseSlots } from './guardrail-texts.ts';
import {
  applySpans,
  parseGuardrailBindings,
  resolveBindings,
  type GuardrailContext,
  type GuardrailRunner,
  type GuardrailStage,
  type ResolvedBinding,
} from './guardrail-types.ts';

/** One verdict as the log row and the test route show it. */
export interface VerdictRecord {
  plugin: string;
  stage: GuardrailStage;
  action: 'allow' | 'block' | 'mask' | 'annotate' | 'error';
  reason?: string;
  tags?: string[];
  error?: string;
}

export interface StageResult {
  texts: string[];
  changed: boolean;
  block: { plugin: string; reason: string } | null;
  records: VerdictRecord[];
}

/** At most `max` characters, control characters as spaces. */
function cleanMessage(s: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const t = String(s).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  return t.length > max ? t.slice(0, max) + '…' : t;
}

const NONE: readonly ResolvedBinding[] = Object.freeze([]);

export class Guardrails {
  /** The plugin host's guardrails; set by the composition root once the plugin area exists. */
  runner: GuardrailRunner | null = null;
  private raw: string | undefined = '\u0000';
  private bound: readonly ResolvedBinding[] = NONE;
  /** Verdicts of this node by plugin and action (the console's card). */
  readonly counts = new Map<string, Record<string, number>>();

  constructor(
    private readonly options: Pick<Options, 'get'>,
    private readonly metrics: Metrics | null,
    private readonly warn: (msg: string) => void = () => {},
  ) {}

  private bindings(): readonly ResolvedBinding[] {
    const raw = this.options.get('Guardrails');
    if (raw !== this.raw) {
      this.raw = raw;
      try {
        this.bound = raw ? resolveBindings(parseGuardrailBindings(raw)) : NONE;
      } catch (e) {
        this.bound = NONE;
        this.warn(`the Guardrails option is not valid and is ignored: ${(e as Error).message}`);
      }
    }
    return this.bound;
  }

  /** Whether any guardrail is bound (a call with none skips the guardrail steps without awaiting anything). */
  any(): boolean {
    return this.bindings().length > 0;
  }

  /** The bindings that check this call at `stage` (an empty list, without allocating, when none is bound). */
  select(p: RelayPrincipal, model: string, stage: GuardrailStage): readonly ResolvedBinding[] {
    const all = this.bindings();
    if (all.length === 0) return NONE;
    return all.filter(
      (b) =>
        (stage === 'input' ? b.input : b.output) &&
        (!b.keys || (p.keyId !== null && b.keys.has(p.keyId))) &&
        (!b.users || b.users.has(p.userId)) &&
        (!b.groups || b.groups.has(p.group)) &&
        (!b.models || b.models.has(model)),
    );
  }

  private count(plugin: string, action: string): void {
    let c = this.counts.get(plugin);
    if (!c) this.counts.set(plugin, (c = {}));
    c[action] = (c[action] ?? 0) + 1;
    this.metrics?.guardrail(plugin, action);
  }

  /** Runs the bindings over `texts` in order. */
  async run(list: readonly ResolvedBinding[], ctx: GuardrailContext, stage: GuardrailStage, texts: string[]): Promise<StageResult> {
    const out: StageResult = { texts, changed: false, block: null, records: [] };
    for (const b of list) {
      let rec: VerdictRecord;
      try {
        if (!this.runner?.has(b.plugin)) throw new Error(`guardrail plugin "${b.plugin}" is not installed and enabled`);
        const v = await this.runner.check(b.plugin, b.config ? { ...ctx, config: b.config } : ctx, stage, out.texts);
        rec = { plugin: b.plugin, stage, action: v.action };
        if (v.action === 'block') {
          rec.reason = cleanMessage(v.reason, 500);
          out.block = { plugin: b.plugin, reason: rec.reason };
        } else if (v.action === 'mask') {
          if (v.spans.length) {
            out.texts = applySpans(out.texts, v.spans);
            out.changed = true;
          }
        } else if (v.action === 'annotate') rec.tags = v.tags;
      } catch (e) {
        const msg = cleanMessage((e as Error).message, 500);
        rec = { plugin: b.plugin, stage, action: 'error', error: msg };
        if (b.onError === 'block') out.block = { plugin: b.plugin, reason: `the guardrail failed: ${msg}` };
      }
      out.records.push(rec);
      this.count(b.plugin, rec.action);
      if (out.block) break;
    }
    return out;
  }
}

/** The guardrail context of a call (ids and names only). */
export function guardrailContext(p: RelayPrincipal, model: string, requestId: string, endpoint: string): GuardrailContext {
  return { model, userId: p.userId, keyId: p.keyId, group: p.group, requestId, endpoint };
}

/** What the guardrail steps need of a call. */
export interface GuardedCall {
  principal: RelayPrincipal;
  body: Record<string, unknown>;
  raw: Buffer;
  requestId: string;
  endpoint: string;
  startedAt: bigint;
  stream?: boolean;
  modelFromPath?: string;
}

/**
 * The input stage: runs before the call is routed or reserved. A block is logged and thrown as
 * `guardrail_blocked` (400 in the caller's envelope; nothing was reserved, so nothing is charged); a
 * mask rewrites the body the upstream gets. Null when no guardrail checks the call's input.
 */
export async function checkInput(g: Guardrails, logs: LogWriter, call: GuardedCall, cf: string): Promise<VerdictRecord[] | null> {
  const model = call.modelFromPath ?? call.body.model;
  if (typeof model !== 'string') return null;
  const list = g.select(call.principal, model, 'input');
  if (list.length === 0) return null;
  const slots = requestSlots(cf, call.body);
  const r = await g.run(
    list,
    guardrailContext(call.principal, model, call.requestId, call.endpoint),
    'input',
    slots.map((s) => s.get()),
  );
  if (r.block) {
    const err = fail('guardrail_blocked', { plugin: r.block.plugin, reason: r.block.reason });
    const stream = call.stream ?? call.body.stream === true;
    logs.write(
      callLogRow({ call, model, stream, firstByteMs: null, attempts: [] }, null, null, {
        type: 'error',
        status_code: err.status,
        content: err.message.slice(0, 2000),
        other: JSON.stringify({ guardrails: r.records }),
      }),
    );
    throw err;
  }
  if (r.changed) {
    slots.forEach((s, i) => s.set(r.texts[i]));
    call.raw = Buffer.from(JSON.stringify(call.body));
  }
  return r.records;
}

/**
 * The output stage of a whole (not streamed) answer `out` in format `cf`: the answer with masks
 * applied, or `block` when a guardrail refused it.
 */
export async function checkOutput(
  g: Guardrails,
  list: readonly ResolvedBinding[],
  ctx: GuardrailContext,
  cf: string,
  out: string,
  records: VerdictRecord[],
): Promise<{ out: string; block: { plugin: string; reason: string } | null }> {
  let body: unknown;
  try {
    body = JSON.parse(out);
  } catch {
    return { out, block: null };
  }
  if (!isObj(body)) return { out, block: null };
  const slots = responseSlots(cf, body);
  const r = await g.run(
    list,
    ctx,
    'output',
    slots.map((s) => s.get()),
  );
  records.push(...r.records);
  if (r.block) return { out, block: r.block };
  if (!r.changed) return { out, block: null };
  slots.forEach((s, i) => s.set(r.texts[i]));
  return { out: JSON.stringify(body), block: null };
}
