/**
 * A loopback Google Vertex AI with its OAuth token endpoint. `POST /token` takes the JWT-bearer grant,
 * verifies the JWT's RS256 signature with the service account's public key (and its issuer, audience
 * and scope) and hands out `ya29.test-<n>` tokens. The model actions
 * `/v1/projects/{project}/locations/{region}/publishers/{google|anthropic}/models/{model}:{action}` accept
 * only a live token, check the Anthropic body shape Vertex wants (no `model`, `anthropic_version`), and
 * answer as the fake Gemini and Anthropic upstreams do (the request is passed on to them);
 * `:predictLongRunning` starts an operation that `:fetchPredictOperation` reports done on its second read.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { jwtVerify } from 'jose';
import { json, startFake, type FakeUpstream, type Recorded } from './common.ts';
import { startFakeGemini } from './gemini.ts';
import { startFakeAnthropic } from './anthropic.ts';

export interface FakeVertex {
  up: FakeUpstream;
  /** The service-account JSON key whose tokens this server accepts. */
  serviceAccount: string;
  /** Token exchanges served. */
  exchanges: number;
  /** Model calls served, by path. */
  calls: string[];
  /** Makes every token issued so far invalid (the upstream answers 401 until a new one is fetched). */
  revokeAll(): void;
  close(): Promise<void>;
}

export async function startFakeVertex(opts: { project?: string; region?: string } = {}): Promise<FakeVertex> {
  const project = opts.project ?? 'proj-1';
  const region = opts.region ?? 'us-east5';
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const gemini = await startFakeGemini();
  const anthropic = await startFakeAnthropic();
  const live = new Set<string>();
  const ops = new Map<string, number>();
  const state = { exchanges: 0, calls: [] as string[] };
  const clientEmail = `gatehouse-test@${project}.iam.gserviceaccount.com`;

  async function token(r: Recorded, res: ServerResponse, pub: KeyObject): Promise<void> {
    const form = new URLSearchParams(r.raw);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return json(res, 400, { error: 'unsupported_grant_type' });
    try {
      const { payload } = await jwtVerify(form.get('assertion') ?? '', pub, {
        issuer: clientEmail,
        audience: `${self.url}/token`,
        algorithms: ['RS256'],
      });
      if (payload.scope !== 'https://www.googleapis.com/auth/cloud-platform') return json(res, 400, { error: 'invalid_scope' });
    } catch (e) {
      return json(res, 400, { error: 'invalid_grant', error_description: `Invalid JWT Signature (${(e as Error).message})` });
    }
    state.exchanges++;
    const t = `ya29.test-${state.exchanges}`;
    live.add(t);
    return json(res, 200, { access_token: t, expires_in: 3599, token_type: 'Bearer' });
  }

  async function call(r: Recorded, res: ServerResponse): Promise<void> {
    const m = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^:/]+):(\w+)/.exec(r.path);
    if (!m || m[1] !== project || m[2] !== region)
      return json(res, 404, { error: { code: 404, message: `not found: ${r.path}`, status: 'NOT_FOUND' } });
    const auth = String(r.headers.authorization ?? '');
    if (!auth.startsWith('Bearer ') || !live.has(auth.slice(7))) {
      return json(res, 401, {
        error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
      });
    }
    state.calls.push(r.path);
    // Long-running predictions (Veo): an operation, done on its second read.
    if (m[3] === 'google' && m[5] === 'predictLongRunning') {
      const name = `projects/${project}/locations/${region}/publishers/google/models/${m[4]}/operations/op-${state.calls.length}`;
      ops.set(name, 0);
      return json(res, 200, { name });
    }
    if (m[3] === 'google' && m[5] === 'fetchPredictOperation') {
      const name = String(r.body?.operationName ?? '');
      if (!ops.has(name)) return json(res, 404, { error: { code: 404, message: 'operation not found', status: 'NOT_FOUND' } });
      const reads = ops.get(name)! + 1;
      ops.set(name, reads);
      return json(
        res,
        200,
        reads < 2
          ? { name, done: false }
          : { name, done: true, response: { videos: [{ gcsUri: 'gs://bucket/video.mp4', mimeType: 'video/mp4' }] } },
      );
    }
    let target: string;
    let headers: Record<string, string>;
    let body = r.raw;
    if (m[3] === 'anthropic') {
      if ('model' in r.body || r.body.anthropic_version !== 'vertex-2023-10-16') {
        return json(res, 400, {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: 'model must be in the URL and anthropic_version "vertex-2023-10-16" in the body',
          },
        });
      }
      if (m[5] !== 'rawPredict' && m[5] !== 'streamRawPredict') return json(res, 404, { error: { code: 404, message: 'unknown action' } });
      target = `${anthropic.url}/v1/messages`;
      headers = { 'x-api-key': 'sk-ant', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' };
      body = JSON.stringify({ ...r.body, model: m[4], stream: m[5] === 'streamRawPredict' });
    } else {
      target = `${gemini.url}/v1beta/models/${m[4]}:${m[5]}${r.path.includes('alt=sse') ? '?alt=sse' : ''}`;
      headers = { 'x-goog-api-key': 'g-key', 'content-type': 'application/json' };
    }
    const up = await fetch(target, { method: 'POST', headers, body });
    res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' });
    if (up.body) Readable.fromWeb(up.body as never).pipe(res);
    else res.end();
  }

  const self: FakeUpstream = await startFake((r, res) => (r.path === '/token' ? token(r, res, publicKey) : call(r, res)));
  const serviceAccount = JSON.stringify({
    type: 'service_account',
    project_id: project,
    private_key_id: 'key-1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    token_uri: `${self.url}/token`,
  });
  return {
    up: self,
    serviceAccount,
    get exchanges() {
      return state.exchanges;
    },
    get calls() {
      return state.calls;
    },
    revokeAll: () => live.clear(),
    close: async () => {
      await Promise.all([self.close(), gemini.close(), anthropic.close()]);
    },
  };
}
