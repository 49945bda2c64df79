// A batch-polling music plugin written in the older market style: bare "openai_responses" claim,
// "new_api" upstream, and buildBatchQueryRequest(ctx, taskIds) taking id strings.
export const meta = {
  apiVersion: 1,
  key: 'tunebatch',
  name: 'TuneBatch',
  version: '1.0.0',
  author: { name: 'Gatehouse examples' },
  models: ['tune-v3'],
  fetchMode: 'batch',
  upstreams: ['new_api'],
  protocols: ['openai_responses'],
  routes: [
    { method: 'POST', path: '/tunebatch/submit/:action', type: 'submit', decode: 'decodeSubmit', render: 'renderSubmit' },
    { method: 'POST', path: '/tunebatch/fetch', type: 'dynamic', decode: 'decodeFetch', render: 'renderTasks' },
  ],
  usageSchema: { songs: { type: 'number', unit: 'count', unitLabel: 'songs' } },
};

export function buildSubmitRequest(ctx) {
  return { url: ctx.baseUrl + '/api/generate', method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + ctx.apiKey }, body: ctx.requestBody };
}
export function parseSubmitResponse(ctx, resp) {
  return { taskId: resp.body.data.id, taskData: resp.body.data };
}
export function parseTaskResult(ctx, body) {
  return { status: body.state === 'done' ? 'SUCCESS' : body.state === 'error' ? 'FAILURE' : 'IN_PROGRESS', reason: body.state === 'error' ? body.message : '' };
}
export function buildBatchQueryRequest(ctx, taskIds) {
  return { url: ctx.baseUrl + '/api/fetch', method: 'POST', headers: { 'Content-Type': 'application/json' }, body: { ids: taskIds } };
}
export function parseBatchResult(ctx, body) {
  return (body.data || []).map((it) => ({
    taskId: it.id,
    status: it.state === 'done' ? 'SUCCESS' : it.state === 'error' ? 'FAILURE' : 'IN_PROGRESS',
    reason: it.state === 'error' ? it.message || 'failed' : '',
    data: it,
  }));
}
export function extractUsage() { return { songs: 2 }; }

export const native = {
  decodeSubmit(ctx) {
    const b = ctx.body.kind === 'json' ? ctx.body.value : {};
    return { kind: 'submit', model: b.mv || 'tune-v3', action: ctx.params.action, requestBody: b };
  },
  decodeFetch(ctx) {
    const b = ctx.body.kind === 'json' ? ctx.body.value : {};
    return { kind: 'query', taskIds: b.ids || [] };
  },
  renderSubmit(ctx, task) { return { code: 'success', data: task.task_id }; },
  renderTasks(ctx, tasks) { return { code: 'success', data: tasks.map((t) => ({ task_id: t.task_id, status: t.status })) }; },
};

export const protocols = {
  openai_responses: {
    decodeRequest(ctx) {
      const b = ctx.body.kind === 'json' ? ctx.body.value : {};
      return { kind: 'submit', model: ctx.model, action: 'music', requestBody: { prompt: String(b.input || '') } };
    },
    renderEvents(ctx, task) {
      if (task.status === 'SUCCESS') return { events: [{ type: 'output', data: 'done' }], done: true };
      return { events: [], done: false };
    },
    renderFinal(ctx, task) {
      return { output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Song ' + task.task_id, annotations: [] }] }] };
    },
  },
};
