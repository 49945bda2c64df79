/**
 * The OpenAI provider: the chat completions wire format (codec.ts) and OpenAI and OpenAI-compatible
 * channels (type `openai`; a compatible vendor is one preset entry in presets.ts), their URLs and auth
 * (endpoint.ts) and the OpenAI model list shape (models.ts).
 */
import { ChannelType } from '../../../channels/types.ts';
import type { BodyEdits, Codec, Endpoint, Provider } from '../provider.ts';
import { checkOpenAIChannel } from './channel-settings.ts';
import { openaiMaxField, setOpenAIMax } from './body.ts';
import * as codec from './codec.ts';
import { openaiErrorBody } from './errors.ts';
import {
  OPENAI_CALLER_HEADERS,
  OPENAI_DEFAULT_BASE_URL,
  OPENAI_PATH,
  openaiAuthHeaders,
  openaiPassUrl,
  openaiPathUrl,
  openaiRealtimeUrl,
  openaiResponseUrl,
  openaiServesPass,
} from './endpoint.ts';
import { openaiModel, openaiModelList } from './models.ts';

/** A mid-stream error event of the chat completions stream. */
export function openaiStreamError(reason: 'quota' | 'upstream', message: string): string {
  const error =
    reason === 'quota'
      ? { message, type: 'insufficient_quota', param: null, code: 'insufficient_quota' }
      : { message, type: 'upstream_error', param: null, code: 'upstream_stream_error' };
  return `data: ${JSON.stringify({ error })}\n\n`;
}

export const openaiCodec: Codec = {
  decodeRequest: codec.decodeRequest,
  encodeResponse: codec.encodeResponse,
  createStreamEncoder: codec.createStreamEncoder,
  streamError: openaiStreamError,
  errorBody: (e) => openaiErrorBody(e),
  encodeRequest: (req, model) => codec.encodeRequest(req, model),
  decodeResponse: codec.decodeResponse,
  createStreamDecoder: codec.createStreamDecoder,
  usageFromResponse: codec.usageFromResponse,
  usageFromStreamEvent: codec.usageFromStreamEvent,
  errorMessage: codec.errorMessage,
};

export const openaiEndpoint: Endpoint = {
  defaultBaseUrl: OPENAI_DEFAULT_BASE_URL,
  format: () => 'openai',
  supportsKind: () => true,
  url: (ch, kind) => new URL(openaiPathUrl(ch, OPENAI_PATH[kind])),
  authHeaders: openaiAuthHeaders,
  callerHeaders: OPENAI_CALLER_HEADERS,
  realtimeUrl: openaiRealtimeUrl,
  servesPass: openaiServesPass,
  passUrl: (ch, path) => openaiPassUrl(ch, path),
  responseUrl: openaiResponseUrl,
};

/** An OpenAI body names its model; its limit is `max_tokens` or `max_completion_tokens`, by the channel's setting when it has neither. */
export const openaiBody: BodyEdits = {
  setModel: (b, model) => {
    b.model = model;
  },
  maxOutput: (b) => b.max_completion_tokens ?? b.max_tokens,
  setMaxOutput: (b, max, opts) => setOpenAIMax(b, max, opts.field ?? 'max_tokens'),
  maxOutputField: openaiMaxField,
};

export const openaiProvider: Provider = {
  name: 'openai',
  title: 'OpenAI',
  format: 'openai',
  codec: openaiCodec,
  body: openaiBody,
  channelTypes: [ChannelType.openai],
  checkChannel: checkOpenAIChannel,
  endpoint: openaiEndpoint,
  models: { model: openaiModel, list: (models) => openaiModelList(models) },
};
