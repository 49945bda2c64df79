/**
 * The registry of providers (provider.ts): every vendor folder of relay/providers is listed once in
 * PROVIDERS and found here by wire format (its codec) or by channel type (its endpoint). A new wire
 * format or channel type is one folder and one entry in PROVIDERS.
 */
import type { WireFormat } from './canonical.ts';
import { checkTaskChannel, modelChannelBasics, type ChannelIssue, type ChannelSettingsInput } from '../../channels/settings-check.ts';
import type { Codec, Endpoint, Provider } from './provider.ts';
import { anthropicProvider } from './anthropic/index.ts';
import { azureProvider } from './azure/index.ts';
import { bedrockProvider } from './bedrock/index.ts';
import { geminiProvider } from './gemini/index.ts';
import { openaiProvider } from './openai/index.ts';
import { responsesProvider } from './responses/index.ts';
import { vertexProvider } from './vertex/index.ts';

export const PROVIDERS: readonly Provider[] = [
  openaiProvider,
  azureProvider,
  anthropicProvider,
  geminiProvider,
  vertexProvider,
  bedrockProvider,
  responsesProvider,
];

/** Every wire format, in the order callers and upstreams were added. */
export const WIRE_FORMATS: readonly WireFormat[] = ['openai', 'anthropic', 'gemini', 'responses', 'bedrock'];

const byFormat = new Map<WireFormat, Provider>();
const byChannelType = new Map<number, Provider>();
for (const p of PROVIDERS) {
  if (p.format) byFormat.set(p.format, p);
  for (const t of p.channelTypes) byChannelType.set(t, p);
}

/** Every channel type some provider serves: the channels of model calls. */
export const RELAY_CHANNEL_TYPES: ReadonlySet<number> = new Set(byChannelType.keys());

/** The provider whose codec speaks a wire format. */
export function formatProvider(format: WireFormat): Provider {
  const p = byFormat.get(format);
  if (!p) throw new Error(`no provider speaks the ${format} format`);
  return p;
}

/** The codec of a wire format. */
export const codecOf = (format: WireFormat): Codec => formatProvider(format).codec!;

/** The provider of a channel type; none for a type no provider serves (the task types). */
export const providerOfType = (type: number): Provider | undefined => byChannelType.get(type);

/** The provider of a channel type; every other type (a task channel) is OpenAI's, as for URLs and auth. */
export const channelProvider = (type: number): Provider => byChannelType.get(type) ?? openaiProvider;

/** The endpoint of a channel type's pass-through calls and realtime sessions: its own, else OpenAI's. */
export function passEndpoint(type: number): Endpoint {
  const e = byChannelType.get(type)?.endpoint;
  return e?.passUrl ? e : openaiProvider.endpoint!;
}

/** The endpoint of a channel type. */
export const endpointOf = (type: number): Endpoint => channelProvider(type).endpoint!;

/** The wire format of a channel; on Vertex it depends on the (upstream) model: Anthropic's or Google's. */
export const channelFormat = (type: number, model = ''): WireFormat => endpointOf(type).format(model);

/** The API root of a channel type with no base URL ('' when it has none). */
export const defaultBaseUrl = (type: number): string => byChannelType.get(type)?.endpoint?.defaultBaseUrl ?? '';

/** The error body shapes read from any upstream after its own format's (`upstreamErrorMessage`). */
export const COMMON_ERROR_FORMATS: readonly WireFormat[] = ['openai', 'anthropic', 'gemini'];

/**
 * The issues of a channel's type-specific settings: its provider's check (every relay type has one),
 * else its task kind's (channels/settings-check.ts). None when the channel is fine.
 */
export function checkChannelSettings(type: number, c: ChannelSettingsInput): ChannelIssue[] {
  const p = providerOfType(type);
  if (!p) return checkTaskChannel(type, c);
  return p.checkChannel ? p.checkChannel(c) : modelChannelBasics(c);
}
