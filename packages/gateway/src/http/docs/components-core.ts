/**
 * The shared schemas of the API's bodies (components.schemas of the document), part one: accounts, keys, tasks, channels, prices, usage.
 * Routes take these through http/route-docs.ts; @fastify/swagger builds the document from the routes.
 */
import { type Schema, arr, int, nullable, obj, ref, str } from './kit.ts';

export const schemas: Record<string, Schema> = {
  OpenAIError: obj({ error: obj({ message: str(), type: str(), param: nullable(str()), code: nullable(str()) }) }),
  TaskCallback: obj(
    {
      url: str(),
      delivery_id: str('dlv_…: the same on every attempt (X-Delivery-Id)'),
      status: str(
        'waiting: the task is not finished; pending: due or retrying; delivered; failed: given up; skipped: the result was not kept',
        { enum: ['waiting', 'pending', 'delivered', 'failed', 'skipped'] },
      ),
      attempts: int(),
      last_status: nullable(int('HTTP status of the last answer')),
      last_error: nullable(str()),
      last_attempt_at: nullable(int()),
      next_attempt_at: nullable(int()),
      delivered_at: nullable(int()),
      history: arr(
        obj({ at: int(), status: nullable(int()), error: nullable(str()), duration_ms: int() }, ['at', 'status', 'error', 'duration_ms']),
        'the latest attempts (up to 20)',
      ),
    },
    [],
    { description: "a task's completion callback; times are unix seconds in GET /v1/tasks/{taskId} and unix ms in /api/task" },
  ),
  TaskView: obj(
    {
      task_id: str(),
      platform: str('plugin key'),
      status: str(undefined, { enum: ['NOT_START', 'SUBMITTED', 'QUEUED', 'IN_PROGRESS', 'SUCCESS', 'FAILURE', 'UNKNOWN'] }),
      progress: str(),
      fail_reason: str(),
      model: str(),
      created_at: int('unix s'),
      started_at: nullable(int()),
      finished_at: nullable(int()),
      updated_at: int(),
      callback: ref('TaskCallback'),
    },
    ['task_id', 'platform', 'status', 'progress', 'fail_reason', 'model', 'created_at', 'started_at', 'finished_at', 'updated_at'],
  ),
};
