/**
 * The operations of tasks, plugins, alerts, redemption, the model calls and health.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import {
  type Schema,
  adminErrors,
  arr,
  bool,
  conflict,
  envelope,
  flagParam,
  int,
  keyParam,
  limited,
  nullable,
  obj,
  op,
  q,
  ref,
  str,
} from './kit.ts';

export function mainPathsB(admin: string, root: string): Record<string, Record<string, Schema>> {
  void root;
  return {
    '/api/plugin/task': {
      get: op('plugins', 'Installed task plugins with their runtime state', envelope(arr(ref('PluginSummary'))), { role: root }),
      post: op(
        'plugins',
        'Upload a plugin version (validated; a 400 names the field in `field` and at the start of the message); PUT does the same',
        envelope(ref('PluginUploaded')),
        { role: root, body: ref('PluginUpload') },
      ),
      put: op('plugins', 'Upload a plugin version (same as POST)', envelope(ref('PluginUploaded')), {
        role: root,
        body: ref('PluginUpload'),
      }),
    },
    '/api/plugin/task/runtime/status': {
      get: op('plugins', 'The plugin runtime of this node: generation, last rebuild, errors, pools', envelope(ref('PluginRuntimeStatus')), {
        role: root,
      }),
    },
    '/api/plugin/task/marketplace/sources': {
      get: op('plugins', 'Market sources', envelope(arr(ref('MarketSource'))), { role: root }),
      put: op('plugins', 'Replace the market sources', envelope(arr(ref('MarketSource'))), { role: root, body: arr(ref('MarketSource')) }),
    },
    '/api/plugin/task/marketplace/index': {
      get: op(
        'plugins',
        'Fetch a market index (by source name or URL)',
        envelope(obj({ index_url: str(), index: ref('MarketIndex') }, ['index_url', 'index'])),
        { role: root, params: [q('source', str('a source name')), q('index_url', str('or an index URL'))] },
      ),
    },
    '/api/plugin/task/marketplace/install': {
      post: op('plugins', 'Install a plugin version from a market index (checked against its sha256)', envelope(ref('PluginUploaded')), {
        role: root,
        body: obj({ key: str(), version: str('default: latest'), source: str(), index_url: str(), enabled: bool(), force: bool() }, [
          'key',
        ]),
      }),
    },
    '/api/plugin/task/{key}': {
      get: op('plugins', 'One plugin: a version (default the active one) with its source and manifests', envelope(ref('PluginDetail')), {
        role: root,
        params: [keyParam, q('version', str())],
      }),
    },
    '/api/plugin/task/{key}/icon': {
      get: {
        tags: ['plugins'],
        summary: "The plugin's icon (root)",
        parameters: [keyParam, q('version', str())],
        security: [{ session: [] }, { accessToken: [] }],
        responses: {
          200: { description: 'the icon bytes', content: { 'image/*': { schema: str(undefined, { format: 'binary' }) } } },
          ...adminErrors,
        },
      },
    },
    '/api/plugin/task/{key}/versions': {
      get: op('plugins', 'Stored versions, newest first', envelope(arr(ref('PluginVersion'))), { role: root, params: [keyParam] }),
    },
    '/api/plugin/task/{key}/versions/{version}': {
      delete: op(
        'plugins',
        'Delete a stored version (the active one of an enabled plugin in use needs ?force=true)',
        envelope(
          obj({ plugin: str(), deleted_version: str(), disabled_channels: arr(int()), unbound_channels: arr(int()) }, [
            'plugin',
            'deleted_version',
            'disabled_channels',
            'unbound_channels',
          ]),
        ),
        {
          role: root,
          params: [keyParam, { name: 'version', in: 'path', required: true, schema: str() }, flagParam('force', 'also when in use')],
          extra: conflict(ref('PluginInUse'), 'in use: bound channels and tasks in flight'),
        },
      ),
    },
    '/api/plugin/task/{key}/activate': {
      post: op(
        'plugins',
        'Make a stored version the active one',
        envelope(obj({ plugin: str(), active_version: str(), generation: int() }, ['plugin', 'active_version', 'generation'])),
        {
          role: root,
          params: [keyParam, flagParam('force', 'activate even when it conflicts')],
          body: obj({ version: str(), force: bool() }, ['version']),
          extra: conflict(ref('AdminError'), 'conflicts with the running plugins'),
        },
      ),
    },
    '/api/plugin/guardrail': {
      get: op(
        'plugins',
        'Installed guardrail plugins with their runtime state (docs/guardrails.md)',
        envelope(
          arr(
            obj(
              {
                key: str(),
                meta: { type: 'object', additionalProperties: true },
                enabled: bool(),
                active_version: nullable(str()),
                serving_version: nullable(str()),
                source_hash: str(),
                remark: str(),
                runtime_status: str('registered, disabled, compile_failed or not_registered'),
                runtime_error: str(),
              },
              ['key', 'meta', 'enabled', 'active_version', 'serving_version', 'runtime_status'],
            ),
          ),
        ),
        { role: root },
      ),
      post: op(
        'plugins',
        'Install a guardrail plugin version (validated like task plugins); PUT does the same',
        envelope(ref('PluginUploaded')),
        {
          role: root,
          body: ref('PluginUpload'),
        },
      ),
      put: op('plugins', 'Install a guardrail plugin version (same as POST)', envelope(ref('PluginUploaded')), {
        role: root,
        body: ref('PluginUpload'),
      }),
    },
    '/api/plugin/guardrail/stats': {
      get: op(
        'plugins',
        "This node's guardrail verdicts since it started, by plugin and action",
        envelope({ type: 'object', additionalProperties: { type: 'object', additionalProperties: int() } }),
        { role: root },
      ),
    },
    '/api/plugin/guardrail/{key}/test': {
      post: op(
        'plugins',
        "Run an enabled guardrail's check on a sample text: the verdict and the texts as a mask leaves them",
        envelope(
          obj(
            {
              verdict: nullable({ type: 'object', additionalProperties: true, description: '{action, reason?, spans?, tags?}' }),
              texts: arr(str()),
              error: str('the failure of the plugin, when it failed'),
              kind: str('thrown, timeout, memory, invalid_result'),
            },
            ['verdict', 'texts'],
          ),
        ),
        {
          role: root,
          params: [keyParam],
          body: obj({ stage: str('input or output', { enum: ['input', 'output'] }), text: str(), texts: arr(str()), model: str() }),
        },
      ),
    },
    '/api/plugin/guardrail/{key}/status': {
      post: op('plugins', 'Enable or disable a guardrail plugin', envelope(ref('PluginStatusChange')), {
        role: root,
        params: [keyParam],
        body: obj({ enabled: bool() }, ['enabled']),
      }),
    },
    '/api/plugin/mcp_tool': {
      get: op(
        'plugins',
        'Installed MCP tool plugins with their runtime state (docs/mcp.md#tool-plugins); meta.tools names their tools',
        envelope(
          arr(
            obj(
              {
                key: str(),
                meta: { type: 'object', additionalProperties: true },
                enabled: bool(),
                active_version: nullable(str()),
                serving_version: nullable(str()),
                source_hash: str(),
                remark: str(),
                runtime_status: str('registered, disabled, compile_failed or not_registered'),
                runtime_error: str(),
              },
              ['key', 'meta', 'enabled', 'active_version', 'serving_version', 'runtime_status'],
            ),
          ),
        ),
        { role: root },
      ),
      post: op(
        'plugins',
        'Install an MCP tool plugin version (validated like task plugins); PUT does the same',
        envelope(ref('PluginUploaded')),
        { role: root, body: ref('PluginUpload') },
      ),
      put: op('plugins', 'Install an MCP tool plugin version (same as POST)', envelope(ref('PluginUploaded')), {
        role: root,
        body: ref('PluginUpload'),
      }),
    },
    '/api/plugin/mcp_tool/{key}/status': {
      post: op('plugins', 'Enable or disable an MCP tool plugin', envelope(ref('PluginStatusChange')), {
        role: root,
        params: [keyParam],
        body: obj({ enabled: bool() }, ['enabled']),
      }),
    },
    '/api/plugin/task/{key}/status': {
      post: op(
        'plugins',
        'Enable or disable a plugin (disabling one in use needs ?cascade=true for bound channels and ?force=true for tasks in flight)',
        envelope(ref('PluginStatusChange')),
        {
          role: root,
          params: [
            keyParam,
            flagParam('cascade', 'disable or unbind the channels bound to it'),
            flagParam('force', 'also with tasks in flight'),
          ],
          body: obj({ enabled: bool() }, ['enabled']),
          extra: conflict(ref('PluginInUse'), 'in use: bound channels and tasks in flight'),
        },
      ),
    },
    '/api/plugin/task/{key}/dryrun': {
      post: op(
        'plugins',
        'Call a hook of the active version in a fresh isolate',
        envelope(obj({ plugin: str(), version: str(), hook: str(), output: {} }, ['plugin', 'version', 'hook', 'output'])),
        {
          role: root,
          params: [keyParam],
          body: obj({ hook: str('e.g. task.submit'), member: str(), args: arr({}) }, ['hook']),
        },
      ),
    },
    '/v1/chat/completions': {
      post: op('model calls', 'Chat completion (stream: true gives text/event-stream)', ref('ChatCompletion'), {
        security: 'key',
        body: ref('ChatCompletionRequest'),
        extra: limited,
      }),
    },
    '/v1/completions': {
      post: op('model calls', 'Text completion', ref('Completion'), { security: 'key', body: ref('CompletionRequest'), extra: limited }),
    },
    '/v1/embeddings': {
      post: op('model calls', 'Embeddings', ref('EmbeddingList'), { security: 'key', body: ref('EmbeddingRequest'), extra: limited }),
    },
    '/v1/models': { get: op('model calls', 'Models this key may use', ref('ModelList'), { security: 'key' }) },
    '/v1/tasks/{id}': {
      post: op(
        'tasks',
        "Submit a task to the plugin {id} (JSON or multipart); X-Callback-URL (or the key's callback_url) gets the task view POSTed when it ends",
        obj({ id: str(), task_id: str(), status: str(), model: str(), created_at: int() }),
        {
          security: 'key',
          body: obj({ model: str() }, ['model']),
          params: [
            { name: 'id', in: 'path', required: true, schema: str('POST: the plugin key; GET: the public task id task_…') },
            {
              name: 'X-Callback-URL',
              in: 'header',
              schema: str(
                'http(s) URL resolving to a public address (unless CONTENT_ALLOW_PRIVATE_ADDRESSES); the key needs a callback secret',
              ),
              description:
                'task completion callback; also accepted on /v1/videos, /v1/images/*, /v1/responses and plugin native submit routes',
            },
          ],
        },
      ),
      get: op('tasks', 'One of your tasks ({id} is the public task id), with its callback delivery when it has one', ref('TaskView'), {
        security: 'key',
        params: [{ name: 'id', in: 'path', required: true, schema: str() }],
      }),
    },
    '/v1/models/{model}': {
      get: op('model calls', 'One model (404 model_not_found when absent)', ref('Model'), {
        security: 'key',
        params: [{ name: 'model', in: 'path', required: true, schema: str() }],
      }),
    },
    '/pg/chat/completions': {
      post: op('model calls', 'Playground chat completion with the login session; billed to the user', ref('ChatCompletion'), {
        body: ref('ChatCompletionRequest'),
      }),
    },
    '/v1/messages': {
      post: op(
        'model calls',
        'Messages-style API (key in x-api-key or Bearer; requires model, max_tokens, messages)',
        { type: 'object' },
        {
          security: 'key',
          body: obj({ model: str(), max_tokens: int(), messages: arr({ type: 'object' }) }, ['model', 'max_tokens', 'messages']),
        },
      ),
    },
    '/v1/messages/count_tokens': {
      post: op('model calls', 'Prompt tokens counted locally ({input_tokens}); no charge', obj({ input_tokens: int() }), {
        security: 'key',
        body: obj({ model: str(), messages: arr({ type: 'object' }) }, ['model', 'messages']),
      }),
    },
    '/v1beta/models/{model}:{action}': {
      post: op(
        'model calls',
        'Gemini-native action: generateContent, streamGenerateContent (?alt=sse), countTokens, embedContent, batchEmbedContents (key in ?key= or x-goog-api-key); also under /v1/models',
        { type: 'object' },
        {
          security: 'key',
          params: [
            { name: 'model', in: 'path', required: true, schema: str() },
            { name: 'action', in: 'path', required: true, schema: str() },
          ],
          body: { type: 'object' },
        },
      ),
    },
    '/v1beta/models': {
      get: op(
        'model calls',
        'Gemini-style model list ({models, nextPageToken}; pageSize, pageToken)',
        { type: 'object' },
        { security: 'key', params: [q('pageSize', int()), q('pageToken', str())] },
      ),
    },
    '/v1beta/openai/models': { get: op('model calls', 'OpenAI-style model list', ref('ModelList'), { security: 'key' }) },
    '/healthz': {
      get: {
        tags: ['health'],
        summary: 'Liveness: the process answers (no I/O)',
        security: [],
        responses: { 200: { description: 'alive', content: { 'application/json': { schema: obj({ ok: { const: true } }, ['ok']) } } } },
      },
    },
    '/readyz': {
      get: {
        tags: ['health'],
        summary: 'Readiness: database reachable, Redis when configured, plugin runtime built, not shutting down',
        security: [],
        responses: {
          200: { description: 'ready', content: { 'application/json': { schema: ref('Readiness') } } },
          503: { description: 'not ready; checks and errors say why', content: { 'application/json': { schema: ref('Readiness') } } },
        },
      },
    },
  };
}
