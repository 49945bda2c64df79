// A per_task video plugin whose upstream authenticates with a Google service account (`auth: 'vertex_oauth'`,
// as the market's Vertex plugin declares it): the channel key is a service-account JSON key, the host exchanges
// it for an access token and hands the plugin `authHeader: 'Bearer <token>'` and `auth.projectId`. It drives the
// long-running operations of the loopback Vertex AI in packages/gateway/test/fakes/upstreams/vertex.ts.
export const meta = {
  apiVersion: 1,
  key: 'loopback-vertex',
  name: 'Loopback Vertex video',
  version: '1.0.0',
  author: { name: 'Gatehouse' },
  models: ['veo-loop'],
  fetchMode: 'per_task',
  auth: 'vertex_oauth',
  usageSchema: { seconds: { type: 'number', unit: 'second', description: 'video length' } },
};

function modelUrl(ctx, action) {
  const project = ctx.auth.projectId;
  return ctx.baseUrl + '/v1/projects/' + project + '/locations/us-east5/publishers/google/models/' + ctx.upstreamModel + ':' + action;
}

function headers(ctx) {
  return { Authorization: ctx.authHeader, 'Content-Type': 'application/json' };
}

export function buildSubmitRequest(ctx) {
  if (ctx.authError) throw new Error(ctx.authError);
  const b = ctx.requestBody || {};
  return { url: modelUrl(ctx, 'predictLongRunning'), method: 'POST', headers: headers(ctx), body: { instances: [{ prompt: b.prompt || '' }], parameters: { durationSeconds: b.seconds || 4 } } };
}

export function parseSubmitResponse(ctx, resp) {
  return { taskId: resp.body.name, taskData: resp.body };
}

export function buildQueryRequest(ctx) {
  return { url: modelUrl(ctx, 'fetchPredictOperation'), method: 'POST', headers: headers(ctx), body: { operationName: ctx.taskId } };
}

export function parseTaskResult(ctx, body) {
  if (!body || !body.done) return { status: 'IN_PROGRESS' };
  if (body.error) return { status: 'FAILURE', reason: body.error.message || 'failed' };
  return { status: 'SUCCESS' };
}

export function extractUsage(ctx) {
  return { seconds: (ctx.requestBody && ctx.requestBody.seconds) || 4 };
}
