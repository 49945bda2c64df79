/**
 * Manifest validation and normalisation (docs/plugins.md, "The manifest"). The JSON Schema of
 * @gatehouse/plugin-sdk checks structure first; the rules below check what a schema cannot say and
 * produce the normalised manifest the host works with. Every error names the field and the rule.
 */
import AjvModule, { type ErrorObject } from 'ajv';
import {
  manifestSchema,
  CAPABILITIES,
  PROTOCOL_ALIASES,
  RESPONSES_MODES,
  UPSTREAM_ALIASES,
  type Manifest,
  type NativeRoute,
  type ProtocolName,
  type ResponsesMode,
  type UpstreamKind,
} from '@gatehouse/plugin-sdk';
import { PluginLoadError } from './errors.ts';
import { parsePath, reservedIntersection, type ParsedPath } from './routes.ts';

// ajv is CommonJS: the default import is the class itself, which also carries `.default`.
const Ajv = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as typeof AjvModule.default;
let compiled: ReturnType<InstanceType<typeof Ajv>['compile']> | undefined;
/** The manifest schema's validator, compiled when the first manifest is read (not at start: it allocates megabytes). */
const manifestValidator = () => (compiled ??= new Ajv({ allErrors: true, strict: false }).compile(manifestSchema));

export type LocalizedMap = Record<string, string>;

export interface UsageFieldN {
  type: 'number' | 'boolean' | 'enum';
  unit?: 'second' | 'count' | 'token' | 'credit';
  unitLabel?: LocalizedMap;
  enum?: string[];
  enumLabels?: Record<string, LocalizedMap>;
  description?: LocalizedMap;
}
export type UsageSchemaN = Record<string, UsageFieldN>;
export interface UsageExampleN {
  label: string;
  facts: Record<string, string | number | boolean>;
}
export interface UsageProfileN {
  models: string[];
  schema: UsageSchemaN;
  examples: UsageExampleN[];
}

/** A route as declared (the contract's NativeRoute), with its default retainResult and parsed path. */
export interface NormalisedRoute extends Omit<NativeRoute, 'retainResult'> {
  retainResult: boolean;
  parsed: ParsedPath;
}

export interface NormalisedClaim {
  /** Internal spelling. */
  name: ProtocolName;
  /** As written in the manifest (`openai_image` or `compat_image`, ...). */
  spelling: string;
  /** Models served through the claim (the claim's list, else every manifest model). */
  models: string[];
  explicitModels: boolean;
  /** Responses modes in host order (stream, sync, background); empty for image and video. */
  supports: ResponsesMode[];
}

/** The manifest the host works with: the contract's required fields as written, the rest normalised. */
export interface NormalisedManifest extends Pick<Manifest, 'apiVersion' | 'key' | 'name' | 'version' | 'author' | 'models' | 'fetchMode'> {
  description: LocalizedMap | null;
  icon: string;
  website: string;
  sortPriority: number;
  baseUrl: string;
  allowedHosts: string[];
  upstreams: UpstreamKind[];
  auth: 'none' | 'api_key' | 'oauth2_jwt';
  channelTypes: number[];
  routes: NormalisedRoute[];
  protocols: NormalisedClaim[];
  usageSchema: UsageSchemaN;
  usageExamples: UsageExampleN[];
  usageProfiles: UsageProfileN[];
  requiredCapabilities: string[];
  submitResponseTypes: NonNullable<Manifest['submitResponseTypes']>;
}

const fail = (field: string, rule: string): never => {
  throw new PluginLoadError(`meta.${field}: ${rule}`, field);
};
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const runes = (s: string) => [...s].length;
export const foldModel = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

const LEGACY: Record<string, string> = {
  channelType: 'declare channelTypes instead',
  compatibleChannelTypes: 'declare channelTypes instead',
  endpoints: 'declare protocols by name instead',
  submitPaths: 'declare routes instead',
  actions: 'declare routes instead',
};

function errorPath(e: ErrorObject): string {
  const x = e as unknown as { instancePath?: string; dataPath?: string };
  return x.instancePath ?? x.dataPath ?? '';
}

function pointerToField(ptr: string): string {
  if (!ptr.startsWith('/')) return ptr.replace(/\['([^']*)'\]/g, '.$1').replace(/^\./, '');
  return ptr
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p.replace(/~1/g, '/').replace(/~0/g, '~')}`))
    .join('')
    .replace(/^\./, '');
}

function schemaMessage(e: ErrorObject): string {
  const field = pointerToField(errorPath(e)) || '(root)';
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return errorPath(e) === ''
        ? `meta has unknown field "${String(p.additionalProperty)}"`
        : `meta.${field}: unknown field "${String(p.additionalProperty)}"`;
    case 'required':
      return `meta.${field === '(root)' ? '' : field + '.'}${String(p.missingProperty)}: is required`;
    case 'pattern': {
      const rules: Record<string, string> = {
        key: 'must match ^[a-z0-9][a-z0-9_-]*$ (lowercase letters, digits, "_" and "-")',
        version: 'must be a semantic version MAJOR.MINOR.PATCH[-pre][+build] without leading zeros',
        name: 'must not be blank',
        'author.name': 'must not be blank',
        'author.url': 'must be an absolute http(s) URL',
      };
      return `meta.${field}: ${rules[field] ?? `must match ${String(p.pattern)}`}`;
    }
    case 'maxLength':
      return `meta.${field}: must be at most ${String(p.limit)} characters`;
    case 'minLength':
      return `meta.${field}: must not be empty`;
    case 'const':
      return `meta.${field}: must be ${JSON.stringify(p.allowedValue)}`;
    case 'enum':
      return `meta.${field}: must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'uniqueItems':
      return `meta.${field}: must not contain duplicates (items ${String(p.j)} and ${String(p.i)} are equal)`;
    case 'minItems':
      return `meta.${field}: must have at least ${String(p.limit)} item(s)`;
    case 'maxItems':
      return `meta.${field}: must have at most ${String(p.limit)} items`;
    case 'maxProperties':
      return `meta.${field}: must have at most ${String(p.limit)} entries`;
    case 'not':
      return `meta.${field}: must not be 60 or 61 (those channel types bind plugins by key)`;
    case 'type':
      return `meta.${field}: must be ${String(p.type)}`;
    case 'oneOf':
      return `meta.${field}: has an invalid form`;
    default:
      return `meta.${field}: ${e.message ?? 'is invalid'}`;
  }
}

const VAGUE: Record<string, number> = { oneOf: 3, type: 2, enum: 1 };
/** Of all schema errors, the most useful one: within the first failing field, the deepest, then the least vague. */
function mostSpecific(errors: ErrorObject[]): ErrorObject {
  const top = (e: ErrorObject) => pointerToField(errorPath(e)).split(/[.[]/)[0];
  const field = top(errors[0]);
  const depth = (e: ErrorObject) => pointerToField(errorPath(e)).split(/[.[]/).length;
  return errors.filter((e) => top(e) === field).sort((a, b) => depth(b) - depth(a) || (VAGUE[a.keyword] ?? 0) - (VAGUE[b.keyword] ?? 0))[0];
}

/** LocalizedText → locale map with canonical tags; `en` required. */
function localized(field: string, v: unknown, maxRunes: number): LocalizedMap {
  if (typeof v === 'string') {
    const t = v.trim();
    if (!t) fail(field, 'must not be empty');
    if (CONTROL.test(t)) fail(field, 'must not contain control characters');
    if (runes(t) > maxRunes) fail(field, `must be at most ${maxRunes} characters`);
    return { en: t };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) fail(field, 'must be a string or a language map');
  const out: LocalizedMap = {};
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > 16) fail(field, 'must have at most 16 languages');
  for (const [tag, text] of entries) {
    if (!/^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/.test(tag)) fail(`${field}.${tag}`, 'is not a valid language tag');
    const canon = tag
      .split('-')
      .map((p, i) =>
        i === 0
          ? p.toLowerCase()
          : p.length === 2
            ? p.toUpperCase()
            : p.length === 4
              ? p[0].toUpperCase() + p.slice(1).toLowerCase()
              : p.toLowerCase(),
      )
      .join('-');
    if (canon in out) fail(`${field}.${tag}`, `duplicates language "${canon}"`);
    if (typeof text !== 'string' || !text.trim()) fail(`${field}.${tag}`, 'must be a non-empty string');
    const t = (text as string).trim();
    if (CONTROL.test(t)) fail(`${field}.${tag}`, 'must not contain control characters');
    if (runes(t) > maxRunes) fail(`${field}.${tag}`, `must be at most ${maxRunes} characters`);
    out[canon] = t;
  }
  if (!out.en) fail(field, 'must contain an "en" entry');
  return out;
}

const HOST_LABEL = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;
function asciiHost(host: string): boolean {
  if (host.startsWith('[') && host.endsWith(']')) return true;
  if (host.length > 253) return false;
  return host.split('.').every((l) => HOST_LABEL.test(l));
}

function checkWebsite(v: string): string {
  const s = v.trim();
  if (!s) return '';
  if (/[\s\\]/.test(s) || CONTROL.test(s)) fail('website', 'must not contain whitespace, control characters or backslashes');
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return fail('website', 'must be a valid absolute HTTPS URL');
  }
  if (u.protocol !== 'https:') fail('website', 'must be an HTTPS URL');
  if (u.username || u.password) fail('website', 'must not contain credentials');
  const rawHost = /^https:\/\/([^/?#:]+)/i.exec(s)?.[1] ?? '';
  if (!asciiHost(rawHost)) fail('website', 'must have a valid ASCII host name');
  return s;
}

/** Normalises a base URL: absolute http(s), no credentials/query/fragment, ASCII host lower-cased, trailing "/" removed. */
export function normaliseBaseUrl(v: string, field = 'baseUrl'): string {
  const s = v.trim();
  if (!s) return '';
  if (/\s/.test(v.trim()) || CONTROL.test(s)) fail(field, 'must not contain whitespace or control characters');
  if (/[?#]/.test(s)) fail(field, 'must not contain a query string or fragment');
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return fail(field, 'must be an absolute http(s) URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') fail(field, 'must be an http or https URL');
  if (u.username || u.password || /^[a-z]+:\/\/[^/]*@/i.test(s)) fail(field, 'must not contain credentials');
  const rawHost = /^[a-z]+:\/\/(\[[^\]]+\]|[^/:]+)/i.exec(s)?.[1] ?? '';
  if (!/^[\x21-\x7e]+$/.test(rawHost) || !asciiHost(rawHost.toLowerCase())) fail(field, 'must have an ASCII host name');
  const out = `${u.protocol}//${u.host}${u.pathname}`.replace(/\/+$/, '');
  if (out.length > 191) fail(field, 'must be at most 191 characters after normalisation');
  return out;
}

function normaliseHostEntry(entry: string, i: number): string {
  const field = `allowedHosts[${i}]`;
  const s = entry.trim().toLowerCase();
  if (!s) fail(field, 'must not be empty');
  if (/[/?#@\s]/.test(s) || CONTROL.test(s)) fail(field, 'must be host or host:port (no scheme, path, query, fragment or credentials)');
  if (!/^[\x21-\x7e]+$/.test(s)) fail(field, 'must be ASCII');
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d+))?$/.exec(s);
  if (!m) fail(field, 'must be host or host:port (IPv6 in brackets)');
  const [, host, port] = m!;
  if (!host.startsWith('[') && !asciiHost(host)) fail(field, `has an invalid host name "${host}"`);
  if (port !== undefined) {
    const n = Number(port);
    if (!(n >= 1 && n <= 65535) || String(n) !== port) fail(field, 'port must be 1–65535');
  }
  return port !== undefined ? `${host}:${port}` : host;
}

const UNIT_LIMIT: Record<string, number> = { second: 3600, count: 128, token: 2147483647, credit: 2147483647 };

function usageSchemaN(field: string, raw: Record<string, Record<string, unknown>>): UsageSchemaN {
  const out: UsageSchemaN = {};
  for (const [k, f] of Object.entries(raw)) {
    const ff = `${field}.${k}`;
    if (!k.trim() || k.trim() !== k) fail(ff, 'field names must be non-empty without surrounding spaces');
    const desc = f.description !== undefined ? localized(`${ff}.description`, f.description, 256) : undefined;
    if (f.enum !== undefined) {
      if (f.type !== undefined || f.unit !== undefined) fail(ff, 'an enum field must not have type or unit');
      if (f.unitLabel !== undefined) fail(`${ff}.unitLabel`, 'is only allowed with unit "count"');
      const values = f.enum as string[];
      let labels: Record<string, LocalizedMap> | undefined;
      if (f.enumLabels !== undefined) {
        labels = {};
        for (const [lk, lv] of Object.entries(f.enumLabels as Record<string, unknown>)) {
          if (!values.includes(lk)) fail(`${ff}.enumLabels.${lk}`, 'is not one of the enum values');
          labels[lk] = localized(`${ff}.enumLabels.${lk}`, lv, 256);
        }
      }
      out[k] = { type: 'enum', enum: values, ...(labels ? { enumLabels: labels } : {}), ...(desc ? { description: desc } : {}) };
    } else if (f.type === 'number') {
      if (f.unit === undefined) fail(`${ff}.unit`, 'is required for number fields (second, count, token or credit)');
      if (f.enumLabels !== undefined) fail(`${ff}.enumLabels`, 'is only allowed on enum fields');
      let unitLabel: LocalizedMap | undefined;
      if (f.unitLabel !== undefined) {
        if (f.unit !== 'count') fail(`${ff}.unitLabel`, 'is only allowed with unit "count"');
        unitLabel = localized(`${ff}.unitLabel`, f.unitLabel, 256);
      }
      out[k] = {
        type: 'number',
        unit: f.unit as UsageFieldN['unit'],
        ...(unitLabel ? { unitLabel } : {}),
        ...(desc ? { description: desc } : {}),
      };
    } else if (f.type === 'boolean') {
      if (f.unit !== undefined || f.unitLabel !== undefined || f.enumLabels !== undefined)
        fail(ff, 'a boolean field must not have unit, unitLabel or enumLabels');
      out[k] = { type: 'boolean', ...(desc ? { description: desc } : {}) };
    } else {
      fail(ff, 'must declare type "number" (with unit), type "boolean", or an enum');
    }
  }
  return out;
}

function usageExamplesN(
  field: string,
  raw: Array<{ label: string; facts: Record<string, unknown> }>,
  schema: UsageSchemaN,
): UsageExampleN[] {
  if (raw.length > 0 && Object.keys(schema).length === 0) fail(field, 'examples need a non-empty usage schema');
  return raw.map((ex, i) => {
    const ef = `${field}[${i}]`;
    const label = ex.label.trim();
    if (!label || runes(label) > 48) fail(`${ef}.label`, 'must be 1–48 characters');
    for (const k of Object.keys(ex.facts)) if (!(k in schema)) fail(`${ef}.facts.${k}`, 'is not declared in the usage schema');
    for (const [k, f] of Object.entries(schema)) {
      if (!(k in ex.facts)) fail(`${ef}.facts.${k}`, 'is missing (examples must give every declared field)');
      const v = ex.facts[k];
      if (f.type === 'enum' && !(typeof v === 'string' && f.enum!.includes(v)))
        fail(`${ef}.facts.${k}`, `must be one of ${f.enum!.join(', ')}`);
      if (f.type === 'boolean' && typeof v !== 'boolean') fail(`${ef}.facts.${k}`, 'must be a boolean');
      if (f.type === 'number' && !(typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= UNIT_LIMIT[f.unit!]))
        fail(`${ef}.facts.${k}`, `must be a number from 0 to ${UNIT_LIMIT[f.unit!]} (unit ${f.unit})`);
    }
    return { label, facts: { ...ex.facts } as Record<string, string | number | boolean> };
  });
}

function requireTokenExample(field: string, schema: UsageSchemaN, examples: UsageExampleN[]): void {
  if (Object.values(schema).some((f) => f.unit === 'token') && examples.length === 0)
    fail(field, 'at least one example is required when a field has unit "token"');
}

/** Validates and normalises a manifest. Throws PluginLoadError naming the field and the rule. */
export function validateManifest(raw: unknown): NormalisedManifest {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw new PluginLoadError('the plugin must export `meta` as an object', 'meta');
  const m = raw as Record<string, unknown>;
  for (const [k, hint] of Object.entries(LEGACY)) if (k in m) fail(k, `is no longer supported; ${hint}`);
  if (Array.isArray(m.routes)) {
    m.routes.forEach((r, i) => {
      if (r && typeof r === 'object' && 'renderer' in r)
        fail(`routes[${i}].renderer`, 'is no longer supported; name the native presenter in "render"');
    });
  }
  const validateSchema = manifestValidator();
  if (!validateSchema(m)) {
    const e = mostSpecific(validateSchema.errors!);
    throw new PluginLoadError(schemaMessage(e), pointerToField(errorPath(e)));
  }

  const key = m.key as string;
  const author = m.author as { name: string; url?: string };
  const authorOut: { name: string; url?: string } = { name: author.name.trim() };
  if (author.url !== undefined) {
    let u: URL | null = null;
    try {
      u = new URL(author.url);
    } catch {
      /* below */
    }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname)
      fail('author.url', 'must be an absolute http(s) URL with a host');
    authorOut.url = author.url;
  }

  const models: string[] = [];
  const folded = new Map<string, number>();
  (m.models as string[]).forEach((s, i) => {
    if (s.trim() !== s || !s) fail(`models[${i}]`, 'must be non-empty without surrounding spaces');
    const f = foldModel(s);
    if (folded.has(f)) fail(`models[${i}]`, `duplicates models[${folded.get(f)}] ("${s}"; model names are unique ignoring ASCII case)`);
    folded.set(f, i);
    models.push(s);
  });
  const modelSet = new Set(models);
  const subsetOfModels = (field: string, list: string[]) => {
    const seen = new Set<string>();
    list.forEach((x, i) => {
      if (!modelSet.has(x)) fail(`${field}[${i}]`, `"${x}" is not declared in meta.models`);
      if (seen.has(foldModel(x))) fail(`${field}[${i}]`, `"${x}" is listed twice`);
      seen.add(foldModel(x));
    });
  };

  let icon = '';
  if (typeof m.icon === 'string') {
    icon = m.icon.trim();
    if (CONTROL.test(icon)) fail('icon', 'must not contain control characters');
    if (runes(icon) > 128) fail('icon', 'must be at most 128 characters');
    if (/^data:/i.test(icon) || icon.includes('://'))
      fail('icon', 'must be an icon name, "text" or "text:<label>"; remote URLs and inline images are not allowed');
  }

  const website = typeof m.website === 'string' ? checkWebsite(m.website) : '';
  const baseUrl = typeof m.baseUrl === 'string' ? normaliseBaseUrl(m.baseUrl) : '';
  const allowedHosts: string[] = [];
  ((m.allowedHosts as string[] | undefined) ?? []).forEach((h, i) => {
    const n = normaliseHostEntry(h, i);
    if (allowedHosts.includes(n)) fail(`allowedHosts[${i}]`, `duplicates "${n}"`);
    allowedHosts.push(n);
  });

  const upstreams: UpstreamKind[] = ['vendor'];
  if (m.upstreams !== undefined) {
    upstreams.length = 0;
    (m.upstreams as string[]).forEach((u, i) => {
      const n: UpstreamKind = UPSTREAM_ALIASES[u] ?? (u as UpstreamKind);
      if (upstreams.includes(n)) fail(`upstreams[${i}]`, `duplicates "${n}" (new_api and gateway_api are the same upstream)`);
      upstreams.push(n);
    });
    if (!upstreams.includes('vendor')) upstreams.unshift('vendor');
  }

  const authRaw = typeof m.auth === 'object' && m.auth ? (m.auth as { type: string }).type : ((m.auth as string | undefined) ?? '');
  const auth =
    authRaw === '' || authRaw === 'none' ? 'none' : authRaw === 'vertex_oauth' ? 'oauth2_jwt' : (authRaw as 'api_key' | 'oauth2_jwt');

  const caps = (m.requiredCapabilities as string[] | undefined) ?? [];
  caps.forEach((c, i) => {
    if (!(CAPABILITIES as readonly string[]).includes(c))
      fail(`requiredCapabilities[${i}]`, `"${c}" is not supported by this host (supported: ${CAPABILITIES.join(', ')})`);
  });
  const submitResponseTypes = (m.submitResponseTypes as Array<'json' | 'sse'> | undefined) ?? ['json'];
  if (caps.includes('submit-sse-delta@1') && !submitResponseTypes.includes('sse'))
    fail('requiredCapabilities', '"submit-sse-delta@1" requires "sse" in submitResponseTypes');

  // Routes.
  const routes: NormalisedRoute[] = [];
  const shapes = new Map<string, number>();
  ((m.routes as Array<Record<string, unknown>> | undefined) ?? []).forEach((r, i) => {
    const rf = `routes[${i}]`;
    let parsed: ParsedPath;
    try {
      parsed = parsePath(r.path as string);
    } catch (e) {
      return fail(`${rf}.path`, (e as Error).message);
    }
    const reserved = reservedIntersection(parsed);
    if (reserved) fail(`${rf}.path`, `intersects the reserved path prefix "${reserved}"`);
    const type = r.type as NormalisedRoute['type'];
    if (type === 'query') {
      for (const f of ['decode', 'action', 'retainResult', 'models'] as const)
        if (r[f] !== undefined) fail(`${rf}.${f}`, 'is not allowed on query routes');
      const tip = (r.taskIdParam as string | undefined) ?? 'task_id';
      if (!parsed.segments.some((s) => s.kind === 'param' && s.value === tip))
        fail(`${rf}.taskIdParam`, `must name a ":${tip}" parameter of the path`);
    } else {
      if (r.decode === undefined) fail(`${rf}.decode`, `is required for ${type} routes`);
      if (r.taskIdParam !== undefined) fail(`${rf}.taskIdParam`, 'is only allowed on query routes');
      if (r.models !== undefined) subsetOfModels(`${rf}.models`, r.models as string[]);
    }
    const sk = `${r.method as string} ${parsed.shape}`;
    if (shapes.has(sk)) fail(`${rf}.path`, `has the same method and shape as routes[${shapes.get(sk)}] (${sk})`);
    shapes.set(sk, i);
    routes.push({
      method: r.method as NativeRoute['method'],
      path: r.path as string,
      type,
      ...(r.action !== undefined ? { action: r.action as string } : {}),
      ...(r.decode !== undefined ? { decode: r.decode as string } : {}),
      render: r.render as string,
      ...(type === 'query' ? { taskIdParam: (r.taskIdParam as string | undefined) ?? 'task_id' } : {}),
      ...(r.models !== undefined ? { models: r.models as string[] } : {}),
      retainResult: type === 'query' ? true : r.retainResult !== false,
      parsed,
    });
  });

  // Protocol claims.
  const protocols: NormalisedClaim[] = [];
  ((m.protocols as unknown[] | undefined) ?? []).forEach((c, i) => {
    const pf = `protocols[${i}]`;
    const spelling = typeof c === 'string' ? c : (c as { name: string }).name;
    const name = (PROTOCOL_ALIASES[spelling] ?? spelling) as ProtocolName;
    if (protocols.some((p) => p.name === name)) fail(pf, `claims ${name} twice`);
    const obj = typeof c === 'object' ? (c as { models?: string[]; supports?: ResponsesMode[] }) : null;
    let supports: ResponsesMode[] = [];
    if (name === 'compat_responses') {
      if (!obj) {
        if (spelling !== 'openai_responses') fail(pf, 'compat_responses must be declared as an object with "supports"');
        supports = [...RESPONSES_MODES];
      } else {
        if (!obj.supports) fail(`${pf}.supports`, 'is required for compat_responses (stream, sync, background)');
        supports = RESPONSES_MODES.filter((s) => obj.supports!.includes(s));
      }
    } else if (obj?.supports !== undefined) fail(`${pf}.supports`, `is only allowed on compat_responses (${name} has no request modes)`);
    if (obj?.models) subsetOfModels(`${pf}.models`, obj.models);
    protocols.push({ name, spelling, models: obj?.models ? [...obj.models] : [...models], explicitModels: !!obj?.models, supports });
  });

  // Usage metadata.
  const usageSchema = usageSchemaN('usageSchema', (m.usageSchema as Record<string, Record<string, unknown>> | undefined) ?? {});
  const usageExamples = usageExamplesN(
    'usageExamples',
    (m.usageExamples as Array<{ label: string; facts: Record<string, unknown> }> | undefined) ?? [],
    usageSchema,
  );
  requireTokenExample('usageExamples', usageSchema, usageExamples);
  const profileOf = new Map<string, number>();
  const usageProfiles = (
    (m.usageProfiles as
      | Array<{
          models: string[];
          schema: Record<string, Record<string, unknown>>;
          examples?: Array<{ label: string; facts: Record<string, unknown> }>;
        }>
      | undefined) ?? []
  ).map((p, i) => {
    const pf = `usageProfiles[${i}]`;
    subsetOfModels(`${pf}.models`, p.models);
    p.models.forEach((x, j) => {
      const f = foldModel(x);
      if (profileOf.has(f))
        fail(`${pf}.models[${j}]`, `"${x}" is already in usageProfiles[${profileOf.get(f)}] (a model belongs to at most one profile)`);
      profileOf.set(f, i);
    });
    const schema = usageSchemaN(`${pf}.schema`, p.schema);
    const examples = usageExamplesN(`${pf}.examples`, p.examples ?? [], schema);
    requireTokenExample(`${pf}.examples`, schema, examples);
    return { models: [...p.models], schema, examples };
  });

  return {
    apiVersion: 1,
    key,
    name: (m.name as string).trim(),
    version: m.version as string,
    author: authorOut,
    models,
    fetchMode: m.fetchMode as 'per_task' | 'batch',
    description: m.description !== undefined ? localized('description', m.description, 512) : null,
    icon,
    website,
    sortPriority: (m.sortPriority as number | undefined) ?? 0,
    baseUrl,
    allowedHosts,
    upstreams,
    auth,
    channelTypes: [...((m.channelTypes as number[] | undefined) ?? [])],
    routes,
    protocols,
    usageSchema,
    usageExamples,
    usageProfiles,
    requiredCapabilities: [...caps],
    submitResponseTypes: [...submitResponseTypes],
  };
}

/** The usage schema and examples for a model: its profile (upstream model first, then client model), else the defaults. */
export function usageSchemaFor(
  man: NormalisedManifest,
  model: string,
  upstreamModel?: string,
): { schema: UsageSchemaN; examples: UsageExampleN[]; profile: number | null } {
  for (const name of [upstreamModel, model]) {
    if (!name) continue;
    const f = foldModel(name);
    const i = man.usageProfiles.findIndex((p) => p.models.some((x) => foldModel(x) === f));
    if (i >= 0) return { schema: man.usageProfiles[i].schema, examples: man.usageProfiles[i].examples, profile: i };
  }
  return { schema: man.usageSchema, examples: man.usageExamples, profile: null };
}
