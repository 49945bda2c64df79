// Claims the three host protocols (image, video, Responses in every mode) for the loopback test
// vendor (packages/gateway/test/fakes/vendor/server.ts). Decoders are deterministic: they run once per
// candidate and again after the channel is chosen.
export const meta = {
  apiVersion: 1,
  key: 'proto-media',
  name: 'Protocol media',
  version: '1.0.0',
  author: { name: 'Gatehouse' },
  models: ['pm-img', 'pm-vid', 'pm-resp', 'shared-img'],
  fetchMode: 'per_task',
  auth: 'api_key',
  protocols: [
    { name: 'compat_image', models: ['pm-img', 'shared-img'] },
    { name: 'compat_video', models: ['pm-vid'] },
    { name: 'compat_responses', supports: ['stream', 'sync', 'background'], models: ['pm-resp'] },
  ],
};

function field(body, name) {
  if (body.kind === 'json') return body.value ? body.value[name] : undefined;
  if (body.kind === 'multipart' || body.kind === 'form') return body.fields[name] ? body.fields[name][0] : undefined;
  return undefined;
}

export function buildSubmitRequest(ctx) {
  const b = ctx.requestBody || {};
  return {
    url: ctx.baseUrl + '/v1/video/submit',
    method: 'POST',
    headers: { Authorization: 'Bearer ' + ctx.apiKey, 'Content-Type': 'application/json' },
    body: {
      model: ctx.upstreamModel,
      prompt: b.prompt || '',
      scenario: b.scenario || 'success',
      seconds: b.seconds || 4,
      steps: b.steps || 1,
      images: ctx.files.map(function (f) { return { __fileRef: f.ref, encoding: 'base64' }; }),
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
  if (st === 'SUCCESS' || st === 'FAILURE') return { taskId: b.id, taskData: b, immediate: { status: st, reason: b.error || '' } };
  return { taskId: b.id, taskData: b };
}

export function buildQueryRequest(ctx) {
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
  const h = { Authorization: 'Bearer ' + ctx.apiKey };
  if (ctx.clientRequest.headers.range) h.Range = ctx.clientRequest.headers.range;
  return { url: ctx.data.video_url, method: ctx.clientRequest.method, headers: h };
}

function scenarioOf(prompt) {
  if (prompt === 'fail') return 'fail';
  if (prompt === 'immediate') return 'immediate-success';
  if (prompt === 'slow') return 'success';
  return 'success';
}

export const protocols = {
  compat_image: {
    decodeRequest(ctx) {
      const prompt = field(ctx.body, 'prompt');
      if (typeof prompt !== 'string' || !prompt) throw new Error('prompt is required');
      return { kind: 'submit', model: ctx.model, requestBody: { prompt: prompt, scenario: scenarioOf(prompt), steps: prompt === 'slow' ? 1000 : 1, op: ctx.operation } };
    },
    render(ctx, task) {
      return { data: [{ url: task.data.video_url, revised_prompt: 'revised: ' + ctx.operation }] };
    },
  },
  compat_video: {
    decodeRequest(ctx) {
      const prompt = field(ctx.body, 'prompt');
      if (typeof prompt !== 'string' || !prompt) throw new Error('prompt is required');
      const seconds = Number(field(ctx.body, 'seconds') || 4);
      return { kind: 'submit', model: ctx.model, requestBody: { prompt: prompt, seconds: seconds, steps: 2, scenario: scenarioOf(prompt) } };
    },
    render(ctx, task) {
      const d = task.data || {};
      return { seconds: String(d.duration || ''), size: '1280x720', vendor_status: d.status || null, id: 'ignored' };
    },
  },
  compat_responses: {
    decodeRequest(ctx) {
      const input = field(ctx.body, 'input');
      if (typeof input !== 'string' || !input) throw new Error('input must be a non-empty string');
      return { kind: 'submit', model: ctx.model, requestBody: { prompt: input, steps: 2, scenario: scenarioOf(input) } };
    },
    renderFinal(ctx, _task) {
      return { output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'video ready: ' + ctx.artifacts.video.url }] }], metadata: { vendor: 'loopback' } };
    },
    renderEvents(ctx, task, previousState) {
      const n = ((previousState && previousState.n) || 0) + 1;
      if (task.status === 'SUCCESS') return { events: [{ type: 'output', data: ctx.artifacts.video.url }], done: true, state: { n: n } };
      if (task.status === 'FAILURE') return { events: [{ type: 'error', message: task.fail_reason }], done: true, state: { n: n } };
      return { events: [{ type: 'progress', progress: parseInt(task.progress, 10) || 0, message: 'tick ' + n }], done: false, state: { n: n } };
    },
  },
};
