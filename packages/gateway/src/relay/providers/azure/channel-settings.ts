/** The settings of Azure OpenAI channels as administration checks them: a base URL and an API version. */
import { fieldError } from '../../../platform/validate.ts';
import type { ChannelCheck } from '../provider.ts';

export const checkAzureChannel: ChannelCheck = (c, field) => {
  const s = c.settings;
  if (!c.base_url) throw fieldError(field('base_url'), 'is required for azure channels (https://NAME.openai.azure.com)');
  if (s.api_version !== undefined && (typeof s.api_version !== 'string' || !/^\d{4}-\d{2}-\d{2}(-preview)?$/.test(s.api_version))) {
    throw fieldError(field('settings.api_version'), 'must look like 2024-10-21 or 2025-01-01-preview');
  }
};
