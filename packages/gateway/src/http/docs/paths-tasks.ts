/**
 * The operations of tasks and the model calls.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import { type Schema, arr, int, limited, obj, op, q, ref, str } from './kit.ts';

export function mainPathsB(admin: string, root: string): Record<string, Record<string, Schema>> {
  void root;
  return {
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
  };
}
