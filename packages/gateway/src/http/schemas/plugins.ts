/**
 * The schemas of the plugin administration (http/plugin-admin-routes.ts): task, guardrail and MCP
 * tool plugins with their runtime state (plugins/admin/service.ts), an upload, a plugin's versions
 * and detail, the runtime status (plugins/runtime/host.ts), market sources and indexes
 * (plugins/market/), and the answers of status changes, activations and dry runs.
 */
import { Type, type TSchema } from 'typebox';
import { ref } from './common.ts';

const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
const Anything = (description?: string) => Type.Object({}, { additionalProperties: true, ...(description ? { description } : {}) });

/** The plugin's `meta` as uploaded (its keys are the plugin SDK's manifest's). */
export const PluginManifest = Type.Object(
  {},
  {
    $id: 'PluginManifest',
    additionalProperties: true,
    description: "the plugin's `meta` as uploaded (see the plugin SDK's manifest JSON Schema)",
  },
);
const Manifest = ref(PluginManifest);
const RUNTIME_STATUS = {
  description: 'registered, disabled, compile_failed or not_registered',
  enum: ['registered', 'disabled', 'compile_failed', 'not_registered'],
};

export const PluginSummary = Type.Object(
  {
    key: Type.String(),
    meta: Nullable(Manifest),
    source: Type.String(),
    layer: Type.String(),
    enabled: Type.Boolean(),
    active: Type.Boolean(),
    active_version: Nullable(Type.String()),
    serving_version: Nullable(Type.String({ description: 'the version this node runs' })),
    source_hash: Nullable(Type.String({ description: 'sha256 of the active source' })),
    has_icon: Type.Boolean(),
    remark: Type.String(),
    runtime_status: Type.String(RUNTIME_STATUS),
    runtime_error: Type.Optional(Type.String()),
    channel_count: Type.Integer(),
    in_flight_count: Type.Integer(),
  },
  { $id: 'PluginSummary' },
);

/** A guardrail or MCP tool plugin with its serving state. */
export const ServingPlugin = Type.Object(
  {
    key: Type.String(),
    meta: Manifest,
    enabled: Type.Boolean(),
    active_version: Nullable(Type.String()),
    serving_version: Nullable(Type.String()),
    source_hash: Type.String(),
    remark: Type.String(),
    runtime_status: Type.String(RUNTIME_STATUS),
    runtime_error: Type.Optional(Type.String()),
  },
  { $id: 'ServingPlugin' },
);

export const PluginUpload = Type.Object(
  {
    source: Type.String({ description: 'the plugin module (ESM text, at most 1 MiB)' }),
    enabled: Type.Optional(Type.Boolean({ description: 'default true' })),
    remark: Type.Optional(Type.String()),
    force: Type.Optional(Type.Boolean({ description: 'store even when it conflicts with running plugins' })),
    sourceSha256: Type.Optional(Nullable(Type.String({ description: 'optional integrity check, 64 hex' }))),
    icon: Type.Optional(Type.String({ description: 'data: URL of a PNG/SVG/WebP icon' })),
  },
  { $id: 'PluginUpload' },
);

export const PluginUploaded = Type.Object(
  {
    plugin: Type.String(),
    version: Type.String(),
    meta: Manifest,
    source: Type.String(),
    layer: Type.String(),
    has_icon: Type.Boolean(),
    sha256: Type.String(),
    enabled: Type.Boolean(),
  },
  { $id: 'PluginUploaded' },
);

export const PluginDetail = Type.Object(
  {
    key: Type.String(),
    layer: Type.String(),
    source: Type.String(),
    enabled: Type.Boolean(),
    active_version: Nullable(Type.String()),
    remark: Type.String(),
    version: Nullable(Type.String()),
    meta: Nullable(Manifest),
    normalized_meta: Nullable(Anything('the manifest as the runtime normalised it (when this version is serving)')),
    plugin_source: Nullable(Type.String()),
    source_hash: Nullable(Type.String()),
    has_icon: Type.Boolean(),
    uploaded_at: Nullable(Type.Integer({ description: 'unix s' })),
    runtime_error: Nullable(Type.String()),
  },
  { $id: 'PluginDetail' },
);

export const PluginVersion = Type.Object(
  {
    version: Type.String(),
    sha256: Type.String(),
    source_hash: Type.String(),
    uploaded_at: Type.Integer({ description: 'unix s' }),
    has_icon: Type.Boolean(),
    active: Type.Boolean(),
    meta: Manifest,
  },
  { $id: 'PluginVersion' },
);

export const PluginStatusChange = Type.Object(
  { plugin_enabled: Type.Boolean(), disabled_channels: Type.Array(Type.Integer()), unbound_channels: Type.Array(Type.Integer()) },
  { $id: 'PluginStatusChange' },
);

export const PluginRuntimeStatus = Type.Object(
  {
    current_generation: Type.Integer(),
    generation_published_at: Nullable(Type.Integer({ description: 'unix s' })),
    database_revision: Nullable(Type.Integer()),
    database_error: Type.Optional(Type.String()),
    last_rebuild: Type.Object({
      status: Type.String({ enum: ['never', 'success', 'partial', 'failed'] }),
      attempted_at: Nullable(Type.Integer({ description: 'unix s' })),
      generation: Type.Integer(),
      database_revision: Type.Integer(),
      plugin_error_count: Type.Integer(),
      error: Type.Optional(Type.String()),
    }),
    plugin_errors: Type.Record(Type.String(), Type.String()),
    plugins: Type.Record(Type.String(), Type.Object({ version: Type.String(), sha256: Type.String(), pool: Anything() })),
  },
  { $id: 'PluginRuntimeStatus' },
);

export const MarketSource = Type.Object(
  { name: Type.String(), index_url: Type.String({ description: 'http(s) URL of an index.json' }) },
  { $id: 'MarketSource' },
);

/** A market index as its source serves it (fields beyond these are passed on). */
export const MarketIndex = Type.Object(
  {
    indexVersion: Type.Literal(1),
    name: Type.Optional(Type.String()),
    plugins: Type.Array(
      Type.Object(
        {
          key: Type.String(),
          name: Type.Optional(Type.String()),
          latest: Type.Optional(Type.String()),
          versions: Type.Array(
            Type.Object(
              {
                version: Type.String(),
                path: Type.String(),
                sha256: Type.String(),
                kind: Type.Optional(Type.String()),
                minApiVersion: Type.Optional(Type.Integer()),
              },
              { additionalProperties: true },
            ),
          ),
          iconFile: Type.Optional(Type.Object({ path: Type.String(), sha256: Type.String() }, { additionalProperties: true })),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { $id: 'MarketIndex', additionalProperties: true },
);

const BoundChannel = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.Integer(),
  status: Type.Integer({ description: '1 enabled, 2 disabled, 3 auto-disabled' }),
  via: Type.String({ enum: ['key', 'peer', 'channel_type'] }),
});

/** 409 of a status change or version deletion: what still uses the plugin. */
export const PluginInUse = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String(),
    data: Type.Object({ channels: Type.Array(BoundChannel), in_flight_count: Type.Integer() }),
  },
  { $id: 'PluginInUse' },
);

export const PLUGIN_SCHEMAS = [
  PluginManifest,
  PluginSummary,
  ServingPlugin,
  PluginUpload,
  PluginUploaded,
  PluginDetail,
  PluginVersion,
  PluginStatusChange,
  PluginRuntimeStatus,
  MarketSource,
  MarketIndex,
  PluginInUse,
];

export const KeyParams = Type.Object({ key: Type.String({ description: 'plugin key' }) });
export const KeyVersionParams = Type.Object({ key: Type.String({ description: 'plugin key' }), version: Type.String() });
const flag = (description: string) => Type.Optional(Type.String({ description: `${description} (true or 1)` }));
export const ForceQuery = Type.Object({ force: flag('also when in use') });
export const StatusQuery = Type.Object({
  cascade: flag('disable or unbind the channels bound to it'),
  force: flag('also with tasks in flight'),
});
export const VersionQuery = Type.Object({ version: Type.Optional(Type.String()) });
export const IndexQuery = Type.Object({
  source: Type.Optional(Type.String({ description: 'a source name' })),
  index_url: Type.Optional(Type.String({ description: 'or an index URL' })),
});

/** Bodies: the plugin service checks them (unknown fields are ignored, as before). */
export const EnabledBody = Type.Object({ enabled: Type.Boolean() });
export const ActivateBody = Type.Object({ version: Type.String(), force: Type.Optional(Type.Boolean()) });
export const DryRunBody = Type.Object({
  hook: Type.String({ description: 'e.g. task.submit' }),
  member: Type.Optional(Type.String()),
  args: Type.Optional(Type.Array(Type.Unknown())),
});
export const InstallBody = Type.Object({
  key: Type.String(),
  version: Type.Optional(Type.String({ description: 'default: latest' })),
  source: Type.Optional(Type.String()),
  index_url: Type.Optional(Type.String()),
  enabled: Type.Optional(Type.Boolean()),
  force: Type.Optional(Type.Boolean()),
});
export const SourcesBody = Type.Union([Type.Array(ref(MarketSource)), Type.Object({ sources: Type.Array(ref(MarketSource)) })], {
  description: 'the sources, or {sources}',
});
export const GuardrailTestBody = Type.Object({
  stage: Type.Optional(Type.String({ description: 'input or output', enum: ['input', 'output'] })),
  text: Type.Optional(Type.String()),
  texts: Type.Optional(Type.Array(Type.String())),
  model: Type.Optional(Type.String()),
});

export const Activated = Type.Object({ plugin: Type.String(), active_version: Type.String(), generation: Type.Integer() });
export const VersionDeleted = Type.Object({
  plugin: Type.String(),
  deleted_version: Type.String(),
  disabled_channels: Type.Array(Type.Integer()),
  unbound_channels: Type.Array(Type.Integer()),
});
export const DryRun = Type.Object({ plugin: Type.String(), version: Type.String(), hook: Type.String(), output: Type.Unknown() });
export const GuardrailTest = Type.Object({
  verdict: Nullable(Anything('{action, reason?, spans?, tags?}')),
  texts: Type.Array(Type.String()),
  error: Type.Optional(Type.String({ description: 'the failure of the plugin, when it failed' })),
  kind: Type.Optional(Type.String({ description: 'thrown, timeout, memory, invalid_result' })),
});
export const MarketIndexAnswer = Type.Object({ index_url: Type.String(), index: ref(MarketIndex) });
export const GuardrailStats = Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()), {
  description: 'verdicts by plugin and action',
});
