// An image plugin claiming the image protocol (market spelling "openai_image"), immediate results,
// a token-priced usage profile and utils (json.clone, hmacSHA256).
export const meta = {
  apiVersion: 1,
  key: 'pixelmint',
  name: 'PixelMint Images',
  version: '2.0.1',
  author: { name: 'Gatehouse examples' },
  models: ['mint-image', 'mint-image-hd'],
  fetchMode: 'per_task',
  protocols: [{ name: 'openai_image', models: ['mint-image', 'mint-image-hd'] }],
  requiredCapabilities: ['json-clone@1'],
  usageSchema: { image_count: { type: 'number', unit: 'count' } },
  usageExamples: [{ label: 'one image', facts: { image_count: 1 } }],
  usageProfiles: [{
    models: ['mint-image-hd'],
    schema: { tokens: { type: 'number', unit: 'token' }, quality: { enum: ['standard', 'hd'] } },
    examples: [{ label: '1k tokens HD', facts: { tokens: 1000, quality: 'hd' } }],
  }],
};

export function buildSubmitRequest(ctx) {
  const body = utils.json.clone(ctx.requestBody);
  body.signature = utils.hmacSHA256(ctx.publicTaskId, 'pixelmint');
  return { url: ctx.baseUrl + '/v1/generate', method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + ctx.apiKey }, body };
}
export function parseSubmitResponse(ctx, resp) {
  const b = resp.body;
  if (b.status === 'done') return { taskId: ctx.publicTaskId, taskData: b, immediate: { status: 'SUCCESS', url: b.images[0] } };
  return { taskId: b.job_id, taskData: b };
}
export function buildQueryRequest(ctx) { return { url: ctx.baseUrl + '/v1/jobs/' + ctx.taskId }; }
export function parseTaskResult(ctx, body) {
  return { status: body.status === 'done' ? 'SUCCESS' : body.status === 'failed' ? 'FAILURE' : 'IN_PROGRESS', url: body.images && body.images[0], reason: body.error };
}
export function extractUsage(ctx) { return { image_count: Number((ctx.requestBody && ctx.requestBody.n) || 1) }; }

export const protocols = {
  openai_image: {
    decodeRequest(ctx) {
      if (ctx.body.kind === 'multipart') {
        const f = ctx.body.files[0];
        return { kind: 'submit', model: ctx.model, action: 'edit', requestBody: { prompt: (ctx.body.fields.prompt || [''])[0], image: { __fileRef: f.ref, encoding: 'base64' } } };
      }
      const b = ctx.body.value || {};
      if (!b.prompt) throw new Error('prompt is required');
      return { kind: 'submit', model: ctx.model, action: ctx.operation, requestBody: { prompt: b.prompt, n: b.n || 1, size: b.size || '1024x1024' } };
    },
    render(ctx, task) {
      const imgs = (task.data && task.data.images) || [];
      return { data: imgs.map((url) => ({ url })) };
    },
  },
};
