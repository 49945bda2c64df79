/**
 * The Gatehouse task-plugin contract, version 1, as code: the manifest, every hook and context, the
 * values hooks return, and the `utils` the host injects. The host validates manifests with the JSON
 * Schema exported here (`manifestSchema`) before its semantic checks, so this package is the single
 * source of truth for plugin authors and for the host.
 *
 * A plugin is one ESM file of `export` declarations, synchronous, without imports:
 *
 *   export const meta: Manifest = { ... };
 *   export function buildSubmitRequest(ctx: DriverContext): RequestDescriptor { ... }
 */
import manifestSchemaJson from './manifest.schema.json' with { type: 'json' };

export const manifestSchema: Record<string, unknown> = manifestSchemaJson as Record<string, unknown>;

export const API_VERSION = 1 as const;

/** Versioned host capabilities a plugin may require (exact versions). */
export const CAPABILITIES = ['json-clone@1', 'json-order@1', 'submit-sse-delta@1'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** Protocol claim names. The `openai_*` spellings of the New API market are accepted as aliases. */
export const PROTOCOL_NAMES = ['compat_image', 'compat_video', 'compat_responses'] as const;
export type ProtocolName = (typeof PROTOCOL_NAMES)[number];
export const PROTOCOL_ALIASES: Record<string, ProtocolName> = {
  openai_image: 'compat_image',
  openai_video: 'compat_video',
  openai_responses: 'compat_responses',
};
export type ProtocolNameSpelling = ProtocolName | 'openai_image' | 'openai_video' | 'openai_responses';

/** Upstream kinds. `new_api` is accepted as an alias of `gateway_api`. */
export type UpstreamKind = 'vendor' | 'gateway_api';
export type UpstreamSpelling = UpstreamKind | 'new_api';
export const UPSTREAM_ALIASES: Record<string, UpstreamKind> = { new_api: 'gateway_api' };

/** Responses request modes, in host order. */
export const RESPONSES_MODES = ['stream', 'sync', 'background'] as const;
export type ResponsesMode = (typeof RESPONSES_MODES)[number];

/**
 * Path prefixes the host keeps for itself. A native route must not intersect any of them (compared
 * segment by segment, ignoring case; a parameter or catch-all at a reserved segment intersects).
 */
export const RESERVED_ROUTE_PREFIXES: readonly string[] = [
  '/api',
  '/assets',
  '/setup',
  '/v1/tasks',
  '/console',
  '/login',
  '/forbidden',
  '/sign-in',
  '/sign-up',
  '/forgot-password',
  '/oauth',
  '/otp',
  '/register',
  '/reset',
  '/privacy-policy',
  '/user-agreement',
  '/about',
  '/pricing',
  '/rankings',
  '/user',
  '/401',
  '/403',
  '/404',
  '/500',
  '/503',
  '/chat2link',
  '/system-settings',
  '/channels',
  '/chat',
  '/dashboard',
  '/errors',
  '/keys',
  '/models',
  '/playground',
  '/profile',
  '/redemption-codes',
  '/subscriptions',
  '/system-info',
  '/task-plugins',
  '/usage-logs',
  '/users',
  '/wallet',
  // Gatehouse's own endpoint families.
  '/healthz',
  '/metrics',
  '/pg',
  '/v1beta',
  '/v1/chat',
  '/v1/completions',
  '/v1/embeddings',
  '/v1/images',
  '/v1/edits',
  '/v1/audio',
  '/v1/rerank',
  '/v1/moderations',
  '/v1/responses',
  '/v1/messages',
  '/v1/realtime',
  '/v1/models',
  '/v1/videos',
  '/v1/engines',
];
export type TaskStatus = 'NOT_START' | 'SUBMITTED' | 'QUEUED' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE' | 'UNKNOWN';
export const TASK_STATUSES: readonly TaskStatus[] = ['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'UNKNOWN'];

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };

/** A string (English) or a language map that contains `en`. */
export type LocalizedText = string | ({ en: string } & Record<string, string>);

// ---------------------------------------------------------------------------------------------
// Manifest
// ---------------------------------------------------------------------------------------------

export interface NativeRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Starts with `/`; `:name` parameters, `*name` catch-all last; trailing slash is significant. */
  path: string;
  type: 'submit' | 'query' | 'dynamic';
  /** Task action used when the decoder gives none (submit/dynamic). */
  action?: string;
  /** Name of a `native` decoder; required for submit and dynamic, forbidden for query. */
  decode?: string;
  /** Name of a `native` presenter; required for every route. */
  render: string;
  /** Query routes only: the path parameter that holds the task id (default `task_id`). */
  taskIdParam?: string;
  /** Submit/dynamic only: allowed top-level models (subset of `meta.models`). */
  models?: string[];
  /** Submit/dynamic only, default true: false finishes the task at submit without keeping its result. */
  retainResult?: boolean;
}

export type ProtocolClaim =
  | ProtocolNameSpelling
  | { name: 'compat_image' | 'compat_video' | 'openai_image' | 'openai_video'; models?: string[] }
  | { name: 'compat_responses' | 'openai_responses'; supports: ResponsesMode[]; models?: string[] };

export type UsageField =
  | { type: 'number'; unit: 'second' | 'count' | 'token' | 'credit'; unitLabel?: LocalizedText; description?: LocalizedText }
  | { type: 'boolean'; description?: LocalizedText }
  | { enum: string[]; enumLabels?: Record<string, LocalizedText>; description?: LocalizedText };

export type UsageSchema = Record<string, UsageField>;
export interface UsageExample {
  label: string;
  facts: Record<string, string | number | boolean>;
}
export interface UsageProfile {
  models: string[];
  schema: UsageSchema;
  examples?: UsageExample[];
}

export type AuthKind = 'none' | 'api_key' | 'oauth2_jwt' | 'vertex_oauth';

export interface Manifest {
  apiVersion: 1;
  /** `^[a-z0-9][a-z0-9_-]*$`, at most 30 characters. */
  key: string;
  name: string;
  /** Strict semantic version. */
  version: string;
  author: { name: string; url?: string };
  models: string[];
  fetchMode: 'per_task' | 'batch';
  description?: LocalizedText;
  /** An icon name, `text` or `text:<label>`; never a URL or inline image. */
  icon?: string;
  /** Empty, or an HTTPS URL. */
  website?: string;
  sortPriority?: number;
  /** Default upstream for type-61 channels that have no base URL. */
  baseUrl?: string;
  /** Extra hosts (`host` or `host:port`) outbound requests may reach besides the channel host. */
  allowedHosts?: string[];
  upstreams?: UpstreamSpelling[];
  auth?: AuthKind | '' | { type: AuthKind | '' };
  /** Legacy channel types this plugin adapts; never 60 or 61; each owned by one plugin. */
  channelTypes?: number[];
  routes?: NativeRoute[];
  protocols?: ProtocolClaim[];
  usageSchema?: UsageSchema;
  usageExamples?: UsageExample[];
  usageProfiles?: UsageProfile[];
  requiredCapabilities?: Capability[];
  submitResponseTypes?: Array<'json' | 'sse'>;
}

// ---------------------------------------------------------------------------------------------
// Bodies, files, descriptors
// ---------------------------------------------------------------------------------------------

export interface FileReference {
  ref: string;
  field: string;
  filename: string;
  mimeType: string;
  size: number;
}

export type DecodedBody =
  | { kind: 'json'; value: JsonValue }
  | { kind: 'form'; fields: Record<string, string[]> }
  | { kind: 'multipart'; fields: Record<string, string[]>; files: FileReference[] }
  | { kind: 'none' };

/** A JSON-body placeholder the host replaces with file content. */
export type FilePlaceholder =
  | { __fileRef: string; encoding: 'base64'; maxBytes?: number }
  | { __fileRef: string; encoding: 'dataUrl'; mimeType?: string; maxBytes?: number };

export interface MultipartPart {
  name: string;
  value?: string;
  fileRef?: string;
  filename?: string;
}

export interface RequestDescriptor {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** null/absent: no body; a string is sent verbatim; anything else is JSON-encoded. */
  body?: JsonValue;
  bodyType?: 'json' | 'multipart';
  parts?: MultipartPart[];
  /** Submit only; must be declared in `meta.submitResponseTypes`. */
  responseType?: 'json' | 'sse';
  /** Content requests only: a public CDN read (GET/HEAD, no headers or body). */
  credentialless?: boolean;
  action?: string;
  model?: string;
  rewriteModel?: string;
}

export interface UpstreamInfo {
  kind: UpstreamKind | 'new_api';
}

export interface AuthData {
  authHeader?: string;
  projectId?: string;
}

// ---------------------------------------------------------------------------------------------
// Contexts
// ---------------------------------------------------------------------------------------------

export interface NativeDecodeContext {
  path: string;
  method: string;
  params: Record<string, string>;
  query: Record<string, string[]>;
  body: DecodedBody;
}

export interface ProtocolDecodeContext extends NativeDecodeContext {
  protocol: ProtocolNameSpelling;
  operation: 'create' | 'retrieve' | 'content' | 'generate' | 'edit';
  model: string;
  upstreamModel?: string;
  stream?: boolean;
}

export interface ArtifactLink {
  key: string;
  type: ArtifactType;
  mimeType?: string;
  url: string;
}
export interface RenderContext extends ProtocolDecodeContext {
  artifacts?: Record<string, ArtifactLink>;
}

/** An earlier task this one continues (native `originTaskIds`): driver contexts only, never renderers. */
export interface OriginTask {
  /** The upstream task id. */
  taskId: string;
  /** The public id the caller named. */
  publicTaskId: string;
  action: string;
  status: TaskStatus;
  /** The stored task data; null when the result was not retained. */
  data: JsonValue | null;
}

export interface DriverContext extends NativeDecodeContext {
  requestBody: JsonValue;
  requestHeaders: Record<string, string>;
  files: FileReference[];
  action: string;
  originTaskId?: string;
  originTasks?: OriginTask[];
  publicTaskId: string;
  model: string;
  upstreamModel: string;
  baseUrl: string;
  userSetting?: JsonValue;
  upstream: UpstreamInfo;
  auth: AuthData;
  authHeader?: string;
  apiKey?: string;
  authError?: string;
  /** extractUsage only. */
  usagePurpose?: 'facts' | 'billing_ratios';
}

export interface TaskQueryContext {
  taskId: string;
  publicTaskId: string;
  action: string;
  model: string;
  upstreamModel: string;
  baseUrl: string;
  data: JsonValue;
  state: JsonValue;
  upstream: UpstreamInfo;
  auth: AuthData;
  authHeader?: string;
  apiKey?: string;
}

export interface BatchQueryContext {
  baseUrl: string;
  tasks: TaskQueryContext[];
  upstream: UpstreamInfo;
  auth: AuthData;
  authHeader?: string;
  apiKey?: string;
}

export interface HookHTTPResponse {
  status: number;
  headers: Record<string, string>;
}
export interface SubmitHTTPResponse {
  statusCode: number;
  headers: Record<string, string[]>;
  body: JsonValue;
}

export interface TaskView {
  task_id: string;
  platform: string;
  status: TaskStatus;
  progress: string;
  fail_reason: string;
  created_at: number;
  updated_at: number;
  finished_at: number;
  data: JsonValue;
}

export type ArtifactType = 'video' | 'audio' | 'image' | 'file';
export interface ArtifactDescriptor {
  key: string;
  type: ArtifactType;
  mimeType?: string;
}
export interface ArtifactTask {
  taskId: string;
  status: TaskStatus;
  action: string;
  data: JsonValue;
  state: JsonValue;
  producerVersion: string;
}
export interface ContentRequestContext extends ArtifactTask {
  upstreamTaskId: string;
  artifactKey: string;
  baseUrl: string;
  clientRequest: { method: string; headers: Record<string, string> };
  upstream: UpstreamInfo;
  auth: AuthData;
  authHeader?: string;
  apiKey?: string;
}

// ---------------------------------------------------------------------------------------------
// Hook results
// ---------------------------------------------------------------------------------------------

export interface ImmediateResult {
  status: TaskStatus;
  progress?: string;
  reason?: string;
  url?: string;
  remoteUrl?: string;
}

export interface SubmitResult {
  taskId: string;
  taskData?: JsonValue;
  immediate?: ImmediateResult;
  state?: JsonValue;
}

export interface NormalizedTaskResult {
  taskId?: string;
  status: TaskStatus;
  progress?: string;
  reason?: string;
  url?: string;
  remoteUrl?: string;
  completionTokens?: number;
  totalTokens?: number;
  code?: string;
  state?: JsonValue;
}

export interface BatchItemResult extends NormalizedTaskResult {
  taskId: string;
  action?: string;
  submitTime?: number;
  startTime?: number;
  finishTime?: number;
  data?: JsonValue;
}

export type UsageFacts = Record<string, string | number | boolean> | null;

export type TaskIntent =
  | { kind: 'submit'; model: string; action?: string; requestBody?: JsonValue; originTaskIds?: string[] }
  | { kind: 'query'; taskIds: string[] };

export interface SubmitEvent {
  event: string;
  id: string;
  data: string;
}
export interface SnapshotEventResult {
  state: JsonValue;
  done: boolean;
}
export interface DeltaChange {
  op: 'set' | 'append' | 'appendText';
  path: Array<string | number>;
  value: JsonValue;
}
export interface DeltaEventResult {
  changes: DeltaChange[];
  state: JsonValue;
  done: boolean;
}

export type RenderEvent =
  | { type: 'progress'; progress?: number; message?: string }
  | { type: 'output'; data: JsonValue }
  | { type: 'error'; message: string; code?: string };
export interface RenderEventsResult {
  events: RenderEvent[];
  state?: JsonValue;
  done: boolean;
}

export interface NativeErrorInfo {
  code: string;
  message: string;
  httpStatus: number;
  retryable: boolean;
  requestId: string;
}

// ---------------------------------------------------------------------------------------------
// Exports
// ---------------------------------------------------------------------------------------------

export interface DriverHooks {
  buildSubmitRequest(ctx: DriverContext): RequestDescriptor;
  parseSubmitResponse(ctx: DriverContext, resp: SubmitHTTPResponse): SubmitResult;
  parseTaskResult(ctx: TaskQueryContext, body: JsonValue, resp: HookHTTPResponse): NormalizedTaskResult;
  /** Required for fetchMode `per_task`. */
  buildQueryRequest?(ctx: TaskQueryContext): RequestDescriptor;
  /** Required for fetchMode `batch`. Older market plugins take `taskIds: string[]` as the second argument. */
  buildBatchQueryRequest?(ctx: BatchQueryContext, tasks: TaskQueryContext[]): RequestDescriptor;
  parseBatchResult?(ctx: BatchQueryContext, body: JsonValue, resp: HookHTTPResponse): BatchItemResult[];
  extractUsage?(ctx: DriverContext): UsageFacts;
  extractUsageOnSubmit?(ctx: DriverContext, taskData: JsonValue): UsageFacts;
  extractUsageOnComplete?(task: TaskQueryContext, result: JsonObject, data: JsonValue): UsageFacts;
  /** Exported together with buildContentRequest, or neither. */
  listArtifacts?(task: ArtifactTask): ArtifactDescriptor[];
  buildContentRequest?(ctx: ContentRequestContext): RequestDescriptor;
  /** Required when submitResponseTypes includes `sse` (snapshot mode). */
  parseSubmitEvent?(ctx: DriverContext, event: SubmitEvent, previous: JsonValue): SnapshotEventResult;
  /** Required instead of parseSubmitEvent with `submit-sse-delta@1`. */
  parseSubmitEventDelta?(ctx: DriverContext, event: SubmitEvent, previous: JsonValue): DeltaEventResult;
}

export type NativeDecoder = (ctx: NativeDecodeContext) => TaskIntent;
export type NativePresenter = (ctx: NativeDecodeContext, task: TaskView | TaskView[]) => JsonValue;
export type NativeExport = Record<string, NativeDecoder | NativePresenter> & {
  error?: (ctx: NativeDecodeContext, err: NativeErrorInfo) => JsonValue;
};

export interface ImageProtocolHooks {
  decodeRequest(ctx: ProtocolDecodeContext): TaskIntent;
  render(ctx: RenderContext, task: TaskView): { data: JsonValue[] } & JsonObject;
}
export interface VideoProtocolHooks {
  decodeRequest(ctx: ProtocolDecodeContext): TaskIntent;
  render(ctx: RenderContext, task: TaskView): JsonObject;
}
export interface ResponsesProtocolHooks {
  decodeRequest(ctx: ProtocolDecodeContext): TaskIntent;
  /** Required iff `supports` contains `stream`. */
  renderEvents?(ctx: RenderContext, task: TaskView, previousState?: JsonValue): RenderEventsResult;
  /** Required iff `supports` contains `sync` or `background`. */
  renderFinal?(ctx: RenderContext, task: TaskView): JsonObject;
}
export interface ProtocolsExport {
  compat_image?: ImageProtocolHooks;
  compat_video?: VideoProtocolHooks;
  compat_responses?: ResponsesProtocolHooks;
  openai_image?: ImageProtocolHooks;
  openai_video?: VideoProtocolHooks;
  openai_responses?: ResponsesProtocolHooks;
}

/** The whole module, as the host sees it. */
export interface PluginModule extends DriverHooks {
  meta: Manifest;
  native?: NativeExport;
  protocols?: ProtocolsExport;
}

// ---------------------------------------------------------------------------------------------
// Globals injected into the sandbox
// ---------------------------------------------------------------------------------------------

export interface VolcSignRequest {
  method?: string;
  url?: string;
  headers?: Record<string, string>;
  body?: string;
  accessKey?: string;
  secretKey?: string;
  region?: string;
  service?: string;
  timestamp?: number;
  Method?: string;
  URL?: string;
  Headers?: Record<string, string>;
  Body?: string;
  AccessKey?: string;
  SecretKey?: string;
  Region?: string;
  Service?: string;
  Timestamp?: number;
}

export interface PluginUtils {
  hasCapability(name: string): boolean;
  json: { clone<T extends JsonValue>(value: T): T };
  /** Unix seconds. */
  unixNow(): number;
  /** Random v4 UUID. */
  uuid(): string;
  /** Lowercase hex HMAC-SHA256 over UTF-8 bytes. */
  hmacSHA256(message: string, secret: string): string;
  /** Compact HS256 JWT, header {"alg":"HS256","typ":"JWT"}. */
  jwtSignHS256(claims: JsonObject | null, secret: string): string;
  base64(s: string): string;
  /** Base64url without padding. */
  base64URL(s: string): string;
  /** Strict unpadded base64url decode; throws on invalid input. */
  base64URLDecode(s: string): string;
  volcSignV4(req: VolcSignRequest): { Authorization: string; 'X-Date': string; 'X-Content-Sha256': string };
}

// ---------------------------------------------------------------------------------------------
// Test fixtures (`gatehouse plugin test FILE --fixture F`)
// ---------------------------------------------------------------------------------------------

export interface FixtureCase {
  name?: string;
  /** Hook name; dotted for members (`native.decodeSubmit`, `protocols.compat_image.render`). */
  hook: string;
  member?: string;
  args: JsonValue[];
  /** Deep-equal expected result, or a subset match when `match: "subset"`. */
  expected?: JsonValue;
  match?: 'exact' | 'subset';
  /** A substring of the expected error message. */
  expectedError?: string;
}
export type Fixture = FixtureCase[] | { cases: FixtureCase[] };

// Guardrail plugins (docs/guardrails.md): the second kind of plugin.
export type * from './guardrail.ts';
// MCP tool plugins (docs/mcp.md#tool-plugins): the third kind of plugin.
export type * from './mcp-tool.ts';
