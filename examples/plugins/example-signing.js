// Vendors that need signed requests: Volcengine V4 (Go-cased fields, as market plugins write them)
// and an HS256 JWT. Also claims the video protocol with the market spelling and a bare string.
export const meta = {
  apiVersion: 1,
  key: 'signcraft',
  name: 'SignCraft',
  version: '1.0.0',
  author: { name: 'Gatehouse examples' },
  models: ['sc-video'],
  fetchMode: 'per_task',
  channelTypes: [51],
  protocols: ['openai_video'],
  allowedHosts: ['visual.volcengineapi.com', 'cdn.example.com:8443'],
};

function split(key) { const i = (key || '').indexOf('|'); return i < 0 ? [key, ''] : [key.slice(0, i), key.slice(i + 1)]; }

export function buildSubmitRequest(ctx) {
  const [ak, sk] = split(ctx.apiKey);
  const url = 'https://visual.volcengineapi.com/?Action=CVSubmitTask&Version=2022-08-31';
  const body = JSON.stringify({ req_key: 'sc', prompt: ctx.requestBody.prompt });
  const sig = utils.volcSignV4({ Method: 'POST', URL: url, Headers: { 'Content-Type': 'application/json' }, Body: body, AccessKey: ak, SecretKey: sk, Region: 'cn-north-1', Service: 'cv' });
  return { url, method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: sig.Authorization, 'X-Date': sig['X-Date'], 'X-Content-Sha256': sig['X-Content-Sha256'] }, body };
}
export function parseSubmitResponse(ctx, resp) { return { taskId: resp.body.data.task_id }; }
export function buildQueryRequest(ctx) {
  const now = utils.unixNow();
  const token = utils.jwtSignHS256({ iss: ctx.apiKey, exp: now + 1800, nbf: now - 5 }, 'secret');
  return { url: ctx.baseUrl + '/q/' + ctx.taskId, headers: { Authorization: 'Bearer ' + token } };
}
export function parseTaskResult(ctx, body) { return { status: body.status === 'done' ? 'SUCCESS' : 'QUEUED', url: body.video_url }; }
export function listArtifacts(task) { return task.data && task.data.video_url ? [{ key: 'video', type: 'video' }] : []; }
export function buildContentRequest(ctx) { return { url: ctx.data.video_url, credentialless: true }; }
export const protocols = {
  openai_video: {
    decodeRequest(ctx) { return { kind: 'submit', model: ctx.model, requestBody: { prompt: ctx.body.value.prompt } }; },
    render(ctx, task) { return { id: task.task_id, b64: utils.base64URL(task.task_id) }; },
  },
};
