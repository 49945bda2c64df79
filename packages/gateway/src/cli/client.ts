/**
 * What the admin commands share: argument parsing, the stored credentials, and the HTTP client for
 * the admin API of a running gateway.
 */
import { mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const DEFAULT_URL = 'http://127.0.0.1:3000';

export interface Args {
  pos: string[];
  flags: Map<string, string[]>;
}

/** `--name value`, `--name=value`, boolean `--name` (listed in `booleans`), the rest positional. */
export function parseArgs(argv: string[], booleans: string[] = []): Args {
  const pos: string[] = [];
  const flags = new Map<string, string[]>();
  const add = (k: string, v: string) => flags.set(k, [...(flags.get(k) ?? []), v]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      pos.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) add(a.slice(2, eq), a.slice(eq + 1));
      else {
        const k = a.slice(2);
        const next = argv[i + 1];
        if (booleans.includes(k) || next === undefined || next.startsWith('--')) add(k, 'true');
        else {
          add(k, next);
          i++;
        }
      }
    } else pos.push(a);
  }
  return { pos, flags };
}

export const flag = (a: Args, k: string): string | undefined => a.flags.get(k)?.at(-1);
export const flags = (a: Args, k: string): string[] => a.flags.get(k) ?? [];
export const hasFlag = (a: Args, k: string): boolean => a.flags.has(k) && flag(a, k) !== 'false';

export class CliError extends Error {}

// ---- credentials ----

export function credentialsPath(): string {
  const base = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'gatehouse', 'credentials.json');
}

interface CredFile {
  default?: string;
  servers: Record<string, { token: string; username?: string }>;
}

export function readCredentials(): CredFile {
  try {
    const v = JSON.parse(readFileSync(credentialsPath(), 'utf8')) as CredFile;
    return { default: v.default, servers: v.servers ?? {} };
  } catch {
    return { servers: {} };
  }
}

export function saveCredentials(url: string, token: string, username: string): string {
  const f = readCredentials();
  f.servers[url] = { token, username };
  f.default = url;
  const p = credentialsPath();
  mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
  writeFileSync(p, JSON.stringify(f, null, 2) + '\n', { mode: 0o600 });
  chmodSync(p, 0o600);
  return p;
}

/** Forgets the stored token of `url` (after `gatehouse logout`). Returns whether there was one. */
export function forgetCredentials(url: string): boolean {
  const f = readCredentials();
  if (!f.servers[url]) return false;
  delete f.servers[url];
  if (f.default === url) delete f.default;
  writeFileSync(credentialsPath(), JSON.stringify(f, null, 2) + '\n', { mode: 0o600 });
  return true;
}

const normUrl = (u: string) => u.replace(/\/+$/, '');

/** The gateway address: --url, GATEHOUSE_URL, the last `gatehouse login`, else the default. */
export function resolveUrl(a: Args): string {
  return normUrl(flag(a, 'url') || process.env.GATEHOUSE_URL || readCredentials().default || DEFAULT_URL);
}

/** The access token: --token, GATEHOUSE_TOKEN, else the one stored by `gatehouse login` for this URL. */
export function resolveToken(a: Args, url: string): string | null {
  return flag(a, 'token') || process.env.GATEHOUSE_TOKEN || readCredentials().servers[url]?.token || null;
}

// ---- HTTP ----

export interface Envelope<T> {
  success: boolean;
  message: string;
  data: T;
}

export class Api {
  constructor(
    readonly url: string,
    private readonly token: string | null,
  ) {}

  static from(a: Args, needToken = true): Api {
    const url = resolveUrl(a);
    const token = resolveToken(a, url);
    if (needToken && !token) throw new CliError(`not logged in to ${url}: run "gatehouse login" or pass --token / set GATEHOUSE_TOKEN`);
    return new Api(url, token);
  }

  async call<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ data: T; message: string; res: Response }> {
    const r = await this.attempt<T>(method, path, body, headers);
    if (!r.success) throw new CliError(`${method} ${path} failed (${r.res.status}): ${r.message}`);
    return r;
  }

  /**
   * Like `call`, but an answer whose envelope says `success: false` with a 2xx status (an operation that ran and
   * reports its own failure, such as a channel test) is returned, not thrown.
   */
  async attempt<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ success: boolean; data: T; message: string; res: Response }> {
    let res: Response;
    try {
      res = await fetch(this.url + path, {
        method,
        headers: {
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
          ...headers,
        },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
    } catch (e) {
      throw new CliError(`cannot reach ${this.url}: ${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}`);
    }
    const text = await res.text();
    let env: Envelope<T> | null = null;
    try {
      env = JSON.parse(text) as Envelope<T>;
    } catch {}
    if (!res.ok || !env) {
      const msg = env?.message ?? (text.slice(0, 300) || res.statusText);
      throw new CliError(`${method} ${path} failed (${res.status}): ${msg}`);
    }
    return { success: env.success !== false, data: env.data, message: env.message, res };
  }

  get<T>(path: string) {
    return this.call<T>('GET', path).then((r) => r.data);
  }
}

// ---- output ----

export function table(rows: Record<string, unknown>[], cols: string[]): string {
  if (rows.length === 0) return '(none)\n';
  const cell = (v: unknown) =>
    v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v);
  const w = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(w[i]))
      .join('  ')
      .trimEnd();
  return [line(cols.map((c) => c.toUpperCase())), ...rows.map((r) => line(cols.map((c) => cell(r[c]))))].join('\n') + '\n';
}

export function out(s: string): void {
  process.stdout.write(s.endsWith('\n') ? s : s + '\n');
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Asks for a secret on the terminal without echoing it. */
export async function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) return (await readStdin()).split('\n')[0].trim();
  process.stdout.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (ch: string) => {
      for (const c of ch) {
        if (c === '\r' || c === '\n') {
          stdin.setRawMode(false);
          stdin.pause();
          stdin.off('data', onData);
          process.stdout.write('\n');
          resolve(buf);
          return;
        }
        if (c === '\u0003') {
          stdin.setRawMode(false);
          reject(new CliError('cancelled'));
          return;
        }
        if (c === '\u007f') buf = buf.slice(0, -1);
        else buf += c;
      }
    };
    stdin.on('data', onData);
  });
}
