/**
 * The Amazon Bedrock provider: the Converse wire format (codec.ts, an upstream's format only) and
 * Bedrock channels (endpoint.ts). A Bedrock URL and its signed headers depend on the key: the
 * endpoint's `prepare` builds them with the key (`bedrockUrl`, `bedrockHeaders`).
 */
import { ChannelType } from '../../../channels/types.ts';
import { openaiAuthHeaders } from '../openai/endpoint.ts';
import { UnusableKeyError, type BodyEdits, type Codec, type Provider } from '../provider.ts';
import { checkBedrockChannel } from './channel-settings.ts';
import { setBedrockMax } from './body.ts';
import * as codec from './codec.ts';
import { bedrockCredential, bedrockHeaders, bedrockUrl, EVENT_STREAM_TYPE, EventStreamFramer, type BedrockCredential } from './endpoint.ts';

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
  upstreamErrorType: (headers) => codec.errorType(headers['x-amzn-errortype']),
  // Anthropic models on Bedrock get the caller's Anthropic betas in the body.
  encodeOptions: (callerHeaders) => ({ anthropicBeta: codec.betaList(callerHeaders?.['anthropic-beta']) }),
  // Bedrock streams AWS event-stream messages, read into the same events as SSE (endpoint.ts).
  streamContentType: EVENT_STREAM_TYPE,
  streamFramer: () => new EventStreamFramer(),
};

/** A Converse body names no model (it is in the URL); its limit is `inferenceConfig.maxTokens`. */
export const bedrockBody: BodyEdits = {
  maxOutput: (b) =>
    typeof b.inferenceConfig === 'object' && b.inferenceConfig !== null
      ? (b.inferenceConfig as Record<string, unknown>).maxTokens
      : undefined,
  setMaxOutput: (b, max) => setBedrockMax(b, max),
};

export const bedrockProvider: Provider = {
  name: 'bedrock',
  title: 'Bedrock',
  format: 'bedrock',
  codec: bedrockCodec,
  body: bedrockBody,
  channelTypes: [ChannelType.bedrock],
  checkChannel: checkBedrockChannel,
  endpoint: {
    format: () => 'bedrock',
    supportsKind: (kind) => kind === 'chat',
    url: () => {
      throw new Error('bedrock URLs depend on the key: use bedrockUrl');
    },
    authHeaders: openaiAuthHeaders,
    // A key is an access key (each request signed with SigV4) or an API key (a bearer token); its region picks the endpoint.
    prepare: async (ctx) => {
      let cred: BedrockCredential;
      try {
        cred = bedrockCredential(ctx.key, ctx.channel);
      } catch (e) {
        throw new UnusableKeyError(e as Error);
      }
      const url = bedrockUrl(ctx.channel, cred, ctx.model, ctx.stream);
      const headers = await bedrockHeaders(ctx.channel, cred, url, ctx.body, ctx.stream);
      return { url, headers, body: ctx.body, secrets: cred.secrets };
    },
  },
};
