/**
 * The web console, served from its build directory (`packages/web/dist`, or CONSOLE_DIR) on the
 * gateway's port: `index.html` uncached (`no-cache`, ETag) with a Content-Security-Policy that allows
 * no inline script, hashed `assets/*` cached for a year (`immutable`), other build files (favicon …)
 * uncached, precompressed `.br` / `.gz` siblings when the client accepts them.
 *
 * Client routes fall back to `index.html`: a GET or HEAD that accepts text/html, outside the API and
 * model-call families and outside every plugin's native route prefix. API and model routes always win;
 * an unknown `/api/x` stays a JSON 404.
 *
 * The build is checked once at start (`loadConsoleSite`): a missing `index.html`, or one that refers to
 * a file the build does not have, stops `gatehouse serve` with a message that says how to build it.
 * The file list is read at start: a new build needs a restart.
 */
import { createReadStream, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE, SESSION_HINT_COOKIE } from '../accounts/users.ts';
import { setSessionHint } from './login-step.ts';

/** The gateway package's directory, whether this file runs from `src/http/` or compiled into `dist/`. */
function gatewayPackageDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Where `npm run build -w @gatehouse/web` writes the console. */
export const DEFAULT_CONSOLE_DIR = resolve(gatewayPackageDir(), '../web/dist');

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const HTML_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** First path segments that belong to the gateway's APIs: never the console's. */
const API_SEGMENTS = new Set(['api', 'v1', 'v1beta', 'pg', 'mj', 'metrics', 'healthz', 'assets', 'mcp']);

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.xml': 'application/xml',
};

export function contentTypeOf(path: string): string {
  return TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

interface SiteFile {
  path: string;
  size: number;
  type: string;
  etag: string;
  /** Precompressed siblings (`x.js.br`, `x.js.gz`): path and size. */
  br?: { path: string; size: number };
  gz?: { path: string; size: number };
}

export interface ConsoleSite {
  dir: string;
  /** URL path (`/assets/index-abc.js`, `/favicon.svg`) → file. */
  files: Map<string, SiteFile>;
  index: SiteFile;
}

export class ConsoleBuildError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConsoleBuildError';
  }
}

const HOW_TO_BUILD =
  'Build it with "npm run build -w @gatehouse/web" (or run "npm install", which builds it), point CONSOLE_DIR at a build, or set CONSOLE_ENABLED=false to run the gateway without the console.';

function walk(dir: string, base: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, base, out);
    else if (st.isFile()) out.push(p.slice(base.length).split(sep).join('/'));
  }
}

const etagOf = (path: string, size: number, mtime: number) =>
  `"${createHash('sha1').update(`${path}:${size}:${mtime}`).digest('base64url').slice(0, 20)}"`;

/** Reads and checks a console build; throws ConsoleBuildError saying what is wrong and how to build it. */
export function loadConsoleSite(dirIn: string): ConsoleSite {
  const dir = resolve(dirIn);
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) {
    throw new ConsoleBuildError(`the web console is not built: ${indexPath} is missing. ${HOW_TO_BUILD}`);
  }
  const html = readFileSync(indexPath, 'utf8');
  if (!/<html[\s>]/i.test(html) || !/<script\b/i.test(html)) {
    throw new ConsoleBuildError(`the web console build in ${dir} is broken: index.html has no <html> or <script>. ${HOW_TO_BUILD}`);
  }
  const names: string[] = [];
  walk(dir, dir, names);
  const files = new Map<string, SiteFile>();
  const present = new Set(names);
  for (const name of names) {
    if (/\.(br|gz)$/.test(name) && present.has(name.replace(/\.(br|gz)$/, ''))) continue;
    const p = join(dir, name);
    const st = statSync(p);
    const f: SiteFile = { path: p, size: st.size, type: contentTypeOf(name), etag: etagOf(name, st.size, st.mtimeMs) };
    if (present.has(`${name}.br`)) f.br = { path: `${p}.br`, size: statSync(`${p}.br`).size };
    if (present.has(`${name}.gz`)) f.gz = { path: `${p}.gz`, size: statSync(`${p}.gz`).size };
    files.set(name, f);
  }
  // Every local script, style sheet and icon index.html names must be in the build.
  for (const m of html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)) {
    const ref = m[1];
    if (!ref.startsWith('/') || ref.startsWith('//')) continue;
    const path = ref.split(/[?#]/)[0];
    if (!files.has(path)) {
      throw new ConsoleBuildError(
        `the web console build in ${dir} is broken: index.html refers to ${path}, which is not in the build. ${HOW_TO_BUILD}`,
      );
    }
  }
  return { dir, files, index: files.get('/index.html')! };
}

/** Whether Accept-Encoding names `coding` with a q above 0. */
export function acceptsEncoding(header: string | undefined, coding: string): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [name, ...params] = part.trim().split(';');
    if (name.trim().toLowerCase() !== coding) return false;
    const q = params.map((x) => /^\s*q=([\d.]+)\s*$/i.exec(x)?.[1]).find((x) => x !== undefined);
    return q === undefined || Number(q) > 0;
  });
}

function sendFile(req: FastifyRequest, reply: FastifyReply, f: SiteFile, cache: string, extra: Record<string, string> = {}): FastifyReply {
  reply.header('cache-control', cache).header('etag', f.etag).header('x-content-type-options', 'nosniff');
  for (const [k, v] of Object.entries(extra)) reply.header(k, v);
  if (f.br || f.gz) reply.header('vary', 'Accept-Encoding');
  const inm = req.headers['if-none-match'];
  if (typeof inm === 'string' && inm.split(',').some((t) => t.trim() === f.etag)) return reply.code(304).send();
  let body = { path: f.path, size: f.size };
  if (f.br && acceptsEncoding(req.headers['accept-encoding'], 'br')) {
    body = f.br;
    reply.header('content-encoding', 'br');
  } else if (f.gz && acceptsEncoding(req.headers['accept-encoding'], 'gzip')) {
    body = f.gz;
    reply.header('content-encoding', 'gzip');
  }
  reply.type(f.type).header('content-length', String(body.size));
  if (req.method === 'HEAD') return reply.send();
  return reply.send(createReadStream(body.path));
}

/**
 * The console page, with the signed-in hint brought in line with the session cookie the browser sent
 * (a session opened before the hint existed, or one whose cookie is gone).
 */
const sendIndex = (req: FastifyRequest, reply: FastifyReply, site: ConsoleSite) => {
  const session = Boolean(req.cookies?.[SESSION_COOKIE]);
  if (session !== (req.cookies?.[SESSION_HINT_COOKIE] === '1')) setSessionHint(req, reply, session);
  return sendFile(req, reply, site.index, 'no-cache', HTML_HEADERS);
};

/**
 * For requests no route took (the native-route catch-all's misses and the app's 404): serves a build
 * file at the top level or, for a client route, `index.html`. Returns false when the request is not
 * the console's (the caller answers its 404).
 */
export function serveConsoleFallback(
  site: ConsoleSite | null | undefined,
  req: FastifyRequest,
  reply: FastifyReply,
  ownsPrefix: (path: string) => boolean,
): boolean {
  if (!site || (req.method !== 'GET' && req.method !== 'HEAD')) return false;
  const path = req.url.split('?')[0];
  const first = path.split('/')[1] ?? '';
  if (API_SEGMENTS.has(first) || ownsPrefix(path)) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false;
  }
  const file = site.files.get(decoded);
  if (file && file !== site.index && !decoded.slice(1).includes('/')) {
    sendFile(req, reply, file, 'no-cache');
    return true;
  }
  const accept = req.headers.accept;
  if (typeof accept !== 'string' || !accept.includes('text/html')) return false;
  sendIndex(req, reply, site);
  return true;
}

/** `GET /`, `GET /index.html` and `GET /assets/*` (404 for a missing asset: never index.html in its place). */
export function registerConsoleRoutes(app: FastifyInstance, site: ConsoleSite): void {
  app.get('/', (req, reply) => sendIndex(req, reply, site));
  app.get('/index.html', (req, reply) => sendIndex(req, reply, site));
  app.get('/assets/*', (req, reply) => {
    const path = req.url.split('?')[0];
    let decoded: string | null = null;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      /* a malformed escape is a 404 */
    }
    const f = decoded ? site.files.get(decoded) : undefined;
    if (!f) return reply.code(404).type('text/plain; charset=utf-8').header('cache-control', 'no-cache').send('not found');
    return sendFile(req, reply, f, IMMUTABLE);
  });
}
