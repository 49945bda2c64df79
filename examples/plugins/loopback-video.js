// A per_task video plugin for the loopback test vendor (packages/gateway/test/fakes/vendor/server.ts).
// It shows the whole driver contract: submit, poll, usage facts, artifacts with Range reads.
export const meta = {
  apiVersion: 1,
  key: 'loopback-video',
  name: 'Loopback video',
  version: '1.0.0',
  author: { name: 'Gatehouse' },
  models: ['lv-1', 'lv-2'],
  fetchMode: 'per_task',
  auth: 'api_key',
  usageSchema: {
    seconds: { type: 'number', unit: 'second', description: 'video length' },
    quality: { enum: ['std', 'pro'] },
  },
};

function authHeaders(ctx) {
  return { Authorization: 'Bearer ' + ctx.apiKey, 'Content-Type': 'application/json' };
}

export function buildSubmitRequest(ctx) {
  const b = ctx.requestBody || {};
  return {
    url: ctx.baseUrl + '/v1/video/submit',
    method: 'POST',
    headers: Object.assign(authHeaders(ctx), { 'Idempotency-Key': ctx.publicTaskId }),
    body: {
      model: ctx.upstreamModel,
      prompt: b.prompt || '',
      scenario: b.scenario || 'success',
      seconds: b.seconds || 5,
      steps: b.steps || 2,
      image: ctx.files.length ? { __fileRef: ctx.files[0].ref, encoding: 'dataUrl' } : null,
    },
  };
}

function mapStatus(s) {
  if (s === 'queued') return 'QUEUED';
  if (s === 'running') return 'IN_PROGRESS';
  if (s === 'succeeded') return 'SUCCESS';
  if (s === 'failed') return 'FAILURE';
  return 'UNKNOWN';
}

export function parseSubmitResponse(ctx, resp) {
  const b = resp.body;
  const st = mapStatus(b.status);
  if (st === 'SUCCESS' || st === 'FAILURE') {
    return { taskId: b.id, taskData: b, immediate: { status: st, reason: b.error || '' } };
  }
  return { taskId: b.id, taskData: b, state: { polls: 0 } };
}

export function buildQueryRequest(ctx) {
  return { url: ctx.baseUrl + '/v1/video/tasks/' + ctx.taskId, method: 'GET', headers: authHeaders(ctx) };
}

export function parseTaskResult(ctx, body) {
  const st = mapStatus(body && body.status);
  const out = { status: st, state: { polls: ((ctx.state && ctx.state.polls) || 0) + 1 } };
  if (typeof body.progress === 'number') out.progress = body.progress + '%';
  if (st === 'FAILURE') out.reason = body.error || 'failed';
  return out;
}

export function extractUsage(ctx) {
  const b = ctx.requestBody || {};
  return { seconds: b.seconds || 5, quality: b.quality === 'pro' ? 'pro' : 'std' };
}

export function extractUsageOnComplete(task, result, data) {
  return data && typeof data.duration === 'number' ? { seconds: data.duration } : null;
}

export function listArtifacts() {
  return [{ key: 'video', type: 'video', mimeType: 'video/mp4' }];
}

export function buildContentRequest(ctx) {
  const url = ctx.data && ctx.data.video_url;
  const h = { Authorization: 'Bearer ' + ctx.apiKey };
  if (ctx.clientRequest.headers.range) h.Range = ctx.clientRequest.headers.range;
  return { url: url, method: ctx.clientRequest.method, headers: h };
}
