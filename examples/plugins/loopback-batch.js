// A batch plugin for the loopback test vendor: every unfinished task of a channel is polled with one
// request per pass.
export const meta = {
  apiVersion: 1,
  key: 'loopback-batch',
  name: 'Loopback batch',
  version: '1.0.0',
  author: { name: 'Gatehouse' },
  models: ['lb-1'],
  fetchMode: 'batch',
  auth: 'api_key',
};

export function buildSubmitRequest(ctx) {
  const b = ctx.requestBody || {};
  return {
    url: ctx.baseUrl + '/v1/video/submit',
    headers: { Authorization: 'Bearer ' + ctx.apiKey, 'Content-Type': 'application/json' },
    body: { model: ctx.upstreamModel, prompt: b.prompt || '', scenario: b.scenario || 'success', steps: b.steps || 2 },
  };
}

export function parseSubmitResponse(ctx, resp) {
  return { taskId: resp.body.id, taskData: resp.body };
}

function mapStatus(s) {
  if (s === 'queued') return 'QUEUED';
  if (s === 'running') return 'IN_PROGRESS';
  if (s === 'succeeded') return 'SUCCESS';
  if (s === 'failed') return 'FAILURE';
  return 'UNKNOWN';
}

export function parseTaskResult(ctx, body) {
  return { status: mapStatus(body && body.status) };
}

export function buildBatchQueryRequest(ctx, tasks) {
  return {
    url: ctx.baseUrl + '/v1/batch/query',
    method: 'POST',
    headers: { Authorization: 'Bearer ' + ctx.apiKey, 'Content-Type': 'application/json' },
    body: { ids: tasks.map(function (t) { return t.taskId; }) },
  };
}

export function parseBatchResult(ctx, body) {
  return body.items.map(function (it) {
    const st = mapStatus(it.status);
    return { taskId: it.id, status: st, reason: st === 'FAILURE' ? (it.error || 'failed') : '', progress: it.progress ? it.progress + '%' : undefined, data: it };
  });
}
