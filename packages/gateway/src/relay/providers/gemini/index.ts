/**
 * The Gemini provider: Google's generateContent wire format (codec.ts), its embedding actions
 * (embed.ts), Gemini API channels (endpoint.ts) and the Gemini-style model list (models.ts).
 */
import { modelChannelBasics } from '../../../channels/settings-check.ts';
import { ChannelType } from '../../../channels/types.ts';
import type { BodyEdits, Codec, Provider } from '../provider.ts';
import { geminiMax, setGeminiMax } from './body.ts';
import * as codec from './codec.ts';
import { geminiErrorBody } from './errors.ts';
import { GEMINI_DEFAULT_BASE_URL, geminiAuthHeaders, geminiUrl } from './endpoint.ts';
import { geminiModel, geminiModelList } from './models.ts';

export const geminiCodec: Codec = {
  decodeRequest: codec.decodeRequest,
  encodeResponse: codec.encodeResponse,
  createStreamEncoder: codec.createStreamEncoder,
  streamError: (reason, message) =>
    `data: ${JSON.stringify({ error: reason === 'quota' ? { code: 429, message, status: 'RESOURCE_EXHAUSTED' } : { code: 502, message, status: 'UNAVAILABLE' } })}\n\n`,
  errorBody: (e) => geminiErrorBody(e),
  encodeRequest: (req) => codec.encodeRequest(req),
  decodeResponse: codec.decodeResponse,
  createStreamDecoder: codec.createStreamDecoder,
  usageFromResponse: codec.usageFromResponse,
  usageFromStreamEvent: codec.usageFromStreamEvent,
  errorMessage: codec.errorMessage,
};

/** A Gemini body names no model (it is in the URL); its limit is `generationConfig.maxOutputTokens`. */
export const geminiBody: BodyEdits = {
  maxOutput: geminiMax,
  setMaxOutput: (b, max) => setGeminiMax(b, max),
};

export const geminiProvider: Provider = {
  name: 'gemini',
  title: 'Gemini',
  format: 'gemini',
  codec: geminiCodec,
  body: geminiBody,
  channelTypes: [ChannelType.gemini],
  // No settings of its own: a key and a model, as every model-call channel.
  checkChannel: (c) => modelChannelBasics(c),
  endpoint: {
    defaultBaseUrl: GEMINI_DEFAULT_BASE_URL,
    format: () => 'gemini',
    // Gemini callers' embedding actions also go to Gemini channels as they are.
    supportsKind: (kind, inbound) => kind === 'chat' || (kind === 'embeddings' && inbound === 'gemini'),
    url: (ch, _kind, model, stream, action) => geminiUrl(ch, model, stream, action),
    authHeaders: geminiAuthHeaders,
  },
  models: { model: geminiModel, list: geminiModelList },
};
