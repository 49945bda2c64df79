/**
 * Host halves of the sandbox `utils` (docs/plugins.md). Each takes strings (the isolate side
 * converts its arguments) and returns strings; a thrown error surfaces inside the plugin as an Error.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { stableJson } from '../../platform/validate.ts';

const sha256hex = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const hmac = (key: string | Buffer, msg: string) => createHmac('sha256', key).update(msg, 'utf8').digest();

export function hmacSHA256(message: string, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(message, 'utf8').digest('hex');
}

export const base64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
export const base64URL = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

/** Strict unpadded base64url: only [A-Za-z0-9_-], no padding, a length that encodes whole bytes. */
export function base64URLDecode(s: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error('base64URLDecode: illegal base64url data (only A-Z a-z 0-9 - _ without padding)');
  if (s.length % 4 === 1) throw new Error('base64URLDecode: illegal base64url data (truncated input)');
  const buf = Buffer.from(s, 'base64url');
  // Reject non-canonical trailing bits so one string has one decoding.
  if (buf.toString('base64url') !== s) throw new Error('base64URLDecode: illegal base64url data (non-canonical trailing bits)');
  return buf.toString('utf8');
}

/** HS256 compact JWT. Claims are encoded with sorted keys, like a Go map. `claimsJson` "null" means {}. */
export function jwtSignHS256(claimsJson: string, secret: string): string {
  const parsed = JSON.parse(claimsJson) as unknown;
  if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed)))
    throw new TypeError('jwtSignHS256: claims must be an object');
  const header = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url');
  const payload = Buffer.from(stableJson(parsed ?? {}), 'utf8').toString('base64url');
  const sig = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${sig}`;
}

export const uuid = () => randomUUID();

/** Go url.QueryEscape: everything but [A-Za-z0-9-_.~] percent-encoded, space as '+'. */
function queryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, '+');
}

function xDate(sec: number): string {
  return new Date(sec * 1000)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * Volcengine HMAC-SHA256 V4 signer. Field names are matched case-insensitively, so the Go-cased
 * (`Method`, `URL`, `AccessKey`, ...) and the lowercase spellings both work.
 */
export function volcSignV4(reqJson: string, nowSec: number): string {
  const req = JSON.parse(reqJson) as Record<string, unknown> | null;
  if (!req || typeof req !== 'object' || Array.isArray(req)) throw new TypeError('volcSignV4: request must be an object');
  const lower = new Map<string, unknown>();
  for (const [k, v] of Object.entries(req)) if (!lower.has(k.toLowerCase())) lower.set(k.toLowerCase(), v);
  const str = (k: string, def = '') => {
    const v = lower.get(k);
    return v === undefined || v === null || v === '' ? def : String(v);
  };
  let url: URL;
  try {
    url = new URL(str('url'));
  } catch {
    throw new Error('volcSignV4: URL must be an absolute URL');
  }
  const method = str('method', 'GET').toUpperCase();
  const body = str('body');
  const ak = str('accesskey');
  const sk = str('secretkey');
  const region = str('region', 'cn-north-1');
  const service = str('service', 'cv');
  const tsRaw = lower.get('timestamp');
  const ts =
    typeof tsRaw === 'number' && tsRaw > 0 ? Math.floor(tsRaw) : typeof tsRaw === 'string' && /^\d+$/.test(tsRaw) ? Number(tsRaw) : nowSec;
  const xdate = xDate(ts);
  const date = xdate.slice(0, 8);
  const bodyHash = sha256hex(Buffer.from(body, 'utf8'));

  const headers = new Map<string, string>();
  const given = lower.get('headers');
  if (given && typeof given === 'object' && !Array.isArray(given)) {
    for (const [k, v] of Object.entries(given as Record<string, unknown>)) headers.set(k.trim().toLowerCase(), String(v ?? '').trim());
  }
  headers.set('host', url.host);
  headers.set('x-date', xdate);
  headers.set('x-content-sha256', bodyHash);
  const names = [...headers.keys()].sort();
  const canonicalHeaders = names.map((n) => `${n}:${headers.get(n)}\n`).join('');
  const signedHeaders = names.join(';');

  const qkeys = [...new Set([...url.searchParams.keys()])].sort();
  const query = qkeys.flatMap((k) => url.searchParams.getAll(k).map((v) => `${queryEscape(k)}=${queryEscape(v)}`)).join('&');
  const path = url.pathname || '/';
  const canonicalRequest = [method, path, query, canonicalHeaders, signedHeaders, bodyHash].join('\n');
  const scope = `${date}/${region}/${service}/request`;
  const stringToSign = `HMAC-SHA256\n${xdate}\n${scope}\n${sha256hex(canonicalRequest)}`;
  const kDate = hmac(Buffer.from(sk, 'utf8'), date);
  const kRegion = hmac(kDate, region);
  const kService = hmac(kRegion, service);
  const kSigning = hmac(kService, 'request');
  const signature = createHmac('sha256', kSigning).update(stringToSign).digest('hex');
  return JSON.stringify({
    Authorization: `HMAC-SHA256 Credential=${ak}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
    'X-Date': xdate,
    'X-Content-Sha256': bodyHash,
  });
}
