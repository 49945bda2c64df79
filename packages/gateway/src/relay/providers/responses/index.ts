/**
 * The Responses provider: OpenAI's Responses API as a caller's format (codec.ts). No channel type
 * speaks it: a Responses call to a channel whose upstream serves the Responses API passes through
 * (relay/passthrough.ts), any other is converted to the channel's format.
 */
import type { Codec, Provider } from '../provider.ts';
import { openaiCodec } from '../openai/index.ts';
import * as codec from './codec.ts';

export const responsesCodec: Codec = {
  decodeRequest: (body) => codec.decodeRequest(body),
  encodeResponse: (res, clientModel, requestId) => codec.encodeResponse(res, clientModel, requestId),
  createStreamEncoder: (opts) => codec.createStreamEncoder(opts),
  streamError: (reason, message) => codec.streamError(reason === 'quota' ? 'insufficient_quota' : 'upstream_stream_error', message),
  errorBody: openaiCodec.errorBody,
};

export const responsesProvider: Provider = {
  name: 'responses',
  title: 'Responses',
  format: 'responses',
  codec: responsesCodec,
  channelTypes: [],
};
