// An SSE-submit plugin for the loopback test vendor. Model `ls-snapshot` uses snapshot events
// (parseSubmitEvent); the delta variant is loopback-sse-delta.js.
export const meta = {
  apiVersion: 1,
  key: 'loopback-sse',
  name: 'Loopback SSE',
  version: '1.0.0',
  author: { name: 'Gatehouse' },
  models: ['ls-1'],
  fetchMode: 'per_task',
  auth: 'api_key',
  submitResponseTypes: ['json', 'sse'],
};

export function buildSubmitRequest(ctx) {
  const b = ctx.requestBody || {};
  return {
    url: ctx.baseUrl + '/v1/sse/submit',
    headers: { Authorization: 'Bearer ' + ctx.apiKey, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: { model: ctx.upstreamModel, prompt: b.prompt || '', mode: b.mode || 'normal', final: b.final || 'succeeded' },
    responseType: 'sse',
  };
}

export function parseSubmitEvent(ctx, event, prev) {
  const d = JSON.parse(event.data);
  const s = prev ? { id: prev.id, text: prev.text, status: prev.status } : { id: '', text: '', status: 'queued' };
  if (event.event === 'created') s.id = d.id;
  if (event.event === 'delta') s.text = s.text + d.text;
  if (event.event === 'done') { s.status = d.status; return { state: s, done: true }; }
  return { state: s, done: false };
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
