/**
 * Channel types. Numbers follow the values New API's users already know, so exported channel lists
 * and plugin manifests (`channelTypes`) mean the same thing here.
 */
export const ChannelType = {
  openai: 1,
  azure: 3,
  anthropic: 14,
  gemini: 24,
  /** Amazon Bedrock: the Converse API, SigV4-signed access keys or a Bedrock API key (relay/providers/bedrock/endpoint.ts). */
  bedrock: 33,
  /** Google Vertex AI: Gemini and Anthropic models, a service-account key (relay/providers/vertex/endpoint.ts). */
  vertex: 41,
  /** A peer gateway (Gatehouse or New API) whose task plugins are used through their native routes. */
  gateway: 60,
  /** A task plugin bound by key. */
  task_plugin: 61,
} as const;

export type ChannelTypeName = keyof typeof ChannelType;

export const CHANNEL_TYPE_NAMES: Record<number, ChannelTypeName> = Object.fromEntries(
  Object.entries(ChannelType).map(([k, v]) => [v, k as ChannelTypeName]),
);

/** Accepts a type name (`openai`, `task_plugin`, also `new_api` / `gateway_api` for 60) or number. */
export function parseChannelType(v: unknown): number {
  if (typeof v === 'number' && CHANNEL_TYPE_NAMES[v]) return v;
  if (typeof v === 'string') {
    const s = v.trim().toLowerCase();
    if (s === 'new_api' || s === 'gateway_api' || s === 'peer_gateway') return ChannelType.gateway;
    if (s === 'plugin' || s === 'task') return ChannelType.task_plugin;
    if (s in ChannelType) return ChannelType[s as ChannelTypeName];
    if (/^\d+$/.test(s) && CHANNEL_TYPE_NAMES[Number(s)]) return Number(s);
  }
  throw new Error(`unknown channel type "${String(v)}" (one of ${Object.keys(ChannelType).join(', ')})`);
}

export const isTaskChannelType = (t: number) => t === ChannelType.gateway || t === ChannelType.task_plugin;
