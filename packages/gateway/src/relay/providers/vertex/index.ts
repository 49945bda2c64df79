/**
 * The Vertex AI provider: no wire format of its own; Anthropic's models speak Anthropic's format and
 * every other model Gemini's (endpoint.ts), with an access token from the channel's service account.
 */
import { ChannelType } from '../../channel-types.ts';
import { openaiAuthHeaders } from '../openai/endpoint.ts';
import type { Provider } from '../provider.ts';
import { isVertexAnthropic, toVertexAnthropicBody, vertexUrl } from './endpoint.ts';

export const vertexProvider: Provider = {
  name: 'vertex',
  title: 'Vertex AI',
  channelTypes: [ChannelType.vertex],
  endpoint: {
    format: (model) => (isVertexAnthropic(model) ? 'anthropic' : 'gemini'),
    supportsKind: (kind) => kind === 'chat',
    url: (ch, _kind, model, stream, action) => vertexUrl(ch, model, stream, action),
    prepareBody: (body, model) => {
      if (isVertexAnthropic(model)) toVertexAnthropicBody(body);
    },
    // The key is exchanged for an access token first (platform/google-token.ts).
    authHeaders: openaiAuthHeaders,
  },
};
