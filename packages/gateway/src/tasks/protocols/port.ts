/**
 * What the protocol and native-route hosts need from the task lifecycle and the plugin runtime,
 * stated structurally (the lifecycle's TaskService and the runtime's generation satisfy it).
 */
import type { KeyPrincipal } from '../../accounts/types.ts';
import type { PluginLike } from './plugin-like.ts';

export type DecodedBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; fields: Record<string, string[]> }
  | { kind: 'multipart'; fields: Record<string, string[]>; files: FileRef[] }
  | { kind: 'none' };

export interface FileRef { ref: string; field: string; filename: string; mimeType: string; size: number }
/** A request file kept by the host (in memory, within limits); plugins only see its FileRef. */
export interface UploadedFile extends FileRef { data: Buffer }

export interface TaskRowLike {
  id: number;
  public_id: string;
  plugin_key: string;
  plugin_version: string;
  user_id: number;
  channel_id: number | null;
  model: string;
  upstream_model: string;
  action: string;
  status: string;
  progress: string;
  fail_reason: string | null;
  upstream_task_id: string | null;
  data: string | null;
  state: string | null;
  retain: number;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
  /** JSON host-protocol facts stored with the task (e.g. `{"background":true}`). */
  protocol?: string | null;
}

export interface ChannelLike {
  id: number;
  type: number;
  priority: number;
  weight: number;
  plugins: string[];
}

export interface GenerationLike {
  revision: number | string;
  plugins: Map<string, PluginLike>;
}

export interface SubmitInputLike {
  principal: KeyPrincipal;
  pluginKey: string;
  model: string;
  action?: string;
  requestBody: unknown;
  body?: DecodedBody;
  files?: UploadedFile[];
  path?: string;
  method?: string;
  params?: Record<string, string>;
  query?: Record<string, string[]>;
  requestHeaders?: Record<string, string>;
  retainResult?: boolean;
  generation?: GenerationLike;
  endpoint?: string;
  /** With retainResult false: an asynchronous task is expected (kept without a warning). */
  expectAsync?: boolean;
  /** Pins the submit to this channel (the channel chosen among candidates). */
  channelId?: number;
  /** Public ids of origin tasks; the lifecycle checks them and gives the driver `ctx.originTasks`. */
  originTaskIds?: string[];
  /** Host-protocol facts stored with the task. */
  protocol?: Record<string, unknown>;
}

export interface TasksPort {
  /** `data`: the immediate taskData, also when it was not retained. */
  submit(input: SubmitInputLike): Promise<{ row: TaskRowLike; data?: unknown }>;
  byPublicId(publicId: string): Promise<TaskRowLike | undefined>;
  waitForTerminal(publicId: string, timeoutMs: number, signal?: AbortSignal): Promise<{ row: TaskRowLike; timedOut: boolean }>;
  /** Polls the task's upstream now (in-request polling, under the poller's lease). */
  pollNow(publicId: string): Promise<unknown>;
  catalog: {
    candidates(pluginKey: string, model: string, group: string): ChannelLike[];
    channel(id: number | null): ChannelLike | undefined;
  };
}

export interface ArtifactLinkLike { key: string; type: string; mimeType?: string; url: string }

export interface ContentAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  /** A readable body (absent for HEAD / 304). */
  body?: NodeJS.ReadableStream | Buffer | null;
}

export interface ArtifactsPort {
  /** Artifacts of a SUCCESS task with signed content URLs. */
  links(row: TaskRowLike): Promise<ArtifactLinkLike[]>;
  /** Reads artifact content through the plugin's buildContentRequest. */
  content(row: TaskRowLike, key: string, req: { method: string; headers: Record<string, string> }): Promise<ContentAnswer>;
}
