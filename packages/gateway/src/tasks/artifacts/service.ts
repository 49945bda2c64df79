/**
 * Artifact reads: the list (with signed links) and the content proxy. Content is streamed from the
 * upstream, never buffered. Rules:
 *  - credentialed requests (plugin headers, channel credentials) go only to the channel host or the
 *    plugin's allowedHosts, and may follow same-origin redirects only;
 *  - `credentialless` requests (public CDNs) may only GET/HEAD, carry no plugin headers or body, and
 *    every address and redirect is checked (no private/loopback/link-local addresses unless
 *    CONTENT_ALLOW_PRIVATE_ADDRESSES=true);
 *  - only Range and conditional request headers pass from the client.
 */
import { request, type Dispatcher } from 'undici';
import type { Readable } from 'node:stream';
import { GatewayError, fail } from '../../platform/errors.ts';
import type { TaskService } from '../lifecycle/service.ts';
import { hookMessage } from '../lifecycle/service.ts';
import { artifactTask, channelAuth, effectiveBaseUrl, type Task } from '../lifecycle/context.ts';
import type { LoadedPlugin } from '../../plugins/runtime/loader.ts';
import { canonicalHost, hostAllowed } from '../outbound/hosts.ts';
import { sanitizeHeaders } from '../outbound/request.ts';
import { artifactUrl, validateArtifacts, type Artifact } from './links.ts';

export const PASSED_REQUEST_HEADERS = ['range', 'if-range', 'if-none-match', 'if-modified-since'];
const PASSED_RESPONSE_HEADERS = [
  'content-type',
  'content-length',
  'content-range',
  'accept-ranges',
  'etag',
  'last-modified',
  'content-disposition',
];

export interface ContentResponse {
  status: number;
  headers: Record<string, string>;
  body: Readable | null;
}

export class Artifacts {
  constructor(
    private readonly svc: TaskService,
    private readonly base: () => string,
  ) {}

  private plugin(t: Task): LoadedPlugin {
    const p = this.svc.generation().plugins.get(t.plugin_key);
    if (!p || !p.has('listArtifacts') || !p.has('buildContentRequest')) {
      throw fail('artifacts_not_supported', { plugin: t.plugin_key });
    }
    return p;
  }

  async describe(t: Task): Promise<Artifact[]> {
    if (t.status !== 'SUCCESS') return [];
    const p = this.plugin(t);
    try {
      return validateArtifacts(await p.call('listArtifacts', artifactTask(t)));
    } catch (e) {
      throw fail('plugin_artifacts_invalid', hookMessage(e));
    }
  }

  /** `{ task_id, artifacts: [{ key, type, mime_type?, content_url }] }` for the caller's own task. */
  async list(userId: number, taskId: string): Promise<{ task_id: string; artifacts: Array<Record<string, string>> }> {
    const t = await this.svc.own(userId, taskId);
    this.plugin(t);
    const items = await this.describe(t);
    const secret = this.svc.config.cryptoSecret;
    return {
      task_id: t.public_id,
      artifacts: items.map((a) => ({
        key: a.key,
        type: a.type,
        ...(a.mimeType ? { mime_type: a.mimeType } : {}),
        content_url: artifactUrl(this.base(), secret, t.public_id, a.key),
      })),
    };
  }

  /** Streams one artifact. `userId` null means a verified signed link. */
  async content(
    userId: number | null,
    taskId: string,
    key: string,
    method: 'GET' | 'HEAD',
    clientHeaders: Record<string, string | string[] | undefined>,
  ): Promise<ContentResponse> {
    const t = await this.svc.own(userId, taskId).catch(() => {
      throw fail('artifact_not_found');
    });
    const plugin = this.plugin(t);
    if (t.status !== 'SUCCESS') throw fail('artifact_not_ready', { status: t.status });
    const items = await this.describe(t);
    const art = items.find((a) => a.key === key);
    if (!art) throw fail('artifact_not_found', `task has no artifact "${key.slice(0, 128)}"`);
    const safe: Record<string, string> = {};
    for (const h of PASSED_REQUEST_HEADERS) {
      const v = clientHeaders[h];
      const s = Array.isArray(v) ? v[0] : v;
      if (typeof s === 'string' && s.length <= 1024 && !/[\r\n]/.test(s)) safe[h] = s;
    }
    const ch = this.svc.catalog.channel(t.channel_id);
    const auth = ch ? await channelAuth(plugin, ch, t.channel_key_index, this.svc.google) : { upstream: { kind: 'vendor' }, auth: {} };
    const baseUrl = ch ? effectiveBaseUrl(plugin, ch) : '';
    const ctx = {
      ...artifactTask(t),
      upstreamTaskId: t.upstream_task_id ?? '',
      artifactKey: key,
      baseUrl,
      clientRequest: { method, headers: safe },
      ...auth,
    };
    let desc: Record<string, unknown>;
    try {
      desc = (await plugin.call('buildContentRequest', ctx)) as Record<string, unknown>;
      if (!desc || typeof desc !== 'object') throw new Error('buildContentRequest returned no descriptor');
    } catch (e) {
      throw fail('plugin_content_request_invalid', hookMessage(e));
    }
    let url: URL;
    try {
      url = new URL(String(desc.url));
    } catch {
      throw fail('plugin_content_request_invalid', 'content url is not absolute');
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
      throw fail('plugin_content_request_invalid', 'content url must be http(s) without credentials');
    }
    this.refuseLoop(url);
    const credentialless = desc.credentialless === true;
    let upMethod = (typeof desc.method === 'string' && desc.method ? desc.method : method).toUpperCase();
    let headers: Record<string, string>;
    let body: string | undefined;
    if (credentialless) {
      if (upMethod !== 'GET' && upMethod !== 'HEAD')
        throw fail('plugin_content_request_invalid', 'credentialless content reads allow GET and HEAD only');
      headers = { ...safe };
    } else {
      if (!['GET', 'HEAD', 'POST'].includes(upMethod))
        throw fail('plugin_content_request_invalid', 'content requests allow GET, HEAD and POST only');
      if (!hostAllowed(url, baseUrl, plugin.manifest.allowedHosts ?? [])) {
        throw fail(
          'plugin_host_not_allowed',
          `content request to ${canonicalHost(url)} is not allowed: credentials go only to the channel host and allowedHosts`,
        );
      }
      headers = sanitizeHeaders(desc.headers);
      for (const k of Object.keys(headers)) if (k.toLowerCase() in safe) delete headers[k];
      Object.assign(headers, safe);
      if (desc.body !== undefined && desc.body !== null) {
        body = typeof desc.body === 'string' ? desc.body : JSON.stringify(desc.body);
        if (Buffer.byteLength(body) > 1024 * 1024)
          throw fail('plugin_content_request_invalid', 'content request body is larger than 1 MiB');
      }
    }
    if (method === 'HEAD' && upMethod === 'GET') upMethod = 'HEAD';
    const origin = url.origin;
    for (let hop = 0; hop <= 10; hop++) {
      let res: Dispatcher.ResponseData;
      try {
        res = await request(url, {
          method: upMethod as Dispatcher.HttpMethod,
          headers,
          body,
          headersTimeout: 60_000,
          bodyTimeout: 120_000,
          dispatcher: credentialless ? this.svc.outbound.content : this.svc.outbound.agent,
        });
      } catch (e) {
        const code = (e as { code?: string; cause?: { code?: string } }).code ?? (e as { cause?: { code?: string } }).cause?.code ?? '';
        if (code === 'ERR_BLOCKED_ADDRESS' || /not public/.test((e as Error).message)) throw fail('artifact_address_refused');
        if (/TIMEOUT/.test(code)) throw fail('artifact_upstream_timeout');
        throw fail('artifact_upstream_error', 'the artifact upstream could not be reached');
      }
      const s = res.statusCode;
      if ([301, 302, 303, 307, 308].includes(s)) {
        res.body.resume();
        const loc = res.headers.location;
        const l = Array.isArray(loc) ? loc[0] : loc;
        if (!l) throw fail('artifact_upstream_error', 'redirect without a location');
        let next: URL;
        try {
          next = new URL(l, url);
        } catch {
          throw fail('artifact_upstream_error', 'redirect to an invalid address');
        }
        if ((next.protocol !== 'http:' && next.protocol !== 'https:') || next.username || next.password || next.hash) {
          throw fail('artifact_redirect_refused', 'redirect to a refused address');
        }
        if (!credentialless && next.origin !== origin)
          throw fail('artifact_redirect_refused', 'a credentialed content request may not be redirected to another origin');
        this.refuseLoop(next);
        if (s === 303 && upMethod === 'POST') {
          upMethod = 'GET';
          body = undefined;
        }
        url = next;
        continue;
      }
      if ([200, 206, 304, 416].includes(s)) {
        const out: Record<string, string> = { 'cache-control': 'private, no-store', 'x-content-type-options': 'nosniff' };
        for (const h of PASSED_RESPONSE_HEADERS) {
          const v = res.headers[h];
          const str = Array.isArray(v) ? v[0] : v;
          if (typeof str === 'string') out[h] = str;
        }
        if (!out['content-type'] && art.mimeType) out['content-type'] = art.mimeType;
        if (method === 'HEAD' || s === 304) {
          res.body.resume();
          return { status: s, headers: out, body: null };
        }
        return { status: s, headers: out, body: res.body };
      }
      res.body.resume();
      if (s === 401 || s === 403) throw fail('artifact_upstream_auth_failed');
      if (s === 404 || s === 410) throw fail('artifact_gone');
      if (s === 429) throw fail('artifact_upstream_busy');
      throw fail('artifact_upstream_error', `the artifact upstream failed (HTTP ${s})`);
    }
    throw fail('artifact_redirect_refused', 'too many redirects');
  }

  private refuseLoop(u: URL): void {
    if (!/^\/v1\/tasks\/[^/]+\/artifacts\/[^/]+\/content$/.test(u.pathname)) return;
    try {
      if (new URL(this.base()).host === u.host) throw fail('artifact_proxy_loop');
    } catch (e) {
      if (e instanceof GatewayError) throw e;
    }
  }
}
