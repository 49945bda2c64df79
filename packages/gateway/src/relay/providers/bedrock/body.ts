import { isObj } from '../../../platform/validate.ts';
/** Bedrock Converse request bodies as the relay sends them on: the output-token limit. */

/** Sets inferenceConfig.maxTokens of a Bedrock Converse body to at most `max`. */
export function setBedrockMax(b: Record<string, unknown>, max: number): void {
  const c = isObj(b.inferenceConfig) ? { ...b.inferenceConfig } : {};
  c.maxTokens = typeof c.maxTokens === 'number' && c.maxTokens < max ? c.maxTokens : max;
  b.inferenceConfig = c;
}
