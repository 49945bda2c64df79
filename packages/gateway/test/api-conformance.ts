/**
 * Every JSON answer of `/api` a test receives from a gateway started by the harness is checked against
 * the gateway's own OpenAPI document (GET /api/openapi.json): the response schema of its route and
 * status. An answer of a route that declares its schemas (or of an area whose routes do, CONVERTED)
 * and does not match makes the fetch throw, so the test that made the call fails, and fails the test
 * process when it ends; one of a route only described (`x-described-only`, from http/docs/) is
 * reported once when the process ends. The document is read once per gateway and each
 * route's schema compiled once, on first use.
 */
import { Ajv, type ValidateFunction } from 'ajv';

type Doc = {
  paths: Record<string, Record<string, { responses?: Record<string, Response>; 'x-described-only'?: boolean }>>;
  components: unknown;
};
type Response = { content?: Record<string, { schema?: unknown }> };
type Checker = (method: string, path: string, status: number, body: unknown) => { problem: string; strict: boolean } | null;

const gateways = new Map<string, Promise<Checker> | null>();
const realFetch = globalThis.fetch;

/** Checks the `/api` answers of the gateway at `origin` from now on. */
export function checkApiAnswers(origin: string): void {
  if (!gateways.has(origin)) gateways.set(origin, null);
}

/** A path template as a pattern; `wide`: its last parameter may span segments (a wildcard route's, `/api/price/{model}`). */
function pattern(path: string, wide = false): RegExp {
  let re = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
  if (wide) re = re.replace(/\[\^\/\]\+(?!.*\[\^\/\]\+)/, '.+');
  return new RegExp(`^${re}$`);
}

async function checkerFor(origin: string): Promise<Checker> {
  const doc = (await (await realFetch(`${origin}/api/openapi.json`)).json()) as Doc;
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema(JSON.parse(JSON.stringify({ components: doc.components }).replaceAll('"#/components/', '"doc#/components/')), 'doc');
  // Literal paths before templated ones: /api/token/search is not /api/token/{id}.
  const routes = Object.keys(doc.paths)
    .map((p) => ({ p, re: pattern(p), wide: pattern(p, true), params: (p.match(/\{/g) ?? []).length }))
    .sort((a, b) => a.params - b.params);
  const compiled = new Map<string, ValidateFunction | null>();
  const errorSchema = { $ref: 'doc#/components/schemas/AdminError' };
  return (method, path, status, body) => {
    const route =
      routes.find((r) => r.re.test(path) && doc.paths[r.p][method]) ?? routes.find((r) => r.wide.test(path) && doc.paths[r.p][method]);
    // A path no route serves answers 404 (405 for another method): nothing to describe.
    if (!route)
      return status === 404 || status === 405
        ? null
        : { problem: `${method.toUpperCase()} ${path} is not in the OpenAPI document`, strict: true };
    const key = `${method} ${route.p} ${status}`;
    let validate = compiled.get(key);
    if (validate === undefined) {
      const resp = doc.paths[route.p][method].responses ?? {};
      const declared = resp[String(status)]?.content?.['application/json']?.schema;
      const schema = declared ?? (status >= 400 ? errorSchema : null);
      validate = schema ? ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'))) : null;
      compiled.set(key, validate);
    }
    if (!validate || validate(body)) return null;
    const e = validate.errors?.[0];
    const problem = `${method.toUpperCase()} ${route.p} answered ${status} with a body its OpenAPI schema refuses: ${e?.instancePath || '(root)'} ${e?.message ?? ''} (${JSON.stringify(e?.params)})`;
    return { problem, strict: !doc.paths[route.p][method]['x-described-only'] };
  };
}

/** What the document says of an answer: null when it matches (the check each fetch runs). */
export async function answerProblem(origin: string, method: string, path: string, status: number, body: unknown): Promise<string | null> {
  return (await checkerFor(origin))(method.toLowerCase(), path, status, body)?.problem ?? null;
}

globalThis.fetch = async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<globalThis.Response> {
  const res = await realFetch(input, init);
  if (!gateways.size) return res;
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  if (!gateways.has(url.origin) || !url.pathname.startsWith('/api/') || url.pathname === '/api/openapi.json') return res;
  if (!(res.headers.get('content-type') ?? '').includes('application/json')) return res;
  // The body is read here once and the caller gets a fresh answer of the same text: a clone of an answer whose
  // first clone was read can fail on Node.js 22 ("Body has already been consumed"), and tests clone answers freely.
  const text = await res.text();
  const answer = new Response([204, 205, 304].includes(res.status) ? null : text, {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
  Object.defineProperty(answer, 'url', { value: res.url });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return answer;
  }
  let checker = gateways.get(url.origin);
  if (!checker) gateways.set(url.origin, (checker = checkerFor(url.origin)));
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toLowerCase();
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const found = (await checker)(method, path, res.status, body);
  if (found?.strict || (found && converted(path))) {
    // Said again at the end and failing the process: a test that catches the error still fails.
    failures.add(found.problem);
    throw new Error(found.problem);
  }
  if (found) drifts.add(found.problem);
  return answer;
};

/**
 * The areas whose routes declare their schemas: an answer of theirs that differs from the document
 * fails the test process, even from a route of theirs that would still be only described.
 */
const CONVERTED = [
  '/api/plan',
  '/api/user/plan',
  '/api/channel',
  '/api/price',
  '/api/pricing',
  '/api/group_ratio',
  '/api/option',
  '/api/alert',
  '/api/mcp/',
  '/api/plugin/',
  '/api/task',
  '/api/team',
  '/api/token',
  '/api/audit',
  '/api/log',
  '/api/usage',
  '/api/quota/holds',
  '/api/user/teams',
  '/api/redemption',
  '/api/user/topup',
  '/api/user/stripe/pay',
  '/api/user/payments',
  '/api/stripe/webhook',
  '/api/user/self/alerts',
  '/api/user/login',
  '/api/user/logout',
  '/api/user/self',
  '/api/user/models',
  '/api/user/cli-session',
  '/api/user/token',
  '/api/user/signup',
  '/api/user/register',
  '/api/user/email',
  '/api/user/password',
  '/api/user/2fa',
  '/api/user/passkey',
  '/api/user/reauth',
  '/api/user/sso',
  '/api/sso',
];
const converted = (path: string) => CONVERTED.some((p) => path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`));

/** Differences of routes only described, said once at the end (they fail nothing); and those that fail the process. */
const drifts = new Set<string>();
const failures = new Set<string>();
process.on('exit', () => {
  if (failures.size) {
    process.stderr.write(`OpenAPI: ${failures.size} answer(s) differ from the document of routes that declare their schemas:\n`);
    for (const d of failures) process.stderr.write(`  ${d}\n`);
    process.exitCode = 1;
  }
  if (!drifts.size) return;
  process.stderr.write(`OpenAPI: ${drifts.size} answer(s) of described-only routes differ from the document:\n`);
  for (const d of drifts) process.stderr.write(`  ${d}\n`);
});
