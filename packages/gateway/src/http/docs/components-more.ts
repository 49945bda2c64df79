/**
 * The shared schemas of the API's bodies, part two: the model-call bodies of the described model-call routes.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import { schemas } from './components-core.ts';
import { arr, bool, int, num, obj, ref, str } from './kit.ts';

Object.assign(schemas, {
  ChatCompletionRequest: obj(
    {
      model: str(),
      messages: arr(obj({ role: str(), content: { anyOf: [str(), arr({ type: 'object' })] } }, ['role'])),
      stream: bool(),
      temperature: num(),
      max_tokens: int(),
      tools: arr({ type: 'object' }),
      stream_options: obj({ include_usage: bool() }),
    },
    ['model', 'messages'],
  ),
  CompletionRequest: obj({ model: str(), prompt: { anyOf: [str(), arr(str())] }, max_tokens: int(), stream: bool() }, ['model', 'prompt']),
  EmbeddingRequest: obj(
    { model: str(), input: { anyOf: [str(), arr(str()), arr(int()), arr(arr(int()))] }, dimensions: int(), encoding_format: str() },
    ['input'],
  ),
  Usage: obj({ prompt_tokens: int(), completion_tokens: int(), total_tokens: int() }),
  ChatCompletion: obj({
    id: str(),
    object: { const: 'chat.completion' },
    created: int(),
    model: str(),
    choices: arr({ type: 'object' }),
    usage: ref('Usage'),
  }),
  Completion: obj({
    id: str(),
    object: { const: 'text_completion' },
    created: int(),
    model: str(),
    choices: arr({ type: 'object' }),
    usage: ref('Usage'),
  }),
  EmbeddingList: obj({
    object: { const: 'list' },
    data: arr(obj({ object: str(), index: int(), embedding: { anyOf: [arr(num()), str()] } })),
    model: str(),
    usage: ref('Usage'),
  }),
  Model: obj({ id: str(), object: { const: 'model' }, created: int(), owned_by: str() }),
  ModelList: obj({ object: { const: 'list' }, data: arr(ref('Model')) }),
});
