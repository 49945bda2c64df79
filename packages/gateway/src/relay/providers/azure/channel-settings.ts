/** The settings of Azure OpenAI channels as administration checks them: a base URL, an API version, a key and a model. */
import { invalid, missing, modelChannelBasics, type ChannelIssue } from '../../../channels/settings-check.ts';
import type { ChannelCheck } from '../provider.ts';

export const checkAzureChannel: ChannelCheck = (c) => {
  const s = c.settings;
  const out: ChannelIssue[] = [];
  if (!c.base_url) out.push(missing('base_url', 'is required for azure channels (https://NAME.openai.azure.com)'));
  if (s.api_version !== undefined && (typeof s.api_version !== 'string' || !/^\d{4}-\d{2}-\d{2}(-preview)?$/.test(s.api_version))) {
    out.push(invalid('settings.api_version', 'must look like 2024-10-21 or 2025-01-01-preview'));
  }
  return [...out, ...modelChannelBasics(c)];
};
