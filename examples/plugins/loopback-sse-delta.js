// An SSE-submit plugin in delta mode (submit-sse-delta@1): each event returns changes the host applies
// to the result that becomes the submit body.
export const meta = {
  apiVersion: 1,
  key: 'loopback-sse-delta',
  name: 'Loopback SSE delta',
  version: '1.0.0',
  author: { name: 'Gatehouse' },
  models: ['lsd-1'],
  fetchMode: 'per_task',
  auth: 'api_key',
  submitResponseTypes: ['json', 'sse'],
  requiredCapabilities: ['submit-sse-delta@1'],
};

export function buildSubmitRequest(ctx) {
  const b = ctx.requestBody || {};
  return {
    url: ctx.baseUrl + '/v1/sse/submit',
    headers: { Authorization: 'Bearer ' + ctx.apiKey, 'Content-Type': 'application/json' },
    body: { model: ctx.upstreamModel, prompt: b.prompt || '', mode: b.mode || 'normal', final: b.final || 'succeeded' },
    responseType: 'sse',
  };
}

export function parseSubmitEventDelta(ctx, event, prev) {
  const d = JSON.parse(event.data);
  const n = (prev && prev.n) || 0;
  if (event.event === 'created') {
    return { changes: [{ op: 'set', path: [], value: { id: d.id, text: '', chunks: [], status: 'queued' } }], state: { n: n + 1 }, done: false };
  }
  if (event.event === 'delta') {
    return { changes: [{ op: 'appendText', path: ['text'], value: d.text }, { op: 'append', path: ['chunks'], value: d.text }], state: { n: n + 1 }, done: false };
  }
  if (event.event === 'done') {
    return { changes: [{ op: 'set', path: ['status'], value: d.status }], state: { n: n + 1 }, done: true };
  }
  return { changes: [], state: { n: n }, done: false };
}

export function parseSubmitResponse(ctx, resp) {
  const b = resp.body;
  if (b.status === 'succeeded') return { taskId: b.id, taskData: b, immediate: { status: 'SUCCESS' } };
  return { taskId: b.id, taskData: b };
}

export function buildQueryRequest(ctx) {
  return { url: ctx.baseUrl + '/v1/video/tasks/' + ctx.taskId, headers: { Authorization: 'Bearer ' + ctx.apiKey } };
}

export function parseTaskResult(ctx, body) {
  const m = { queued: 'QUEUED', running: 'IN_PROGRESS', succeeded: 'SUCCESS', failed: 'FAILURE' };
  return { status: m[body.status] || 'UNKNOWN' };
}
