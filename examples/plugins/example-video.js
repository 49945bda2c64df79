// A per_task video plugin for a fictional vendor "Clipforge": native routes, the video and Responses
// protocols, artifacts, usage facts. Used by the contract suite and docs/plugins.md.
export const meta = {
  apiVersion: 1,
  key: 'clipforge',
  name: 'Clipforge Video',
  version: '1.2.0',
  author: { name: 'Gatehouse examples', url: 'https://example.com/clipforge' },
  description: { en: 'Text-to-video through the Clipforge API.', 'zh-cn': '通过 Clipforge API 生成视频。' },
  icon: 'text:CF',
  website: 'https://example.com',
  sortPriority: 10,
  baseUrl: 'https://API.clipforge.example/',
  allowedHosts: ['cdn.clipforge.example'],
  upstreams: ['vendor', 'gateway_api'],
  auth: 'api_key',
  models: ['clip-1', 'clip-1-pro'],
  fetchMode: 'per_task',
  routes: [
    { method: 'POST', path: '/clipforge/v1/videos', type: 'submit', decode: 'decodeSubmit', render: 'renderTask', action: 'generate' },
    { method: 'GET', path: '/clipforge/v1/videos/:id', type: 'query', render: 'renderTask', taskIdParam: 'id' },
  ],
  protocols: [
    { name: 'compat_video', models: ['clip-1', 'clip-1-pro'] },
    { name: 'compat_responses', supports: ['sync', 'stream'] },
  ],
  usageSchema: {
    seconds: { type: 'number', unit: 'second', description: 'Video length' },
    resolution: { enum: ['720p', '1080p'], enumLabels: { '720p': 'HD', '1080p': 'Full HD' } },
  },
  usageExamples: [{ label: '5 s at 720p', facts: { seconds: 5, resolution: '720p' } }],
};

const STATUS = { queued: 'QUEUED', running: 'IN_PROGRESS', succeeded: 'SUCCESS', failed: 'FAILURE' };

function bodyOf(ctx) {
  return ctx.body && ctx.body.kind === 'json' && ctx.body.value && typeof ctx.body.value === 'object' ? ctx.body.value : {};
}

function prefix(ctx) {
  return ctx.upstream && (ctx.upstream.kind === 'gateway_api' || ctx.upstream.kind === 'new_api') ? '/clipforge' : '';
}

export function buildSubmitRequest(ctx) {
  const b = ctx.requestBody || {};
  return {
    url: ctx.baseUrl + prefix(ctx) + '/v1/videos',
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + (ctx.apiKey || ''), 'Idempotency-Key': ctx.publicTaskId },
    body: { model: ctx.upstreamModel, prompt: b.prompt, seconds: b.seconds || 5, resolution: b.resolution || '720p' },
  };
}

export function parseSubmitResponse(ctx, resp) {
  const b = resp.body || {};
  if (!b.id) throw new Error('Clipforge returned no task id');
  return { taskId: String(b.id), taskData: b, state: { polls: 0 } };
}

export function buildQueryRequest(ctx) {
  return { url: ctx.baseUrl + prefix(ctx) + '/v1/videos/' + encodeURIComponent(ctx.taskId), headers: { Authorization: 'Bearer ' + (ctx.apiKey || '') } };
}

export function parseTaskResult(ctx, body) {
  const status = STATUS[body && body.status] || 'UNKNOWN';
  const out = { status, progress: body && typeof body.progress === 'number' ? body.progress + '%' : undefined, state: { polls: ((ctx.state && ctx.state.polls) || 0) + 1 } };
  if (status === 'SUCCESS') out.url = body.video_url;
  if (status === 'FAILURE') out.reason = (body.error && body.error.message) || 'generation failed';
  return out;
}

export function extractUsage(ctx) {
  const b = ctx.requestBody || {};
  return { seconds: Number(b.seconds || 5), resolution: b.resolution === '1080p' ? '1080p' : '720p' };
}

export function extractUsageOnComplete(task, result, data) {
  return data && typeof data.duration === 'number' ? { seconds: data.duration } : null;
}

export function listArtifacts(task) {
  const out = [];
  if (task.data && task.data.video_url) out.push({ key: 'video', type: 'video', mimeType: 'video/mp4' });
  if (task.data && task.data.thumbnail_url) out.push({ key: 'thumbnail', type: 'image', mimeType: 'image/jpeg' });
  return out;
}

export function buildContentRequest(ctx) {
  const d = ctx.data || {};
  const url = ctx.artifactKey === 'thumbnail' ? d.thumbnail_url : d.video_url;
  if (!url) throw new Error('artifact ' + ctx.artifactKey + ' is not available');
  return { url, method: ctx.clientRequest.method, credentialless: true };
}

export const native = {
  decodeSubmit(ctx) {
    const b = bodyOf(ctx);
    if (typeof b.prompt !== 'string' || !b.prompt) throw new Error('prompt is required');
    return { kind: 'submit', model: b.model || 'clip-1', requestBody: { prompt: b.prompt, seconds: b.seconds, resolution: b.resolution } };
  },
  renderTask(ctx, task) {
    return { id: task.task_id, status: task.status, progress: task.progress, video_url: task.data && task.data.video_url, error: task.fail_reason || null };
  },
};

export const protocols = {
  compat_video: {
    decodeRequest(ctx) {
      const b = bodyOf(ctx);
      const fields = ctx.body.kind === 'multipart' ? ctx.body.fields : null;
      const prompt = fields ? (fields.prompt || [])[0] : b.prompt;
      if (!prompt) throw new Error('prompt is required');
      const seconds = Number(fields ? (fields.seconds || [])[0] : b.seconds) || 5;
      return { kind: 'submit', model: ctx.model, action: 'generate', requestBody: { prompt, seconds, resolution: b.size === '1920x1080' ? '1080p' : '720p' } };
    },
    render(ctx, task) {
      return { id: task.task_id, object: 'video', seconds: String((task.data && task.data.duration) || ''), size: (task.data && task.data.resolution) || '' };
    },
  },
  compat_responses: {
    decodeRequest(ctx) {
      const b = bodyOf(ctx);
      const prompt = typeof b.input === 'string' ? b.input : '';
      if (!prompt) throw new Error('input must be a non-empty string');
      return { kind: 'submit', model: ctx.model, action: 'generate', requestBody: { prompt, seconds: 5 } };
    },
    renderEvents(ctx, task, previous) {
      const sent = previous && previous.sent;
      if (task.status === 'SUCCESS' && !sent) {
        const link = ctx.artifacts && ctx.artifacts.video ? ctx.artifacts.video.url : '';
        return { events: [{ type: 'output', data: 'Video ready: ' + link }], state: { sent: true }, done: true };
      }
      if (task.status === 'FAILURE') return { events: [{ type: 'error', message: task.fail_reason || 'failed' }], done: true };
      return { events: [{ type: 'progress', progress: parseInt(task.progress, 10) || 0 }], state: { sent: false }, done: false };
    },
    renderFinal(ctx, _task) {
      const link = ctx.artifacts && ctx.artifacts.video ? ctx.artifacts.video.url : '';
      return { output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Video ready: ' + link, annotations: [] }] }] };
    },
  },
};
