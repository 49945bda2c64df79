/**
 * The Vertex AI provider: no wire format of its own; Anthropic's models speak Anthropic's format and
 * every other model Gemini's (endpoint.ts), with an access token from the channel's service account.
 */
import { ChannelType } from '../../../channels/types.ts';
import { openaiAuthHeaders } from '../openai/endpoint.ts';
import type { Provider } from '../provider.ts';
import { checkVertexChannel } from './channel-settings.ts';
import { isVertexAnthropic, vertexAnthropicBody, vertexUrl } from './endpoint.ts';

export const vertexProvider: Provider = {
  name: 'vertex',
  title: 'Vertex AI',
  channelTypes: [ChannelType.vertex],
  checkChannel: checkVertexChannel,
  endpoint: {
    format: (model) => (isVertexAnthropic(model) ? 'anthropic' : 'gemini'),
    supportsKind: (kind) => kind === 'chat',
    url: (ch, _kind, model, stream, action) => vertexUrl(ch, model, stream, action),
    authHeaders: openaiAuthHeaders,
    // The key is a service account: the upstream gets its access token (platform/google-token.ts).
    prepare: async (ctx) => {
      const body = isVertexAnthropic(ctx.model) ? vertexAnthropicBody(ctx.body) : ctx.body;
      const google = ctx.google;
      const { url, headers } = ctx.standard(google ? await google.token(google.account(ctx.key)) : ctx.key);
      return { url, headers, body, secrets: [ctx.key] };
    },
    // A refused token is exchanged again on the next request with this key.
    onAuthFailure: (key, google) => google?.invalidate(google.account(key)),
  },
};
