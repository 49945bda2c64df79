/**
 * The Anthropic provider: the Messages wire format (codec.ts), Anthropic channels (endpoint.ts) and the
 * messages-style model list (models.ts).
 */
import { modelChannelBasics } from '../../../channels/settings-check.ts';
import { ChannelType } from '../../../channels/types.ts';
import type { BodyEdits, Codec, Provider } from '../provider.ts';
import * as codec from './codec.ts';
import { anthropicErrorBody } from './errors.ts';
import { ANTHROPIC_CALLER_HEADERS, ANTHROPIC_DEFAULT_BASE_URL, anthropicAuthHeaders, anthropicUrl } from './endpoint.ts';
import { anthropicModel, anthropicModelList } from './models.ts';

export const anthropicCodec: Codec = {
  decodeRequest: (body) => codec.decodeRequest(body),
  encodeResponse: codec.encodeResponse,
  createStreamEncoder: codec.createStreamEncoder,
  streamError: (reason, message) =>
    `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: reason === 'quota' ? 'billing_error' : 'api_error', message } })}\n\n`,
  errorBody: anthropicErrorBody,
  encodeRequest: codec.encodeRequest,
  decodeResponse: codec.decodeResponse,
  createStreamDecoder: codec.createStreamDecoder,
  usageFromResponse: codec.usageFromResponse,
  usageFromStreamEvent: codec.usageFromStreamEvent,
  errorMessage: codec.errorMessage,
};

/** An Anthropic body names its model; `max_tokens` is lowered to `max`, never raised. */
export const anthropicBody: BodyEdits = {
  setModel: (b, model) => {
    b.model = model;
  },
  maxOutput: (b) => b.max_tokens,
  setMaxOutput: (b, max) => {
    b.max_tokens = Math.min(max, typeof b.max_tokens === 'number' ? b.max_tokens : max);
  },
};

export const anthropicProvider: Provider = {
  name: 'anthropic',
  title: 'Anthropic',
  format: 'anthropic',
  codec: anthropicCodec,
  body: anthropicBody,
  channelTypes: [ChannelType.anthropic],
  // No settings of its own: a key and a model, as every model-call channel.
  checkChannel: (c) => modelChannelBasics(c),
  endpoint: {
    defaultBaseUrl: ANTHROPIC_DEFAULT_BASE_URL,
    format: () => 'anthropic',
    supportsKind: (kind) => kind === 'chat',
    url: (ch) => anthropicUrl(ch),
    authHeaders: anthropicAuthHeaders,
    callerHeaders: ANTHROPIC_CALLER_HEADERS,
  },
  models: { model: anthropicModel, list: anthropicModelList },
};
