/**
 * The replay upstream of the provider conformance suite: a node:http server that answers every model
 * request with a recorded file of the scenario the request names (the `x-replay-scenario` header a
 * channel's header override sets): `<name>.json` is sent with status 200, `error-<status>.json` with
 * that status, `<name>.sse` as `text/event-stream` one event at a time, `<name>.eventstream.json` (a list
 * of `{event, data}`, or `{exception, data}`) as AWS's binary event stream (`application/vnd.amazon.eventstream`,
 * encoded with AWS's codec) one message at a time; `<name>.headers.json`, when present, adds its headers to
 * the answer (AWS's `x-amzn-errortype`). Every model request is recorded for assertions. A Bedrock call (a
 * path under `/model/`) is answered only when its SigV4 signature is the one `BEDROCK_CREDENTIAL` gives. It also serves Google's service-account token exchange (`POST /token`): the JWT-bearer
 * grant is verified with the service account's public key, and a Vertex call (a path under
 * `/v1/projects/`) is answered only with a token it issued.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { frame, verifySigV4, type AwsCredential } from '../upstreams/bedrock.ts';
import { jwtVerify } from 'jose';
import { json, sleep, startFake, type FakeUpstream, type Recorded } from '../upstreams/common.ts';

export const SCENARIO_HEADER = 'x-replay-scenario';

/** The AWS credential Bedrock calls must be signed with (bedrock/expect.json names it as the channel key). */
export const BEDROCK_CREDENTIAL: AwsCredential = {
  accessKeyId: 'AKIACONFORMANCE00001',
  secretAccessKey: 'conformance/Secret+Key0000000000000000',
  region: 'us-east-1',
};
const BEDROCK_CREDENTIALS = new Map([[BEDROCK_CREDENTIAL.accessKeyId, BEDROCK_CREDENTIAL]]);

export interface ReplayUpstream {
  url: string;
  /** Model requests answered from a file, in arrival order. */
  requests: Recorded[];
  /** A service-account JSON key whose tokens this server issues and accepts. */
  serviceAccount: string;
  /** Token exchanges served. */
  exchanges: number;
  close(): Promise<void>;
}

/** The recorded file of a scenario in `dir`: its path, or null when there is none. */
export function scenarioFile(dir: string, scenario: string): string | null {
  for (const ext of ['.json', '.sse', '.eventstream.json']) {
    const p = join(dir, scenario + ext);
    if (existsSync(p)) return p;
  }
  return null;
}

/** Starts a replay upstream serving the scenarios recorded in `dir`. */
export async function startReplay(dir: string): Promise<ReplayUpstream> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = 'conformance@proj-conf.iam.gserviceaccount.com';
  const live = new Set<string>();
  const state = { exchanges: 0, requests: [] as Recorded[] };

  async function token(r: Recorded, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(r.raw);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
      return json(res, 400, { error: 'unsupported_grant_type' });
    try {
      const { payload } = await jwtVerify(form.get('assertion') ?? '', publicKey, {
        issuer: clientEmail,
        audience: `${up.url}/token`,
        algorithms: ['RS256'],
      });
      if (payload.scope !== 'https://www.googleapis.com/auth/cloud-platform') return json(res, 400, { error: 'invalid_scope' });
    } catch (e) {
      return json(res, 400, { error: 'invalid_grant', error_description: `Invalid JWT Signature (${(e as Error).message})` });
    }
    state.exchanges++;
    const t = `ya29.conformance-${state.exchanges}`;
    live.add(t);
    return json(res, 200, { access_token: t, expires_in: 3599, token_type: 'Bearer' });
  }

  async function replay(r: Recorded, res: ServerResponse): Promise<void> {
    if (r.path.startsWith('/v1/projects/')) {
      const auth = String(r.headers.authorization ?? '');
      if (!auth.startsWith('Bearer ') || !live.has(auth.slice(7))) {
        return json(res, 401, {
          error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
        });
      }
    }
    if (r.path.startsWith('/model/')) {
      const v = await verifySigV4(r, BEDROCK_CREDENTIALS);
      if ('type' in v)
        return json(
          res,
          403,
          { message: v.message },
          { 'x-amzn-errortype': `${v.type}:http://internal.amazon.com/coral/com.amazon.coral.service/` },
        );
    }
    const scenario = String(r.headers[SCENARIO_HEADER] ?? '');
    const file = /^[a-z0-9-]+$/.test(scenario) ? scenarioFile(dir, scenario) : null;
    if (!file) return json(res, 404, { error: { message: `no recorded answer for scenario "${scenario}" in ${dir}` } });
    state.requests.push(r);
    const text = readFileSync(file, 'utf8');
    const extraFile = join(dir, `${scenario}.headers.json`);
    const extra: Record<string, string> = existsSync(extraFile) ? JSON.parse(readFileSync(extraFile, 'utf8')) : {};
    if (file.endsWith('.eventstream.json')) {
      res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', ...extra });
      for (const m of JSON.parse(text) as Array<{ event?: string; exception?: string; data: unknown }>) {
        if (res.destroyed) return;
        res.write(m.exception ? frame(m.exception, m.data, 'exception') : frame(String(m.event), m.data));
        await sleep(1);
      }
      res.end();
      return;
    }
    if (file.endsWith('.sse')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...extra });
      // One event per write, with a pause, so the gateway reads the stream in pieces as it would live.
      for (const ev of text.split(/\r?\n\r?\n/)) {
        if (!ev.trim()) continue;
        if (res.destroyed) return;
        res.write(`${ev}\n\n`);
        await sleep(1);
      }
      res.end();
      return;
    }
    const m = /^error-(\d{3})$/.exec(scenario);
    const body = Buffer.from(text);
    res.writeHead(m ? Number(m[1]) : 200, { 'content-type': 'application/json', 'content-length': String(body.length), ...extra });
    res.end(body);
  }

  const up: FakeUpstream = await startFake((r, res) => (r.method === 'POST' && r.path === '/token' ? token(r, res) : replay(r, res)));
  const serviceAccount = JSON.stringify({
    type: 'service_account',
    project_id: 'proj-conf',
    private_key_id: 'key-conf',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    token_uri: `${up.url}/token`,
  });
  return {
    url: up.url,
    serviceAccount,
    get requests() {
      return state.requests;
    },
    get exchanges() {
      return state.exchanges;
    },
    close: () => up.close(),
  };
}
