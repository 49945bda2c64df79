/**
 * The OpenAI-compatible vendors: each is one entry of OPENAI_COMPATIBLE_PRESETS (its API root and what a
 * channel of it needs), served by the OpenAI provider of this folder. A new OpenAI-compatible vendor is
 * one entry here.
 */

/** An OpenAI-compatible vendor: where its API lives, and what a channel of it needs. */
export interface OpenAIPreset {
  /**
   * The API root from the vendor's own documentation: the paths of the OpenAI API (`chat/completions`,
   * `embeddings`, …) are appended to it as they are. `{account_id}` is replaced by `settings.account_id`.
   */
  root: string;
  /** A server on the operator's own machine: keys are optional. */
  local?: boolean;
  /** Settings the root needs. */
  needs?: readonly string[];
  /** The vendor serves the Responses API (else Responses calls to it are converted to chat completions). */
  responses?: boolean;
}

/**
 * OpenAI-compatible vendors are configuration of the one OpenAI provider: a preset gives the API root.
 * `settings.preset` on an `openai` channel picks one when base_url is empty. A new OpenAI-compatible
 * vendor is one entry here.
 */
export const OPENAI_COMPATIBLE_PRESETS: Record<string, OpenAIPreset> = {
  openai: { root: 'https://api.openai.com/v1', responses: true },
  deepseek: { root: 'https://api.deepseek.com' },
  moonshot: { root: 'https://api.moonshot.cn/v1' },
  qwen: { root: 'https://dashscope.aliyuncs.com/compatible-mode/v1' },
  zhipu: { root: 'https://open.bigmodel.cn/api/paas/v4' },
  volcengine: { root: 'https://ark.cn-beijing.volces.com/api/v3' },
  qianfan: { root: 'https://qianfan.baidubce.com/v2' },
  siliconflow: { root: 'https://api.siliconflow.cn/v1' },
  xai: { root: 'https://api.x.ai/v1', responses: true },
  mistral: { root: 'https://api.mistral.ai/v1' },
  groq: { root: 'https://api.groq.com/openai/v1', responses: true },
  together: { root: 'https://api.together.xyz/v1' },
  fireworks: { root: 'https://api.fireworks.ai/inference/v1' },
  openrouter: { root: 'https://openrouter.ai/api/v1', responses: true },
  perplexity: { root: 'https://api.perplexity.ai' },
  cloudflare: { root: 'https://api.cloudflare.com/client/v4/accounts/{account_id}/ai/v1', needs: ['account_id'] },
  ollama: { root: 'http://127.0.0.1:11434/v1', local: true },
  vllm: { root: 'http://127.0.0.1:8000/v1', local: true, responses: true },
  lmstudio: { root: 'http://127.0.0.1:1234/v1', local: true },
};

/** The API root of a preset with its settings filled in, or null when it is unknown or a setting is missing. */
export function presetRoot(name: string, settings: Record<string, unknown>): string | null {
  const p = OPENAI_COMPATIBLE_PRESETS[name];
  if (!p) return null;
  let missing = false;
  const root = p.root.replace(/\{(\w+)\}/g, (_m, k: string) => {
    const v = settings[k];
    if (typeof v !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(v)) {
      missing = true;
      return '';
    }
    return v;
  });
  return missing ? null : root;
}
