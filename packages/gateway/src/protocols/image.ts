/**
 * Image results (docs/protocols.md): the `render` result is checked and `created` added; for
 * `response_format: b64_json` the host downloads each URL and adds Base64 while keeping the URL, and
 * logs a warning when a download fails (the caller then gets the URL only).
 */
import { request, type Dispatcher } from 'undici';
import { GatewayError, fail } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';

export interface ImageItem {
  url?: string;
  b64_json?: string;
  revised_prompt?: string;
  [k: string]: unknown;
}
export interface ImageResult {
  created: number;
  data: ImageItem[];
  [k: string]: unknown;
}

function invalid(msg: string): GatewayError {
  return fail('plugin_render_invalid', msg);
}

/** Checks a render result: `{data: [{url} | {b64_json}, ...]}`; adds `created` when missing. */
export function shapeImageResult(rendered: unknown, createdSec: number): ImageResult {
  if (!rendered || typeof rendered !== 'object' || Array.isArray(rendered))
    throw invalid('the image render hook must return an object with a data array');
  const r = rendered as Record<string, unknown>;
  if (!Array.isArray(r.data)) throw invalid('the image render hook must return an object with a data array');
  const data = r.data.map((it, i) => {
    const item = it as Record<string, unknown>;
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw invalid(`data[${i}] must be an object`);
    const url = typeof item.url === 'string' && item.url ? item.url : undefined;
    const b64 = typeof item.b64_json === 'string' && item.b64_json ? item.b64_json : undefined;
    if (!url && !b64) throw invalid(`data[${i}] needs url or b64_json`);
    const out: ImageItem = {};
    if (url) out.url = url;
    if (b64) out.b64_json = b64;
    if (typeof item.revised_prompt === 'string') out.revised_prompt = item.revised_prompt;
    return out;
  });
  const created = typeof r.created === 'number' && Number.isFinite(r.created) && r.created > 0 ? Math.floor(r.created) : createdSec;
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) if (k !== 'data' && k !== 'created') extra[k] = v;
  return { ...extra, created, data };
}

export interface DownloadLimits {
  /** Per image. */
  maxBytes: number;
  timeoutMs: number;
  /**
   * The outbound client's dispatcher for content (core.outbound.content): it refuses non-public
   * addresses, literal or resolved (platform/ssrf.ts), unless CONTENT_ALLOW_PRIVATE_ADDRESSES=true.
   */
  dispatcher: Dispatcher;
}

/** Downloads one image within the limits; returns its bytes. */
export async function downloadImage(url: string, lim: DownloadLimits): Promise<Buffer> {
  if (url.startsWith('data:')) {
    const m = /^data:[^;,]*(;base64)?,(.*)$/s.exec(url);
    if (!m) throw new Error('invalid data URL');
    const buf = m[1] ? Buffer.from(m[2], 'base64') : Buffer.from(decodeURIComponent(m[2]));
    if (buf.length > lim.maxBytes) throw new Error('image exceeds the size limit');
    return buf;
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error('invalid image URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('image URL must be http(s)');
  if (u.username || u.password) throw new Error('image URL must not carry credentials');
  const res = await request(u, { method: 'GET', headersTimeout: lim.timeoutMs, bodyTimeout: lim.timeoutMs, dispatcher: lim.dispatcher });
  if (res.statusCode !== 200) {
    await res.body.dump().catch(() => undefined);
    throw new Error(`image download answered HTTP ${res.statusCode}`);
  }
  const len = Number(res.headers['content-length']);
  if (Number.isFinite(len) && len > lim.maxBytes) {
    res.body.on('error', () => undefined).destroy();
    throw new Error('image exceeds the size limit');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of res.body) {
    size += (c as Buffer).length;
    if (size > lim.maxBytes) {
      res.body.on('error', () => undefined).destroy();
      throw new Error('image exceeds the size limit');
    }
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Adds `b64_json` to every item that has a URL but no Base64, keeping the URL. A failed download
 * leaves the item as it is and logs a warning (with the task id, never the URL's query string).
 */
export async function addBase64(
  result: ImageResult,
  lim: DownloadLimits,
  log: Logger,
  taskId: string,
  download = downloadImage,
): Promise<ImageResult> {
  const data = await Promise.all(
    result.data.map(async (item, i) => {
      if (item.b64_json || !item.url) return item;
      try {
        const buf = await download(item.url, lim);
        return { ...item, b64_json: buf.toString('base64') };
      } catch (e) {
        log.warn(
          { taskId, index: i, host: safeHost(item.url), err: (e as Error).message },
          'image download for b64_json failed; returning the URL only',
        );
        return item;
      }
    }),
  );
  return { ...result, data };
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'data';
  }
}

/** `response_format` of a JSON body or form fields. */
export function wantsB64(body: { kind: string; value?: unknown; fields?: Record<string, string[]> }): boolean {
  if (body.kind === 'json') return (body.value as { response_format?: unknown } | null)?.response_format === 'b64_json';
  if (body.kind === 'multipart' || body.kind === 'form') return body.fields?.response_format?.[0] === 'b64_json';
  return false;
}
