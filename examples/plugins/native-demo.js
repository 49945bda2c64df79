// Vendor-style native routes under the `/nd/api/v1` prefix, plus an image protocol claim, for the
// loopback test vendor (packages/gateway/test/fakes/vendor/server.ts). The same plugin also drives a peer
// gateway (a type 60 channel pointing at another Gatehouse or New API instance): then it talks to the
// peer's copy of these native routes instead of the vendor.
//
//   POST /nd/api/v1/videos                    submit  (models nd-video, nd-pro)
//   POST /nd/api/v1/quick                     submit  (model nd-fast; result not retained)
//   POST /nd/api/v1/videos/:task_id/extend    submit  (continues an earlier task: originTaskIds)
//   GET  /nd/api/v1/videos/:task_id           query
//   POST /nd/api/v1/videos/lookup             dynamic (a list of ids → query; otherwise a submit)
const MARK = 'g1';

export const meta = {
  apiVersion: 1,
  key: 'native-demo',
  name: 'Native route demo',
  version: '1.0.0',
  author: { name: 'Gatehouse' },
  description: 'Native vendor-style routes, result retention, origin tasks and peer gateways.',
  models: ['nd-video', 'nd-pro', 'nd-fast', 'shared-img'],
  fetchMode: 'per_task',
  auth: 'api_key',
  upstreams: ['vendor', 'gateway_api'],
  protocols: [{ name: 'compat_image', models: ['shared-img'] }],
  routes: [
    { method: 'POST', path: '/nd/api/v1/videos', type: 'submit', action: 'generate', decode: 'decodeCreate', render: 'renderSubmit', models: ['nd-video', 'nd-pro'] },
    { method: 'POST', path: '/nd/api/v1/quick', type: 'submit', action: 'generate', decode: 'decodeQuick', render: 'renderQuick', models: ['nd-fast'], retainResult: false },
    { method: 'POST', path: '/nd/api/v1/videos/:task_id/extend', type: 'submit', action: 'extend', decode: 'decodeExtend', render: 'renderSubmit' },
    { method: 'GET', path: '/nd/api/v1/videos/:task_id', type: 'query', render: 'renderTask' },
    { method: 'POST', path: '/nd/api/v1/videos/lookup', type: 'dynamic', decode: 'decodeLookup', render: 'renderLookup' },
  ],
};

function isPeer(ctx) {
  const k = ctx.upstream && ctx.upstream.kind;
  return k === 'gateway_api' || k === 'new_api';
}

function jsonBody(ctx) {
  if (!ctx.body || ctx.body.kind !== 'json' || !ctx.body.value || typeof ctx.body.value !== 'object') throw new Error('send a JSON object');
  return ctx.body.value;
}

function mapStatus(s) {
  if (s === 'queued') return 'QUEUED';
  if (s === 'running') return 'IN_PROGRESS';
  if (s === 'succeeded') return 'SUCCESS';
  if (s === 'failed') return 'FAILURE';
  return 'UNKNOWN';
}

function vendorStatus(status) {
  if (status === 'SUCCESS') return 'succeeded';
  if (status === 'FAILURE') return 'failed';
  if (status === 'IN_PROGRESS') return 'running';
  return 'queued';
}

// ---- driver -------------------------------------------------------------------------------------

export function buildSubmitRequest(ctx) {
  const b = ctx.requestBody || {};
  if (isPeer(ctx)) {
    // The peer gateway's native submit route; the host set authHeader to "Bearer <channel key>".
    const peerBody = { model: ctx.upstreamModel, prompt: b.prompt || '', seconds: b.seconds || 4 };
    if (b.scenario) peerBody.scenario = b.scenario;
    return { url: ctx.baseUrl + '/nd/api/v1/videos', method: 'POST', headers: { Authorization: ctx.authHeader }, body: peerBody };
  }
  let prompt = b.prompt || '';
  if (ctx.action === 'extend') {
    const o = (ctx.originTasks || [])[0];
    if (!o) throw new Error('extend needs an origin task');
    prompt = 'extend ' + o.taskId + ' (' + o.publicTaskId + ', ' + o.status + ', data ' + (o.data === null ? 'discarded' : 'kept') + '): ' + prompt;
  }
  return {
    url: ctx.baseUrl + '/v1/video/submit',
    method: 'POST',
    headers: { Authorization: 'Bearer ' + ctx.apiKey },
    body: { model: ctx.upstreamModel, prompt: prompt, scenario: b.scenario || 'success', seconds: b.seconds || 4, steps: b.steps || 1 },
  };
}

export function parseSubmitResponse(ctx, resp) {
  const b = resp.body || {};
  // A peer answers with its own native renderer output: { id: <peer public id>, status, ... }.
  const st = mapStatus(b.status);
  if (st === 'SUCCESS' || st === 'FAILURE') return { taskId: b.id, taskData: b, immediate: { status: st, reason: b.error || '' } };
  return { taskId: b.id, taskData: b };
}

export function buildQueryRequest(ctx) {
  if (isPeer(ctx)) return { url: ctx.baseUrl + '/nd/api/v1/videos/' + encodeURIComponent(ctx.taskId), method: 'GET', headers: { Authorization: ctx.authHeader } };
  return { url: ctx.baseUrl + '/v1/video/tasks/' + ctx.taskId, method: 'GET', headers: { Authorization: 'Bearer ' + ctx.apiKey } };
}

export function parseTaskResult(ctx, body) {
  const st = mapStatus(body && body.status);
  const out = { status: st };
  if (typeof body.progress === 'number') out.progress = body.progress + '%';
  if (st === 'FAILURE') out.reason = body.error || 'failed';
  return out;
}

export function listArtifacts() {
  return [{ key: 'video', type: 'video', mimeType: 'video/mp4' }];
}

export function buildContentRequest(ctx) {
  const h = {};
  if (ctx.clientRequest.headers.range) h.Range = ctx.clientRequest.headers.range;
  if (isPeer(ctx)) {
    h.Authorization = ctx.authHeader;
    return { url: ctx.baseUrl + '/v1/tasks/' + encodeURIComponent(ctx.upstreamTaskId) + '/artifacts/video/content', method: ctx.clientRequest.method, headers: h };
  }
  h.Authorization = 'Bearer ' + ctx.apiKey;
  return { url: ctx.data.video_url, method: ctx.clientRequest.method, headers: h };
}

// ---- native routes ------------------------------------------------------------------------------

function submitIntent(v, extra) {
  if (typeof v.prompt !== 'string' || !v.prompt) throw new Error('prompt is required');
  const body = { prompt: v.prompt, seconds: v.seconds || 4 };
  if (v.scenario) body.scenario = v.scenario;
  const out = { kind: 'submit', model: v.model, requestBody: body };
  for (const k in extra || {}) out[k] = extra[k];
  return out;
}

function taskJson(task) {
  const d = task.data || {};
  const out = { id: task.task_id, object: 'nd.video', status: vendorStatus(task.status), progress: parseInt(task.progress, 10) || 0, created: task.created_at, generation: MARK };
  if (task.status === 'SUCCESS') out.seconds = d.duration || null;
  if (task.status === 'FAILURE') out.error = task.fail_reason;
  return out;
}

export const native = {
  decodeCreate(ctx) {
    const v = jsonBody(ctx);
    if (v.prompt === 'explode') throw new Error('decoder failed at /srv/plugins/native-demo.js:12 with Authorization: Bearer sk-live-0123456789abcdef\n    at decodeCreate (/srv/plugins/native-demo.js:12:9)\n    at run (node:internal/x:1:1)');
    if (v.prompt === 'long') throw new Error('x'.repeat(5000));
    return submitIntent(v);
  },
  decodeQuick(ctx) {
    const v = jsonBody(ctx);
    return submitIntent({ model: v.model, prompt: v.prompt, scenario: v.later ? 'success' : 'immediate-success' });
  },
  decodeExtend(ctx) {
    const v = jsonBody(ctx);
    return submitIntent({ model: v.model || 'nd-video', prompt: v.prompt || 'more', seconds: v.seconds }, { originTaskIds: [ctx.params.task_id] });
  },
  decodeLookup(ctx) {
    const v = jsonBody(ctx);
    if (Array.isArray(v.ids)) return { kind: 'query', taskIds: v.ids };
    return submitIntent(v);
  },
  renderSubmit(ctx, task) {
    return { id: task.task_id, object: 'nd.video', status: vendorStatus(task.status), generation: MARK, seen: Object.keys(ctx).sort() };
  },
  renderQuick(ctx, task) {
    const d = task.data || {};
    return { id: task.task_id, status: vendorStatus(task.status), seconds: d.duration || null, has_video: typeof d.video_url === 'string' };
  },
  renderTask(ctx, task) {
    return taskJson(task);
  },
  renderLookup(ctx, tasks) {
    if (Array.isArray(tasks)) return { object: 'list', data: tasks.map(taskJson) };
    return { id: tasks.task_id, object: 'nd.video', status: vendorStatus(tasks.status), generation: MARK };
  },
  error(ctx, err) {
    return { error: { type: 'nd_error', code: err.code, message: err.message, retryable: err.retryable, request_id: err.requestId } };
  },
};

// ---- image protocol (a model shared with another plugin) ---------------------------------------

export const protocols = {
  compat_image: {
    decodeRequest(ctx) {
      const b = ctx.body.kind === 'json' ? ctx.body.value || {} : {};
      if (typeof b.prompt !== 'string' || !b.prompt) throw new Error('native-demo needs a prompt');
      if (b.prompt === 'nobody') throw new Error('native-demo refuses this prompt');
      return { kind: 'submit', model: ctx.model, requestBody: { prompt: b.prompt, scenario: 'immediate-success' } };
    },
    render(ctx, task) {
      return { data: [{ url: task.data.video_url, revised_prompt: 'native-demo' }] };
    },
  },
};
