// A plugin whose vendor answers the submit with an SSE stream, accumulated with submit-sse-delta@1.
export const meta = {
  apiVersion: 1,
  key: 'streamcut',
  name: 'StreamCut',
  version: '0.3.0-beta.1',
  author: { name: 'Gatehouse examples' },
  models: ['cut-1'],
  fetchMode: 'per_task',
  submitResponseTypes: ['json', 'sse'],
  requiredCapabilities: ['submit-sse-delta@1'],
  auth: { type: 'api_key' },
};

export function buildSubmitRequest(ctx) {
  return { url: ctx.baseUrl + '/v1/cut', method: 'POST', responseType: 'sse', headers: { Accept: 'text/event-stream', Authorization: 'Bearer ' + ctx.apiKey }, body: ctx.requestBody };
}
export function parseSubmitEventDelta(ctx, event, previous) {
  const data = JSON.parse(event.data);
  const count = ((previous && previous.count) || 0) + 1;
  if (event.event === 'created') return { changes: [{ op: 'set', path: [], value: { id: data.id, log: '' } }], state: { count }, done: false };
  if (event.event === 'log') return { changes: [{ op: 'appendText', path: ['log'], value: data.line + '\n' }], state: { count }, done: false };
  return { changes: [], state: { count }, done: event.event === 'accepted' };
}
export function parseSubmitResponse(ctx, resp) { return { taskId: resp.body.id, taskData: resp.body }; }
export function buildQueryRequest(ctx) { return { url: ctx.baseUrl + '/v1/cut/' + ctx.taskId }; }
export function parseTaskResult(ctx, body) { return { status: body.done ? 'SUCCESS' : 'IN_PROGRESS', url: body.url }; }
