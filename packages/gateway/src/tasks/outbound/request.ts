/**
 * Executes the HTTP descriptors plugins return (submit, query, batch query): host allow-list, JSON
 * default body, multipart `parts` with `fileRef`, `__fileRef` placeholders, file/total/response size
 * limits and time-outs. Plugins never see file bytes; the host puts them on the wire.
 *
 * Errors say whether the upstream certainly did not receive the request (`sent: false`, safe to
 * retry elsewhere) or may have (`sent: true`, outcome unknown).
 */
import { request, type Dispatcher } from 'undici';
import { injectContext, tracer } from '../../platform/tracing.ts';
import type { FileReference } from '@gatehouse/plugin-sdk';
import { ERRORS, GatewayError, catalogArgs, type ErrorCode } from '../../platform/errors.ts';
import { checkHost, parseUpstreamUrl } from './hosts.ts';

/** A request file as plugins see it (`request_file:<field>[#i]`); the contract's FileReference. */
export type FileRef = FileReference;

/** A request file kept by the host (in memory, within limits); plugins only see its FileRef. */
export interface UploadedFile extends FileRef {
  data: Buffer;
}

/** The reference plugins see for a kept file. */
export const fileRefOf = ({ ref, field, filename, mimeType, size }: UploadedFile): FileRef => ({ ref, field, filename, mimeType, size });

export interface OutboundLimits {
  /** Largest single file put on the wire (and default cap of a placeholder). */
  maxFileBytes: number;
  /** All files of one request together. */
  maxTotalFileBytes: number;
  /** Largest JSON/text response read. */
  maxResponseBytes: number;
  /** Until response headers. */
  headersTimeoutMs: number;
  /** Between body chunks. */
  bodyTimeoutMs: number;
}

export const DEFAULT_LIMITS: OutboundLimits = {
  maxFileBytes: 64 * 1024 * 1024,
  maxTotalFileBytes: 64 * 1024 * 1024,
  maxResponseBytes: 1024 * 1024,
  headersTimeoutMs: 60_000,
  bodyTimeoutMs: 60_000,
};

export interface OutboundTarget {
  baseUrl: string;
  allowedHosts: readonly string[];
  files?: ReadonlyMap<string, UploadedFile>;
  defaultMethod: string;
}

export interface Descriptor {
  url?: unknown;
  method?: unknown;
  headers?: unknown;
  body?: unknown;
  bodyType?: unknown;
  parts?: unknown;
  responseType?: unknown;
  credentialless?: unknown;
  action?: unknown;
  model?: unknown;
  rewriteModel?: unknown;
}

export interface BuiltRequest {
  url: URL;
  method: Dispatcher.HttpMethod;
  headers: Record<string, string>;
  body?: string | Buffer | FormData;
}

export class OutboundError extends GatewayError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly sent: boolean,
  ) {
    super(...catalogArgs(code, message));
  }
}

const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'accept-encoding',
]);

const invalid = (msg: string) => new OutboundError('plugin_response_invalid', msg, false);

export function sanitizeHeaders(h: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (h === undefined || h === null) return out;
  if (typeof h !== 'object' || Array.isArray(h)) throw invalid('plugin request headers must be an object');
  const entries = Object.entries(h as Record<string, unknown>);
  if (entries.length > 64) throw invalid('plugin request has too many headers');
  for (const [k, v] of entries) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k)) throw invalid(`invalid header name "${k.slice(0, 64)}"`);
    if (FORBIDDEN_HEADERS.has(k.toLowerCase())) continue;
    const s = typeof v === 'string' ? v : String(v);
    if (s.length > 8192 || /[\r\n\0]/.test(s)) throw invalid(`invalid value for header ${k}`);
    out[k] = s;
  }
  return out;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);

/** Turns a plugin descriptor into bytes on the wire (no I/O). */
export function buildRequest(desc: Descriptor, target: OutboundTarget, limits: OutboundLimits): BuiltRequest {
  if (!desc || typeof desc !== 'object') throw invalid('plugin returned no request descriptor');
  let url: URL;
  try {
    url = parseUpstreamUrl(desc.url);
    checkHost(url, target.baseUrl, target.allowedHosts);
  } catch (e) {
    const code = e instanceof GatewayError && e.code in ERRORS ? (e.code as ErrorCode) : 'plugin_response_invalid';
    throw new OutboundError(code, (e as Error).message, false);
  }
  const method = (typeof desc.method === 'string' && desc.method ? desc.method : target.defaultMethod).toUpperCase();
  if (!METHODS.has(method)) throw invalid(`method ${method.slice(0, 16)} is not allowed`);
  const headers = sanitizeHeaders(desc.headers);
  const files = target.files ?? new Map<string, UploadedFile>();
  let total = 0;
  const useFile = (ref: unknown, cap?: number): UploadedFile => {
    if (typeof ref !== 'string' || !files.has(ref))
      throw new OutboundError('unknown_file_reference', `unknown file reference "${String(ref).slice(0, 80)}"`, false);
    const f = files.get(ref)!;
    const limit = Math.min(cap ?? limits.maxFileBytes, limits.maxFileBytes);
    if (f.size > limit) throw new OutboundError('file_too_large', `file ${f.filename} is larger than ${limit} bytes`, false);
    total += f.size;
    if (total > limits.maxTotalFileBytes)
      throw new OutboundError('files_too_large', `files together are larger than ${limits.maxTotalFileBytes} bytes`, false);
    return f;
  };
  if (desc.bodyType === 'multipart') {
    if (!Array.isArray(desc.parts)) throw invalid('multipart request needs parts');
    const form = new FormData();
    for (const p of desc.parts as Array<Record<string, unknown>>) {
      if (!p || typeof p.name !== 'string' || !p.name) throw invalid('every multipart part needs a name');
      if (p.fileRef !== undefined) {
        const f = useFile(p.fileRef);
        const blob = new Blob([f.data], { type: f.mimeType || 'application/octet-stream' });
        form.append(p.name, blob, typeof p.filename === 'string' && p.filename ? p.filename : f.filename);
      } else {
        form.append(
          p.name,
          p.value === undefined || p.value === null ? '' : typeof p.value === 'string' ? p.value : JSON.stringify(p.value),
        );
      }
    }
    for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-type') delete headers[k];
    return { url, method: method as Dispatcher.HttpMethod, headers, body: form };
  }
  if (desc.body === undefined || desc.body === null) return { url, method: method as Dispatcher.HttpMethod, headers };
  if (typeof desc.body === 'string') return { url, method: method as Dispatcher.HttpMethod, headers, body: desc.body };
  const body = replacePlaceholders(desc.body, useFile, 0);
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  return { url, method: method as Dispatcher.HttpMethod, headers, body: JSON.stringify(body) };
}

function replacePlaceholders(v: unknown, useFile: (ref: unknown, cap?: number) => UploadedFile, depth: number): unknown {
  if (depth > 64) throw invalid('request body is nested too deeply');
  if (Array.isArray(v)) return v.map((x) => replacePlaceholders(x, useFile, depth + 1));
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('__fileRef' in o) {
      for (const k of Object.keys(o))
        if (!['__fileRef', 'encoding', 'mimeType', 'maxBytes'].includes(k)) throw invalid('invalid file placeholder');
      if (o.maxBytes !== undefined && !(Number.isInteger(o.maxBytes) && (o.maxBytes as number) > 0))
        throw invalid('invalid file placeholder: maxBytes');
      const f = useFile(o.__fileRef, o.maxBytes as number | undefined);
      const b64 = f.data.toString('base64');
      if (o.encoding === 'base64' || o.encoding === undefined) return b64;
      if (o.encoding === 'dataUrl') {
        const mime = typeof o.mimeType === 'string' && o.mimeType ? o.mimeType : f.mimeType || 'application/octet-stream';
        return `data:${mime};base64,${b64}`;
      }
      throw invalid('invalid file placeholder: encoding');
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = replacePlaceholders(x, useFile, depth + 1);
    return out;
  }
  return v;
}

const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
]);

export interface RawResponse {
  status: number;
  headers: Record<string, string[]>;
  body: Dispatcher.ResponseData['body'];
}

/**
 * Sends a built request through `dispatcher` (the outbound client's, core.outbound.agent); a
 * transport failure is an OutboundError telling whether it was sent.
 */
export async function send(b: BuiltRequest, limits: OutboundLimits, dispatcher: Dispatcher, signal?: AbortSignal): Promise<RawResponse> {
  // The active span's W3C trace context goes to the vendor (only when tracing is on).
  if (tracer) injectContext(b.headers);
  try {
    const res = await request(b.url, {
      method: b.method,
      headers: b.headers,
      body: b.body as never,
      headersTimeout: limits.headersTimeoutMs,
      bodyTimeout: limits.bodyTimeoutMs,
      dispatcher,
      signal,
    });
    return { status: res.statusCode, headers: multiHeaders(res.headers), body: res.body };
  } catch (e) {
    const err = e as { code?: string; cause?: { code?: string }; message?: string };
    const code = err.code ?? err.cause?.code ?? '';
    const sent = !NOT_SENT_CODES.has(code);
    const timeout = /TIMEOUT/.test(code);
    throw new OutboundError(
      timeout ? 'upstream_timeout' : 'upstream_unreachable',
      `upstream ${timeout ? 'timed out' : 'could not be reached'} (${code || 'transport error'})`,
      sent,
    );
  }
}

export function multiHeaders(h: Record<string, string | string[] | undefined>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v : [v];
  return out;
}

export function firstHeaders(h: Record<string, string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v.length) out[k] = v[0];
  return out;
}

/** Reads a whole body up to `max` bytes; larger bodies are an error (the stream is destroyed). */
export async function readLimited(body: RawResponse['body'], max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  try {
    for await (const c of body) {
      n += (c as Buffer).length;
      if (n > max) {
        body.destroy();
        throw new OutboundError('upstream_response_too_large', `upstream response is larger than ${max} bytes`, true);
      }
      chunks.push(c as Buffer);
    }
  } catch (e) {
    if (e instanceof OutboundError) throw e;
    const code = (e as { code?: string }).code ?? '';
    throw new OutboundError(
      /TIMEOUT/.test(code) ? 'upstream_read_timeout' : 'upstream_read_failed',
      `reading the upstream response failed (${code || 'error'})`,
      true,
    );
  }
  return Buffer.concat(chunks);
}

/** JSON when it parses, else the text. */
export function decodeBody(buf: Buffer): unknown {
  const s = buf.toString('utf8');
  if (!s) return null;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
