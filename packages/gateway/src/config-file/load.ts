/**
 * The configuration file (YAML): users, teams, keys, channels, prices, group ratios and options declared as
 * code. This module reads and validates it without a database, so `gatehouse config check FILE` and
 * the start-up apply share one set of rules. Errors name the path in the file: `channels[2].type: …`.
 * The YAML parser is loaded when a file is read.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Core } from '../core.ts';
import type { Config } from '../platform/config.ts';
import { GatewayError } from '../platform/errors.ts';
import { ChannelType } from '../channels/types.ts';
import { UserAdmin, type UserInput } from '../admin/users.ts';
import { KeyAdmin, type KeyInput } from '../admin/keys.ts';
import { ChannelAdmin, type ChannelInput } from '../admin/channels.ts';
import { PriceAdmin, type PriceInput, type GroupRatioView } from '../admin/prices.ts';
import { parsePlan, type PlanInput } from '../billing/plans.ts';
import { OptionsAdmin } from '../admin/options.ts';
import { FALLBACKS_OPTION, ROUTING_OPTION } from '../relay/routing.ts';
import { Reader, fieldError, isObj, join, type Obj } from '../platform/validate.ts';
import { parseSsoProvider, type SsoProviderInput } from '../accounts/sso-providers.ts';
import { parseMcpServer, type McpServerInput } from '../mcp/servers.ts';
import { parseConfigTeams, type ConfigTeam } from './teams.ts';

export class ConfigFileError extends Error {
  constructor(
    readonly file: string,
    readonly field: string | null,
    problem: string,
  ) {
    super(`config file ${file}: ${problem}`);
    this.name = 'ConfigFileError';
  }
}

export interface ConfigUser {
  input: UserInput;
  /** Fields the file gives, so an existing user is only updated on those. */
  given: Set<string>;
  at: string;
}

export interface ConfigKey {
  user: string;
  /** The team whose wallet pays for the key (its name); null: the user's balance. */
  team: string | null;
  input: KeyInput;
  at: string;
}

export interface ConfigChannel {
  input: ChannelInput;
  at: string;
}

export interface ConfigDoc {
  users: ConfigUser[];
  /** Teams with their members, matched by name (config-file/teams.ts). */
  teams: ConfigTeam[];
  keys: ConfigKey[];
  channels: ConfigChannel[];
  prices: { input: PriceInput; at: string }[];
  groupRatios: { input: GroupRatioView; at: string }[];
  options: { key: string; value: string; at: string }[];
  /** Single sign-on providers, matched by id. */
  sso: { input: SsoProviderInput; at: string }[];
  /** Plans with usage windows, matched by name (billing/plans.ts). */
  plans: { input: PlanInput; at: string }[];
  /** Remote MCP servers, matched by name. */
  mcpServers: { input: McpServerInput; at: string }[];
}

const TOP = [
  'users',
  'teams',
  'keys',
  'channels',
  'prices',
  'group_ratios',
  'options',
  'guardrails',
  'sso',
  'routing',
  'fallbacks',
  'plans',
  'mcp_servers',
];
/** Top-level entries that are one option each (relay/routing.ts). */
const OPTION_ENTRIES: Record<string, string> = { routing: ROUTING_OPTION, fallbacks: FALLBACKS_OPTION };
const CHANNEL_SHORTCUTS = ['preset', 'api_version', 'plugin', 'plugins'] as const;

/** `${NAME}` and `${NAME:-default}` in string values come from the environment. */
function expandEnv(v: unknown, path: string, env: NodeJS.ProcessEnv): unknown {
  if (typeof v === 'string') {
    return v.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, dflt: string | undefined) => {
      const val = env[name];
      if (val !== undefined && val !== '') return val;
      if (dflt !== undefined) return dflt;
      throw fieldError(path || '(top)', `environment variable ${name} is not set`);
    });
  }
  if (Array.isArray(v)) return v.map((x, i) => expandEnv(x, join(path, i), env));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expandEnv(x, join(path, k), env)]));
  return v;
}

function listOf(doc: Obj, name: string): Obj[] {
  const v = doc[name];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw fieldError(name, 'must be a list');
  return v.map((x, i) => {
    if (!isObj(x)) throw fieldError(join(name, i), 'must be a mapping');
    return x;
  });
}

/** Parses validated content (already an object). `config` gives QUOTA_PER_USD. */
export function validateConfigDoc(
  raw: unknown,
  config: Pick<Config, 'quotaPerUsd'> & Partial<Config>,
  env: NodeJS.ProcessEnv = process.env,
): ConfigDoc {
  if (raw === null || raw === undefined) raw = {};
  if (!isObj(raw))
    throw fieldError(
      '(top)',
      'must be a mapping with users, teams, keys, channels, prices, group_ratios, options, guardrails, sso, routing, fallbacks, plans, mcp_servers',
    );
  Reader.of(raw).only(TOP);
  const doc = expandEnv(raw, '', env) as Obj;
  // The validators only read core.config; nothing here touches a database.
  const core = { config } as unknown as Core;
  const users = new UserAdmin(core, null as never, null as never);
  const keys = new KeyAdmin(core, null as never);
  const channels = new ChannelAdmin(core, null as never, () => undefined);
  const prices = new PriceAdmin(core, null as never);
  const options = new OptionsAdmin(core, null as never);

  const out: ConfigDoc = {
    users: [],
    teams: [],
    keys: [],
    channels: [],
    prices: [],
    groupRatios: [],
    options: [],
    sso: [],
    plans: [],
    mcpServers: [],
  };
  const seen = (set: Set<string>, id: string, at: string, what: string) => {
    if (set.has(id)) throw fieldError(at, `${what} "${id.replace('\u0000', '/')}" is declared twice`);
    set.add(id);
  };

  const userNames = new Set<string>();
  listOf(doc, 'users').forEach((u, i) => {
    const at = join('users', i);
    const input = users.parse(u, 'create', at);
    seen(userNames, input.username!, join(at, 'username'), 'user');
    out.users.push({ input, given: new Set(Object.keys(u)), at });
  });

  out.teams = parseConfigTeams(listOf(doc, 'teams'), config.quotaPerUsd);
  const teamNames = new Set(out.teams.map((t) => t.input.name));

  const keyIds = new Set<string>();
  listOf(doc, 'keys').forEach((k, i) => {
    const at = join('keys', i);
    const r = new Reader(k, at);
    const user = r.str('user', { required: true, max: 64 })!;
    const team = r.str('team', { max: 64 }) ?? null;
    if (team !== null && !teamNames.has(team)) throw fieldError(join(at, 'team'), `no team "${team}" (declare it under teams)`);
    const rest = { ...k };
    delete rest.user;
    delete rest.team;
    if ('user_id' in rest) throw fieldError(join(at, 'user_id'), 'unknown field: name the owner with user');
    const input = keys.parse(rest, 'create', at);
    // The file states the whole key: absent lists mean "none" (every model, anywhere).
    input.models ??= null;
    input.allowed_ips ??= null;
    input.expires_at ??= null;
    input.group ??= null;
    input.callback_url ??= null;
    input.mcp_tools ??= null;
    input.rpm ??= 0;
    input.tpm ??= 0;
    input.max_concurrency ??= 0;
    input.budget_quota ??= null;
    input.budget_period ??= null;
    seen(keyIds, `${user}\u0000${input.name}`, join(at, 'name'), 'key');
    out.keys.push({ user, team, input, at });
  });

  const channelNames = new Set<string>();
  listOf(doc, 'channels').forEach((c, i) => {
    const at = join('channels', i);
    const rest: Obj = { ...c };
    const settings: Obj = rest.settings === undefined ? {} : (rest.settings as Obj);
    if (rest.settings !== undefined && !isObj(rest.settings)) throw fieldError(join(at, 'settings'), 'must be a mapping');
    for (const s of CHANNEL_SHORTCUTS) {
      if (rest[s] !== undefined) {
        settings[s] = rest[s];
        delete rest[s];
      }
    }
    rest.settings = settings;
    const input = channels.parse(rest, 'create', at);
    if (input.type === ChannelType.gateway && settings.plugins === undefined)
      throw fieldError(join(at, 'plugins'), 'is required for gateway channels');
    if (input.type === ChannelType.task_plugin && settings.plugin === undefined)
      throw fieldError(join(at, 'plugin'), 'is required for task_plugin channels');
    // The file states the whole channel: absent fields take their defaults.
    input.keys ??= [];
    input.models ??= [];
    input.groups ??= ['default'];
    input.priority ??= 0;
    input.weight ??= 1;
    input.key_mode ??= 'random';
    input.model_mapping ??= {};
    input.header_override ??= {};
    input.param_override ??= {};
    input.test_model ??= null;
    input.max_concurrency ??= 0;
    input.max_input_tokens ??= 0;
    input.tag ??= null;
    input.base_url ??= '';
    seen(channelNames, input.name!, join(at, 'name'), 'channel');
    out.channels.push({ input, at });
  });

  const pv = doc.prices;
  const models = new Set<string>();
  if (Array.isArray(pv)) {
    pv.forEach((p, i) => {
      const at = join('prices', i);
      const input = prices.parse(p, at);
      seen(models, input.model, join(at, 'model'), 'price of model');
      out.prices.push({ input, at });
    });
  } else if (isObj(pv)) {
    for (const [model, p] of Object.entries(pv)) {
      const at = join('prices', model);
      const input = prices.parse(p, at, model);
      out.prices.push({ input, at });
    }
  } else if (pv !== undefined && pv !== null) {
    throw fieldError('prices', 'must be a mapping of model → price (or a list with model fields)');
  }

  const gr = doc.group_ratios;
  if (isObj(gr)) {
    const r = new Reader(gr, 'group_ratios');
    for (const group of Object.keys(gr)) {
      const at = join('group_ratios', group);
      if (!/^[A-Za-z0-9_.-]{1,64}$/.test(group)) throw fieldError(at, 'group names are 1-64 letters, digits, _ . -');
      out.groupRatios.push({ input: { group, ratio: r.num(group, { required: true, min: 0, max: 1e6 })! }, at });
    }
  } else if (gr !== undefined && gr !== null) {
    throw fieldError('group_ratios', 'must be a mapping of group → ratio');
  }

  const ov = doc.options;
  if (isObj(ov)) {
    for (const [key, value] of Object.entries(ov)) {
      const at = join('options', key);
      out.options.push({ key, value: options.normalise(key, value, at), at });
    }
  } else if (ov !== undefined && ov !== null) {
    throw fieldError('options', 'must be a mapping of key → value');
  }
  for (const [entry, key] of Object.entries(OPTION_ENTRIES)) {
    const v = doc[entry];
    if (v === undefined || v === null) continue;
    if (isObj(ov) && key in ov) throw fieldError(entry, `is given twice: here and as options.${key}`);
    if (!isObj(v)) throw fieldError(entry, 'must be a mapping');
    out.options.push({ key, value: options.normalise(key, v, entry), at: entry });
  }

  // Guardrail bindings (docs/guardrails.md) are the Guardrails option.
  if (doc.guardrails !== undefined && doc.guardrails !== null) {
    if (out.options.some((o) => o.key === 'Guardrails')) throw fieldError('guardrails', 'is set twice (also as options.Guardrails)');
    out.options.push({ key: 'Guardrails', value: options.normalise('Guardrails', doc.guardrails, 'guardrails'), at: 'guardrails' });
  }

  const ssoIds = new Set<string>();
  listOf(doc, 'sso').forEach((p, i) => {
    const at = join('sso', i);
    const input = parseSsoProvider(p, 'create', at);
    seen(ssoIds, input.id!, join(at, 'id'), 'SSO provider');
    out.sso.push({ input, at });
  });

  const planNames = new Set<string>();
  listOf(doc, 'plans').forEach((p, i) => {
    const at = join('plans', i);
    const input = parsePlan(p, config.quotaPerUsd, undefined, at);
    seen(planNames, input.name, join(at, 'name'), 'plan');
    out.plans.push({ input, at });
  });
  const mcpNames = new Set<string>();
  listOf(doc, 'mcp_servers').forEach((m, i) => {
    const at = join('mcp_servers', i);
    const input = parseMcpServer(m, 'create', at);
    // The file states the whole server: absent fields are none.
    input.headers ??= null;
    input.oauth ??= null;
    input.tools ??= null;
    input.groups ??= null;
    input.description ??= null;
    seen(mcpNames, input.name!, join(at, 'name'), 'MCP server');
    out.mcpServers.push({ input, at });
  });
  return out;
}

/** Reads, parses and validates a configuration file; throws ConfigFileError naming the file and field. */
export function loadConfigFile(
  file: string,
  config: Pick<Config, 'quotaPerUsd'> & Partial<Config>,
  env: NodeJS.ProcessEnv = process.env,
): ConfigDoc {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigFileError(file, null, `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parse(text);
  } catch (e) {
    throw new ConfigFileError(file, null, `not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  try {
    return validateConfigDoc(raw, config, env);
  } catch (e) {
    if (e instanceof GatewayError) {
      const field = (e.details?.field as string | undefined) ?? null;
      throw new ConfigFileError(file, field, e.message);
    }
    throw e;
  }
}
