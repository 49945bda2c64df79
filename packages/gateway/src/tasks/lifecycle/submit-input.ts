/**
 * What a task submission is given and answers (`SubmitInput`, `SubmitOutcome`, the decoded body and
 * the origin tasks a driver sees), and the pure parts of a submission: the channels it may try, the
 * plugin driver's context, and the error for an upstream's refusal.
 */
import type { KeyPrincipal } from '../../accounts/types.ts';
import type { HeaderSink } from '../../accounts/rate-limits.ts';
import { echo, type GatewayError, fail } from '../../platform/errors.ts';
import { redactSecrets, sentSecrets } from '../../platform/redact.ts';
import type { Generation } from '../../plugins/runtime/generation.ts';
import type { LoadedPlugin } from '../../plugins/runtime/loader.ts';
import type { TaskChannel } from './catalog.ts';
import type { Task } from './context.ts';
import type { PublicTask } from './states.ts';
import { decodeBody, readLimited, type buildRequest, type FileRef, type send, type UploadedFile } from '../outbound/request.ts';

/** The decoded inbound body (`ctx.body`); multipart files are references, the bytes stay with the host. */
export type DecodedBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; fields: Record<string, string[]> }
  | { kind: 'multipart'; fields: Record<string, string[]>; files: FileRef[] }
  | { kind: 'none' };

export interface SubmitInput {
  principal: KeyPrincipal;
  pluginKey: string;
  model: string;
  action?: string;
  /** The normalised request body the plugin sees as `ctx.requestBody`. */
  requestBody: unknown;
  /** The decoded inbound body (`ctx.body`); defaults to `{kind:'json', value: requestBody}`. */
  body?: DecodedBody;
  files?: UploadedFile[];
  path?: string;
  method?: string;
  params?: Record<string, string>;
  query?: Record<string, string[]>;
  requestHeaders?: Record<string, string>;
  /** Default true. False: an immediate terminal result is not stored (reads answer 404). */
  retainResult?: boolean;
  /**
   * With `retainResult: false`: an asynchronous task is expected (its result is kept without a
   * warning). The image protocol sets it: results completed by in-request polling keep their snapshot.
   */
  expectAsync?: boolean;
  /**
   * Pins the channel chosen at candidate selection (it decides the executing plugin). Another channel
   * of the same plugin is tried only when the pinned one certainly did not accept the task.
   */
  channelId?: number;
  /**
   * Public ids of earlier tasks this one continues (decoder `originTaskIds`). Each must belong to the
   * caller and have been run by a channel of this plugin, all on one channel, which is then pinned for
   * every attempt. The driver gets `ctx.originTasks` with the upstream ids; renderers never do.
   */
  originTaskIds?: string[];
  /** Host-protocol facts stored with the task (e.g. `{ background: true }` for Responses). */
  protocol?: Record<string, unknown>;
  /** Pin the request to this generation (default: the current one). */
  generation?: Generation;
  /** Where the rate-limit headers of the submission go (the HTTP response). */
  limitHeaders?: HeaderSink;
  /** Endpoint name for logs. */
  endpoint?: string;
  /** The `X-Callback-URL` header of the submission (absent: the key's default callback URL, if any). */
  callbackUrl?: string;
}

/** An origin task as the driver sees it (`ctx.originTasks[]`); `taskId` is the upstream id. */
export interface OriginTask {
  taskId: string;
  publicTaskId: string;
  action: string;
  status: string;
  data: unknown;
}

/** A submit's outcome; `data` is the submit-time taskData, also when it was not retained. */
export interface SubmitOutcome {
  task: PublicTask;
  row: Task;
  data: unknown;
}

function upstreamMessage(body: unknown): string {
  let m = '';
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const e = b.error as Record<string, unknown> | string | undefined;
    m = typeof e === 'string' ? e : typeof e?.message === 'string' ? e.message : typeof b.message === 'string' ? b.message : '';
  } else if (typeof body === 'string') m = body;
  m = m.replace(/\s+/g, ' ').trim().slice(0, 300);
  return m ? `: ${m}` : '';
}

/**
 * The channels a submission may try, in order: with origin tasks only their channel; with a chosen
 * channel that one first, then the others of the plugin.
 */
export function pinChannels(
  channels: TaskChannel[],
  originChannelId: number | null,
  chosenId: number | undefined,
  model: string,
  pluginKey: string,
  group: string,
): TaskChannel[] {
  const pinnedId = originChannelId ?? chosenId;
  if (originChannelId !== null && chosenId !== undefined && chosenId !== originChannelId) {
    throw fail('origin_task_channel_conflict', `the origin tasks were made on another channel than the one chosen for this request`);
  }
  if (pinnedId === undefined || pinnedId === null) return channels;
  const pinned = channels.find((c) => c.id === pinnedId);
  if (!pinned) {
    throw originChannelId !== null
      ? fail(
          'origin_task_channel_disabled',
          `the channel of the origin tasks does not serve model "${echo(model)}" for group "${group}" (disabled or changed)`,
        )
      : fail('no_available_channel', `the chosen channel no longer serves model "${echo(model)}" of plugin "${pluginKey}"`);
  }
  // Origin tasks keep their channel for every attempt; a chosen channel may fail over within the plugin.
  return originChannelId !== null ? [pinned] : [pinned, ...channels.filter((c) => c !== pinned)];
}

/** The error for a non-2xx answer to a submission, with the upstream's message (credentials it echoes removed). */
export async function rejection(
  res: Awaited<ReturnType<typeof send>>,
  keys: string[],
  built: ReturnType<typeof buildRequest> | null,
): Promise<GatewayError> {
  const buf = await readLimited(res.body, 64 * 1024).catch(() => Buffer.alloc(0));
  // An upstream error may echo the credentials it got: they never go further than here.
  const secrets = sentSecrets(keys, built?.headers, built?.url);
  const detail = upstreamMessage(decodeBody(Buffer.from(redactSecrets(buf.toString('utf8'), secrets))));
  return res.status === 429
    ? fail('upstream_busy', `the upstream is busy (HTTP 429)${detail}`)
    : res.status >= 500
      ? fail('upstream_error', `the upstream failed (HTTP ${res.status})${detail}`)
      : fail('upstream_rejected', `the upstream rejected the task (HTTP ${res.status})${detail}`);
}

/** The DriverContext of a submission before the channel's credentials are added (docs/plugins.md). */
export function driverContext(
  input: SubmitInput,
  plugin: LoadedPlugin,
  at: {
    files: FileRef[];
    action: string;
    publicTaskId: string;
    model: string;
    upstreamModel: string;
    baseUrl: string;
    originTasks: OriginTask[];
  },
): Record<string, unknown> {
  return {
    path: input.path ?? `/v1/tasks/${plugin.key}`,
    method: input.method ?? 'POST',
    params: input.params ?? {},
    query: input.query ?? {},
    body: input.body ?? { kind: 'json', value: input.requestBody ?? null },
    requestBody: input.requestBody ?? null,
    requestHeaders: input.requestHeaders ?? {},
    files: at.files,
    action: at.action,
    publicTaskId: at.publicTaskId,
    model: at.model,
    upstreamModel: at.upstreamModel,
    baseUrl: at.baseUrl,
    ...(at.originTasks.length ? { originTasks: at.originTasks } : {}),
  };
}
