/**
 * The Amazon Bedrock provider: the Converse wire format (codec.ts, an upstream's format only) and
 * Bedrock channels (endpoint.ts). A Bedrock URL and its signed headers depend on the key, so the relay
 * asks endpoint.ts for them with the key (`bedrockUrl`, `bedrockHeaders`).
 */
import { ChannelType } from '../../channel-types.ts';
import { openaiAuthHeaders } from '../openai/endpoint.ts';
import type { Codec, Provider } from '../provider.ts';
import * as codec from './codec.ts';

export const bedrockCodec: Codec = {
  encodeRequest: codec.encodeRequest,
  decodeResponse: codec.decodeResponse,
  createStreamDecoder: codec.createStreamDecoder,
  usageFromResponse: codec.usageFromResponse,
  usageFromStreamEvent: codec.usageFromStreamEvent,
  errorMessage: codec.errorMessage,
  // Bedrock names the error in a header (`x-amzn-errortype`) and only describes it in the body.
  upstreamErrorText: (m, status, errorType) =>
    errorType ? `${errorType}: ${m ?? `upstream returned status ${status}`}`.slice(0, 500) : (m ?? `upstream returned status ${status}`),
};

export const bedrockProvider: Provider = {
  name: 'bedrock',
  title: 'Bedrock',
  format: 'bedrock',
  codec: bedrockCodec,
  channelTypes: [ChannelType.bedrock],
  endpoint: {
    format: () => 'bedrock',
    supportsKind: (kind) => kind === 'chat',
    url: () => {
      throw new Error('bedrock URLs depend on the key: use bedrockUrl');
    },
    authHeaders: openaiAuthHeaders,
  },
};
