/**
 * The Azure OpenAI provider: OpenAI's wire format (openai/codec.ts) at Azure's deployment URLs with
 * Azure's auth and API versions (endpoint.ts).
 */
import { ChannelType } from '../../../channels/types.ts';
import { OPENAI_CALLER_HEADERS, OPENAI_PATH } from '../openai/endpoint.ts';
import type { Provider } from '../provider.ts';
import { checkAzureChannel } from './channel-settings.ts';
import { azureAuthHeaders, azureDeploymentUrl, azurePassUrl, azureRealtimeUrl, azureResponseUrl, azureServesPass } from './endpoint.ts';

export const azureProvider: Provider = {
  name: 'azure',
  title: 'Azure OpenAI',
  channelTypes: [ChannelType.azure],
  checkChannel: checkAzureChannel,
  endpoint: {
    format: () => 'openai',
    supportsKind: () => true,
    url: (ch, kind, model) => azureDeploymentUrl(ch, model, OPENAI_PATH[kind]),
    authHeaders: azureAuthHeaders,
    callerHeaders: OPENAI_CALLER_HEADERS,
    realtimeUrl: azureRealtimeUrl,
    servesPass: azureServesPass,
    passUrl: azurePassUrl,
    responseUrl: azureResponseUrl,
  },
};
