/** What the channel pages share: a channel as the API gives it, and the channel types the forms offer. */
import type { Schemas } from '../../api/client';

export type Channel = Schemas['Channel'];
export const CHANNEL_TYPES = ['openai', 'azure', 'anthropic', 'gemini', 'vertex', 'bedrock', 'gateway', 'task_plugin'] as const;
