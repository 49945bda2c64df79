/**
 * List prices of the models of every native vendor and OpenAI-compatible preset, as each vendor's
 * price page gave them on `as_of` (USD per 1M tokens; web searches USD per 1,000; prices in CNY
 * converted at the rate the entry's note names). Local presets (Ollama, vLLM, LM Studio) bill nothing
 * and have no entries. The catalog (billing/catalog.ts) adopts them into the price book.
 */
import type { RulesInput } from './price-rules.ts';

export interface CatalogEntry {
  model: string;
  /** The channel type or preset whose vendor lists the price. */
  vendor: string;
  input: number;
  output: number;
  cached_input?: number;
  cache_write_5m?: number;
  cache_write_1h?: number;
  rules?: RulesInput;
  source: string;
  /** The day the vendor's page gave these prices (YYYY-MM-DD). */
  as_of: string;
  note?: string;
}

const OPENAI = 'https://platform.openai.com/docs/pricing';
const ANTHROPIC = 'https://docs.claude.com/en/docs/about-claude/pricing';
const GEMINI = 'https://ai.google.dev/gemini-api/docs/pricing';
const D = '2025-10-01';
const FLEX = { service_tiers: { flex: 0.5, priority: 2 } };
const CLAUDE_LONG = (input: number, output: number) => ({
  tiers: [{ above_input_tokens: 200_000, input: input * 2, output: output * 1.5 }],
  web_search: 10,
});

export const CATALOG: readonly CatalogEntry[] = [
  // OpenAI (flex at half the standard rate, priority at twice it)
  { model: 'gpt-5', vendor: 'openai', input: 1.25, output: 10, cached_input: 0.125, rules: FLEX, source: OPENAI, as_of: D },
  { model: 'gpt-5-mini', vendor: 'openai', input: 0.25, output: 2, cached_input: 0.025, rules: { service_tiers: { flex: 0.5 } }, source: OPENAI, as_of: D },
  { model: 'gpt-5-nano', vendor: 'openai', input: 0.05, output: 0.4, cached_input: 0.005, rules: { service_tiers: { flex: 0.5 } }, source: OPENAI, as_of: D },
  { model: 'gpt-4.1', vendor: 'openai', input: 2, output: 8, cached_input: 0.5, source: OPENAI, as_of: D },
  { model: 'gpt-4.1-mini', vendor: 'openai', input: 0.4, output: 1.6, cached_input: 0.1, source: OPENAI, as_of: D },
  { model: 'gpt-4.1-nano', vendor: 'openai', input: 0.1, output: 0.4, cached_input: 0.025, source: OPENAI, as_of: D },
  { model: 'gpt-4o', vendor: 'openai', input: 2.5, output: 10, cached_input: 1.25, source: OPENAI, as_of: D },
  { model: 'gpt-4o-mini', vendor: 'openai', input: 0.15, output: 0.6, cached_input: 0.075, source: OPENAI, as_of: D },
  { model: 'o3', vendor: 'openai', input: 2, output: 8, cached_input: 0.5, rules: { service_tiers: { flex: 0.5 } }, source: OPENAI, as_of: D },
  { model: 'o4-mini', vendor: 'openai', input: 1.1, output: 4.4, cached_input: 0.275, rules: { service_tiers: { flex: 0.5 } }, source: OPENAI, as_of: D },
  { model: 'gpt-4o-audio-preview', vendor: 'openai', input: 2.5, output: 10, rules: { audio_input: 40, audio_output: 80 }, source: OPENAI, as_of: D },
  { model: 'gpt-4o-mini-audio-preview', vendor: 'openai', input: 0.15, output: 0.6, rules: { audio_input: 10, audio_output: 20 }, source: OPENAI, as_of: D },
  { model: 'text-embedding-3-small', vendor: 'openai', input: 0.02, output: 0, source: OPENAI, as_of: D },
  { model: 'text-embedding-3-large', vendor: 'openai', input: 0.13, output: 0, source: OPENAI, as_of: D },
  // Anthropic (cache writes 1.25× / 2× input, reads 0.1×; over 200K input tokens the 1M-context rates)
  { model: 'claude-opus-4-1', vendor: 'anthropic', input: 15, output: 75, cached_input: 1.5, cache_write_5m: 18.75, cache_write_1h: 30, rules: { web_search: 10 }, source: ANTHROPIC, as_of: D },
  { model: 'claude-opus-4-20250514', vendor: 'anthropic', input: 15, output: 75, cached_input: 1.5, cache_write_5m: 18.75, cache_write_1h: 30, rules: { web_search: 10 }, source: ANTHROPIC, as_of: D },
  { model: 'claude-sonnet-4-5', vendor: 'anthropic', input: 3, output: 15, cached_input: 0.3, cache_write_5m: 3.75, cache_write_1h: 6, rules: CLAUDE_LONG(3, 15), source: ANTHROPIC, as_of: D },
  { model: 'claude-sonnet-4-20250514', vendor: 'anthropic', input: 3, output: 15, cached_input: 0.3, cache_write_5m: 3.75, cache_write_1h: 6, rules: CLAUDE_LONG(3, 15), source: ANTHROPIC, as_of: D },
  { model: 'claude-haiku-4-5', vendor: 'anthropic', input: 1, output: 5, cached_input: 0.1, cache_write_5m: 1.25, cache_write_1h: 2, rules: { web_search: 10 }, source: ANTHROPIC, as_of: D },
  { model: 'claude-3-5-haiku-20241022', vendor: 'anthropic', input: 0.8, output: 4, cached_input: 0.08, cache_write_5m: 1, cache_write_1h: 1.6, rules: { web_search: 10 }, source: ANTHROPIC, as_of: D },
  // Google Gemini (grounding with Google Search: USD 35 per 1,000 grounded prompts past the free tier)
  { model: 'gemini-2.5-pro', vendor: 'gemini', input: 1.25, output: 10, cached_input: 0.31, rules: { tiers: [{ above_input_tokens: 200_000, input: 2.5, output: 15, cached_input: 0.625 }], web_search: 35 }, source: GEMINI, as_of: D },
  { model: 'gemini-2.5-flash', vendor: 'gemini', input: 0.3, output: 2.5, cached_input: 0.075, rules: { audio_input: 1, web_search: 35 }, source: GEMINI, as_of: D },
  { model: 'gemini-2.5-flash-lite', vendor: 'gemini', input: 0.1, output: 0.4, cached_input: 0.025, rules: { audio_input: 0.3, web_search: 35 }, source: GEMINI, as_of: D },
  { model: 'gemini-2.0-flash', vendor: 'gemini', input: 0.1, output: 0.4, cached_input: 0.025, rules: { audio_input: 0.7, web_search: 35 }, source: GEMINI, as_of: D },
  // OpenAI-compatible presets
  { model: 'deepseek-chat', vendor: 'deepseek', input: 0.28, output: 0.42, cached_input: 0.028, source: 'https://api-docs.deepseek.com/quick_start/pricing', as_of: D },
  { model: 'deepseek-reasoner', vendor: 'deepseek', input: 0.28, output: 0.42, cached_input: 0.028, source: 'https://api-docs.deepseek.com/quick_start/pricing', as_of: D },
  { model: 'kimi-k2-0905-preview', vendor: 'moonshot', input: 0.6, output: 2.5, cached_input: 0.15, source: 'https://platform.moonshot.ai/docs/pricing/chat', as_of: D },
  { model: 'qwen-max', vendor: 'qwen', input: 1.6, output: 6.4, source: 'https://www.alibabacloud.com/help/en/model-studio/models', as_of: D },
  { model: 'qwen-plus', vendor: 'qwen', input: 0.4, output: 1.2, source: 'https://www.alibabacloud.com/help/en/model-studio/models', as_of: D },
  { model: 'qwen-turbo', vendor: 'qwen', input: 0.05, output: 0.2, source: 'https://www.alibabacloud.com/help/en/model-studio/models', as_of: D },
  { model: 'glm-4.5', vendor: 'zhipu', input: 0.6, output: 2.2, cached_input: 0.11, source: 'https://docs.z.ai/guides/overview/pricing', as_of: D },
  { model: 'glm-4.5-air', vendor: 'zhipu', input: 0.2, output: 1.1, cached_input: 0.03, source: 'https://docs.z.ai/guides/overview/pricing', as_of: D },
  { model: 'doubao-seed-1-6-250615', vendor: 'volcengine', input: 0.111, output: 1.111, source: 'https://www.volcengine.com/docs/82379/1544106', as_of: D, note: 'CNY 0.8 / 8 per 1M (input up to 32K) at 7.2 CNY per USD' },
  { model: 'ernie-4.5-turbo-128k', vendor: 'qianfan', input: 0.111, output: 0.444, source: 'https://cloud.baidu.com/doc/qianfan/s/wmh4sv6ya', as_of: D, note: 'CNY 0.8 / 3.2 per 1M at 7.2 CNY per USD' },
  { model: 'deepseek-ai/DeepSeek-V3', vendor: 'siliconflow', input: 0.278, output: 1.111, source: 'https://siliconflow.cn/pricing', as_of: D, note: 'CNY 2 / 8 per 1M at 7.2 CNY per USD' },
  { model: 'grok-4', vendor: 'xai', input: 3, output: 15, cached_input: 0.75, rules: { tiers: [{ above_input_tokens: 128_000, input: 6, output: 30 }] }, source: 'https://docs.x.ai/docs/models', as_of: D },
  { model: 'grok-3-mini', vendor: 'xai', input: 0.3, output: 0.5, cached_input: 0.075, source: 'https://docs.x.ai/docs/models', as_of: D },
  { model: 'mistral-large-latest', vendor: 'mistral', input: 2, output: 6, source: 'https://mistral.ai/pricing', as_of: D },
  { model: 'mistral-small-latest', vendor: 'mistral', input: 0.1, output: 0.3, source: 'https://mistral.ai/pricing', as_of: D },
  { model: 'codestral-latest', vendor: 'mistral', input: 0.3, output: 0.9, source: 'https://mistral.ai/pricing', as_of: D },
  { model: 'llama-3.3-70b-versatile', vendor: 'groq', input: 0.59, output: 0.79, source: 'https://groq.com/pricing', as_of: D },
  { model: 'llama-3.1-8b-instant', vendor: 'groq', input: 0.05, output: 0.08, source: 'https://groq.com/pricing', as_of: D },
  { model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', vendor: 'together', input: 0.88, output: 0.88, source: 'https://www.together.ai/pricing', as_of: D },
  { model: 'accounts/fireworks/models/llama-v3p3-70b-instruct', vendor: 'fireworks', input: 0.9, output: 0.9, source: 'https://fireworks.ai/pricing', as_of: D },
  { model: 'openai/gpt-4o', vendor: 'openrouter', input: 2.5, output: 10, source: 'https://openrouter.ai/openai/gpt-4o', as_of: D },
  { model: 'anthropic/claude-sonnet-4.5', vendor: 'openrouter', input: 3, output: 15, rules: { tiers: [{ above_input_tokens: 200_000, input: 6, output: 22.5 }] }, source: 'https://openrouter.ai/anthropic/claude-sonnet-4.5', as_of: D },
  { model: 'sonar', vendor: 'perplexity', input: 1, output: 1, source: 'https://docs.perplexity.ai/getting-started/pricing', as_of: D, note: 'plus a request fee by search context size' },
  { model: 'sonar-pro', vendor: 'perplexity', input: 3, output: 15, source: 'https://docs.perplexity.ai/getting-started/pricing', as_of: D, note: 'plus a request fee by search context size' },
  { model: '@cf/meta/llama-3.3-70b-instruct-fp8-fast', vendor: 'cloudflare', input: 0.293, output: 2.253, source: 'https://developers.cloudflare.com/workers-ai/platform/pricing/', as_of: D },
];
