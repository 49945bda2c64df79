/**
 * Trying an installed guardrail plugin on a sample text (the console's test box): runs its `check`
 * once at the given stage and answers the verdict with the texts as a mask would leave them.
 */
import { fail } from '../../platform/errors.ts';
import { applySpans, type GuardrailVerdict } from '../../relay/guardrail-types.ts';
import type { PluginHost } from '../runtime/host.ts';
import { PluginCallError } from '../runtime/errors.ts';

const MAX_TEXT = 256 * 1024;

export async function testGuardrail(host: PluginHost, key: string, input: Record<string, unknown>) {
  const g = host.guardrail(key);
  if (!g) throw fail('not_found', `guardrail plugin "${key}" is not installed and enabled`);
  const stage = input.stage ?? 'input';
  if (stage !== 'input' && stage !== 'output') throw fail('invalid_request', 'stage must be input or output');
  const texts = typeof input.text === 'string' ? [input.text] : input.texts;
  if (!Array.isArray(texts) || texts.length === 0 || texts.length > 64 || !texts.every((t) => typeof t === 'string'))
    throw fail('invalid_request', 'text (a string) or texts (a list of 1-64 strings) is required');
  if (texts.reduce((n, t) => n + (t as string).length, 0) > MAX_TEXT) throw fail('invalid_request', 'the sample is longer than 256 KiB');
  const ctx = {
    model: typeof input.model === 'string' ? input.model : '',
    userId: 0,
    keyId: null,
    group: 'default',
    requestId: 'test',
    endpoint: 'test',
  };
  let verdict: GuardrailVerdict;
  try {
    verdict = await g.check(ctx, stage, texts as string[]);
  } catch (e) {
    if (e instanceof PluginCallError) return { verdict: null, error: e.detail, kind: e.kind, texts };
    throw e;
  }
  return { verdict, texts: verdict.action === 'mask' ? applySpans(texts as string[], verdict.spans) : texts };
}
