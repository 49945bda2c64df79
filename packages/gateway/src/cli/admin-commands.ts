/**
 * `gatehouse login | user | key | channel | price | config`: administration of a running gateway over
 * its admin API, so a new installation goes from start to first model call without a browser.
 */
import { randomBytes } from 'node:crypto';
import { loadConfigFile, ConfigFileError } from '../config-file/load.ts';
import { loadConfig } from '../platform/config.ts';
import {
  Api,
  CliError,
  flag,
  flags,
  hasFlag,
  out,
  parseArgs,
  promptHidden,
  readStdin,
  resolveUrl,
  saveCredentials,
  forgetCredentials,
  readCredentials,
  table,
  type Args,
} from './client.ts';

type Run = (args: string[]) => Promise<void>;
const BOOLS = ['json', 'all', 'password-stdin', 'key-stdin', 'set', 'unlimited', 'help'];

const GLOBAL =
  '  --url URL        gateway address (default: last login, GATEHOUSE_URL, http://127.0.0.1:3000)\n  --token TOKEN    access token (default: GATEHOUSE_TOKEN, or the one stored by "gatehouse login")\n  --json           print the raw JSON data\n';

const HELP = ['help', '--help', '-h'];

/**
 * A command with sub-commands: `help` or `--help` (anywhere; cli/index.ts reads `-h` as `--help`) print the usage and succeed; no sub-command
 * prints it too; an unknown one prints it and fails.
 */
function sub(name: string, usage: string, subs: Record<string, (a: Args) => Promise<void>>): Run {
  return async (argv) => {
    const [s, ...rest] = argv;
    const fn = s ? subs[s] : undefined;
    if (!fn || HELP.includes(s) || rest.includes('--help')) {
      const text = `usage:\n${usage}\noptions:\n${GLOBAL}`;
      if (s && !fn && !HELP.includes(s)) {
        process.stderr.write(text);
        throw new CliError(`unknown "${name}" command "${s}" (one of: ${Object.keys(subs).join(', ')})`);
      }
      out(text);
      return;
    }
    await fn(parseArgs(rest, BOOLS));
  };
}

const printJson = (v: unknown) => out(JSON.stringify(v, null, 2));
const csv = (v: string | undefined) =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
/** Rate limits and a budget (docs/limits.md): --rpm, --tpm, --max-concurrency, --budget-usd with --budget-period. */
const LIMIT_USAGE = '[--rpm N] [--tpm N] [--max-concurrency N] [--budget-usd N --budget-period day|week|month]';
function limitFlags(a: Args, body: Record<string, unknown>): void {
  for (const [f, field] of [
    ['rpm', 'rpm'],
    ['tpm', 'tpm'],
    ['max-concurrency', 'max_concurrency'],
    ['budget-usd', 'budget_usd'],
  ] as const) {
    const n = numFlag(a, f);
    if (n !== undefined) body[field] = n;
  }
  if (flag(a, 'budget-period')) body.budget_period = flag(a, 'budget-period');
}

const numFlag = (a: Args, k: string): number | undefined => {
  const v = flag(a, k);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new CliError(`--${k} must be a number, got "${v}"`);
  return n;
};
const need = (v: string | undefined, what: string): string => {
  if (!v) throw new CliError(`missing ${what}`);
  return v;
};

interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}
interface User {
  id: number;
  username: string;
  role: string;
  group: string;
  quota_usd: number;
  status: string;
}

async function findUser(api: Api, ref: string): Promise<User> {
  if (/^\d+$/.test(ref)) return api.get<User>(`/api/user/${ref}`);
  const p = await api.get<Page<User>>(`/api/user?keyword=${encodeURIComponent(ref)}&page_size=100`);
  const u = p.items.find((x) => x.username === ref);
  if (!u) throw new CliError(`no user "${ref}"`);
  return u;
}

// ---- login ----

/** A cookie of a response by name (`name=value`), or ''. */
function cookieOf(res: Response, name: string): string {
  const c = res.headers.getSetCookie().find((x) => x.startsWith(`${name}=`));
  return c ? c.split(';')[0] : '';
}

/**
 * Logs in with the password and, when the account has a second factor, a code (`code`, else asked
 * for): the console session cookie (docs/two-factor.md).
 */
async function passwordLogin(anon: Api, username: string, password: string, code?: string): Promise<string> {
  const r = await anon.call<{ require_2fa?: boolean; methods?: string[] }>('POST', '/api/user/login', { username, password });
  let session = cookieOf(r.res, 'gatehouse_session');
  if (r.data?.require_2fa) {
    if (!r.data.methods?.some((m) => m === 'totp' || m === 'recovery_code')) {
      throw new CliError(
        "this account logs in with a passkey only: issue a personal access token on the console's profile page and pass it with --token or GATEHOUSE_TOKEN",
      );
    }
    const given = code ?? (await promptHidden('Two-factor code (authenticator app or recovery code): '));
    const done = await anon.call('POST', '/api/user/login/2fa', { code: given.trim() }, { cookie: cookieOf(r.res, 'gatehouse_2fa') });
    session = cookieOf(done.res, 'gatehouse_session');
  }
  if (!session) throw new CliError('the gateway did not return a session');
  return session;
}

const login: Run = async (argv) => {
  const a = parseArgs(argv, BOOLS);
  if (hasFlag(a, 'help')) {
    out(
      `usage: gatehouse login [--username root] [--password P | --password-stdin] [--code CODE] [--url URL]\n\nLogs in and stores a command-line session (90 days) in the credentials file. Every login is a\nsession of its own: logging in on another machine ends none; "gatehouse logout" ends this one.\nAn account with an authenticator app is asked for its code (or give --code: a current or recovery code).\n`,
    );
    return;
  }
  const url = resolveUrl(a);
  const username = flag(a, 'username') ?? a.pos[0] ?? 'root';
  let password = flag(a, 'password') ?? process.env.GATEHOUSE_PASSWORD;
  if (!password && hasFlag(a, 'password-stdin')) password = (await readStdin()).split('\n')[0].trim();
  if (!password) password = await promptHidden(`Password for ${username}@${url}: `);
  const anon = new Api(url, null);
  const cookie = await passwordLogin(anon, username, password, flag(a, 'code'));
  const t = await anon.call<{ token: string }>('POST', '/api/user/cli-session', {}, { cookie });
  // The console session the password login opened is not needed any more.
  await anon.call('POST', '/api/user/logout', {}, { cookie }).catch(() => undefined);
  const file = saveCredentials(url, t.data.token, username);
  out(`Logged in to ${url} as ${username}. Session stored in ${file}`);
};

// ---- logout ----

const logout: Run = async (argv) => {
  const a = parseArgs(argv, BOOLS);
  if (hasFlag(a, 'help')) {
    out('usage: gatehouse logout [--url URL]\n\nEnds this command-line session on the gateway and removes it from the credentials file.\n');
    return;
  }
  const url = resolveUrl(a);
  const token = readCredentials().servers[url]?.token;
  if (!token) {
    out(`Not logged in to ${url}.`);
    return;
  }
  await new Api(url, token).call('POST', '/api/user/logout').catch(() => undefined);
  forgetCredentials(url);
  out(`Logged out of ${url}.`);
};

// ---- own password ----

/** Logs in with a password and stores a new command-line session (as `gatehouse login` does). */
async function storeNewToken(url: string, username: string, password: string): Promise<string> {
  const anon = new Api(url, null);
  const cookie = await passwordLogin(anon, username, password);
  const t = await anon.call<{ token: string }>('POST', '/api/user/cli-session', {}, { cookie });
  await anon.call('POST', '/api/user/logout', {}, { cookie }).catch(() => undefined);
  return saveCredentials(url, t.data.token, username);
}

const password: Run = async (argv) => {
  const a = parseArgs(argv, BOOLS);
  if (hasFlag(a, 'help')) {
    out(
      `usage: gatehouse password [--password-stdin] [--url URL]\n\nChanges the password of the account you are logged in as. It asks for the current and the new\npassword (with --password-stdin: two lines on standard input, current then new). Other sessions and\naccess tokens of the account end; a new session is stored for this command line.\n`,
    );
    return;
  }
  const api = Api.from(a);
  const me = await api.get<{ username: string }>('/api/user/self');
  let oldPassword: string, newPassword: string;
  if (hasFlag(a, 'password-stdin')) {
    [oldPassword = '', newPassword = ''] = (await readStdin()).split('\n').map((l) => l.replace(/\r$/, ''));
  } else {
    oldPassword = await promptHidden(`Current password for ${me.username}: `);
    newPassword = await promptHidden('New password: ');
    if ((await promptHidden('New password again: ')) !== newPassword) throw new CliError('the two new passwords differ');
  }
  await api.call('PUT', '/api/user/self/password', { old_password: oldPassword, new_password: newPassword });
  const file = await storeNewToken(api.url, me.username, newPassword);
  out(`Password of ${me.username} changed; other sessions and tokens ended. New token stored in ${file}`);
};

// ---- users ----

const user = sub(
  'user',
  `  gatehouse user add USERNAME [--password P] [--role user|admin] [--group G] [--quota-usd N]\n        ${LIMIT_USAGE}\n` +
    '  gatehouse user list [--search TEXT] [--page N]\n  gatehouse user topup USER AMOUNT_USD [--set]     (USER = username or id; --set sets the balance)\n',
  {
    async add(a) {
      const api = Api.from(a);
      const username = need(a.pos[0], 'USERNAME');
      let password = flag(a, 'password');
      const generated = !password;
      if (!password) password = randomBytes(12).toString('base64url');
      const body: Record<string, unknown> = { username, password };
      if (flag(a, 'role')) body.role = flag(a, 'role');
      if (flag(a, 'group')) body.group = flag(a, 'group');
      if (flag(a, 'display-name')) body.display_name = flag(a, 'display-name');
      const q = numFlag(a, 'quota-usd');
      if (q !== undefined) body.quota_usd = q;
      limitFlags(a, body);
      const { data } = await api.call<User>('POST', '/api/user', body);
      if (hasFlag(a, 'json')) return printJson(data);
      out(`Created user ${data.username} (id ${data.id}, role ${data.role}, group ${data.group}, balance $${data.quota_usd})`);
      if (generated) out(`Password: ${password}   (shown once)`);
    },
    async list(a) {
      const api = Api.from(a);
      const qs = new URLSearchParams({ page: flag(a, 'page') ?? '1', page_size: flag(a, 'page-size') ?? '100' });
      if (flag(a, 'search')) qs.set('keyword', flag(a, 'search')!);
      const p = await api.get<Page<User>>(`/api/user?${qs}`);
      if (hasFlag(a, 'json')) return printJson(p);
      out(
        table(p.items as unknown as Record<string, unknown>[], ['id', 'username', 'role', 'group', 'quota_usd', 'status']) +
          `${p.total} user(s)`,
      );
    },
    async topup(a) {
      const api = Api.from(a);
      const u = await findUser(api, need(a.pos[0], 'USER'));
      const amount = Number(need(a.pos[1], 'AMOUNT_USD'));
      if (!Number.isFinite(amount)) throw new CliError('AMOUNT_USD must be a number');
      const { data } = await api.call<User>('POST', `/api/user/${u.id}/quota`, {
        mode: hasFlag(a, 'set') ? 'set' : 'add',
        amount_usd: amount,
      });
      if (hasFlag(a, 'json')) return printJson(data);
      out(`${data.username}: balance now $${data.quota_usd}`);
    },
  },
);

// ---- keys ----

interface Key {
  id: number;
  name: string;
  username?: string;
  hint: string;
  status: string;
  models: string[] | null;
  remain_quota_usd: number;
  unlimited_quota: boolean;
  expires_at: number | null;
}

const key = sub(
  'key',
  `  gatehouse key create [NAME] [--user USER] [--models a,b] [--quota-usd N] [--expires 2026-12-31] [--ips 10.0.0.0/8,...] [--group G]\n        ${LIMIT_USAGE}\n` +
    '  gatehouse key list [--all | --user USER]\n  gatehouse key revoke ID\n',
  {
    async create(a) {
      const api = Api.from(a);
      const body: Record<string, unknown> = { name: a.pos[0] ?? flag(a, 'name') ?? 'default' };
      if (flag(a, 'user')) body.user_id = (await findUser(api, flag(a, 'user')!)).id;
      if (flag(a, 'models')) body.models = csv(flag(a, 'models'));
      if (flag(a, 'ips')) body.allowed_ips = csv(flag(a, 'ips'));
      if (flag(a, 'group')) body.group = flag(a, 'group');
      if (flag(a, 'expires')) body.expires_at = flag(a, 'expires');
      const q = numFlag(a, 'quota-usd');
      if (q !== undefined) body.quota_usd = q;
      limitFlags(a, body);
      const { data } = await api.call<Key & { key: string }>('POST', '/api/token', body);
      if (hasFlag(a, 'json')) return printJson(data);
      out(`Created API key "${data.name}" (id ${data.id}). Store it now, it is not shown again:\n\n  ${data.key}\n`);
    },
    async list(a) {
      const api = Api.from(a);
      const qs = new URLSearchParams({ page_size: '100' });
      if (hasFlag(a, 'all')) qs.set('all', 'true');
      const who = flag(a, 'user');
      if (who) qs.set('user_id', String((await findUser(api, who)).id));
      const p = await api.get<Page<Key>>(`/api/token?${qs}`);
      if (hasFlag(a, 'json')) return printJson(p);
      const rows = p.items.map((k) => ({
        ...k,
        quota: k.unlimited_quota ? 'unlimited' : `$${k.remain_quota_usd}`,
        expires: k.expires_at ? new Date(k.expires_at).toISOString().slice(0, 10) : 'never',
      }));
      // Say whose keys these are: without --user or --all only the logged-in account's own keys are listed.
      const whose = hasFlag(a, 'all') ? 'every user' : who ? `user ${who}` : 'your own account (--user NAME or --all for others)';
      out(table(rows, ['id', 'name', 'username', 'hint', 'status', 'models', 'quota', 'expires']) + `${p.total} key(s) of ${whose}`);
    },
    async revoke(a) {
      const api = Api.from(a);
      const id = need(a.pos[0], 'ID');
      await api.call('DELETE', `/api/token/${encodeURIComponent(id)}`);
      out(`Revoked API key ${id}`);
    },
  },
);

// ---- channels ----

interface Channel {
  id: number;
  name: string;
  type_name: string;
  base_url: string;
  key_count: number;
  models: string[];
  groups: string[];
  priority: number;
  weight: number;
  status: string;
  status_reason: string | null;
}

/** A channel by id or by name. */
async function findChannel(api: Api, ref: string): Promise<Channel> {
  if (/^\d+$/.test(ref)) return api.get<Channel>(`/api/channel/${ref}`);
  const p = await api.get<Page<Channel>>(`/api/channel?keyword=${encodeURIComponent(ref)}&page_size=100`);
  const c = p.items.find((x) => x.name === ref);
  if (!c) throw new CliError(`no channel "${ref}"`);
  return c;
}

const channel = sub(
  'channel',
  '  gatehouse channel add NAME --type openai|azure|anthropic|gemini|bedrock|vertex|task_plugin|gateway --key KEY [--key KEY2 | --key-stdin]\n        [--base-url URL] [--models a,b] [--groups default] [--priority N] [--weight N] [--preset deepseek]\n        [--api-version 2024-10-21] [--region us-east-1] [--prompt-cache auto|off] [--prompt-cache-ttl 5m|1h]\n        [--plugin KEY] [--plugins a,b] [--mapping \'{"from":"to"}\']\n  gatehouse channel list\n  gatehouse channel test CHANNEL [--model M]\n  gatehouse channel disable CHANNEL [--reason TEXT]\n  gatehouse channel enable CHANNEL\n      (CHANNEL = id or name; --base-url: the upstream\'s address, /v1 is added unless it ends in a version such as /v1 or /v4)\n',
  {
    async add(a) {
      const api = Api.from(a);
      const keys = [...flags(a, 'key')];
      if (hasFlag(a, 'key-stdin'))
        keys.push(
          ...(await readStdin())
            .split('\n')
            .map((s) => s.trim())
            .filter(Boolean),
        );
      const settings: Record<string, unknown> = {};
      if (flag(a, 'preset')) settings.preset = flag(a, 'preset');
      if (flag(a, 'api-version')) settings.api_version = flag(a, 'api-version');
      if (flag(a, 'region')) settings.region = flag(a, 'region');
      if (flag(a, 'prompt-cache')) settings.prompt_cache = flag(a, 'prompt-cache');
      if (flag(a, 'prompt-cache-ttl')) settings.prompt_cache_ttl = flag(a, 'prompt-cache-ttl');
      if (flag(a, 'plugin')) settings.plugin = flag(a, 'plugin');
      if (flag(a, 'plugins')) settings.plugins = csv(flag(a, 'plugins'));
      const body: Record<string, unknown> = { name: need(a.pos[0], 'NAME'), type: flag(a, 'type') ?? 'openai', keys, settings };
      if (flag(a, 'base-url')) body.base_url = flag(a, 'base-url');
      if (flag(a, 'models')) body.models = csv(flag(a, 'models'));
      if (flag(a, 'groups')) body.groups = csv(flag(a, 'groups'));
      if (flag(a, 'priority')) body.priority = numFlag(a, 'priority');
      if (flag(a, 'weight')) body.weight = numFlag(a, 'weight');
      if (flag(a, 'key-mode')) body.key_mode = flag(a, 'key-mode');
      if (flag(a, 'mapping')) body.model_mapping = flag(a, 'mapping');
      const { data } = await api.call<Channel>('POST', '/api/channel', body);
      if (hasFlag(a, 'json')) return printJson(data);
      out(
        `Created channel "${data.name}" (id ${data.id}, ${data.type_name}, ${data.key_count} key(s), models ${data.models.join(',') || '-'})`,
      );
    },
    async list(a) {
      const api = Api.from(a);
      const p = await api.get<Page<Channel>>('/api/channel?page_size=100');
      if (hasFlag(a, 'json')) return printJson(p);
      out(
        table(p.items.map((c) => ({ ...c, type: c.type_name, keys: c.key_count })) as unknown as Record<string, unknown>[], [
          'id',
          'name',
          'type',
          'status',
          'keys',
          'models',
          'groups',
          'priority',
          'weight',
          'base_url',
        ]) + `${p.total} channel(s)`,
      );
    },
    async test(a) {
      const api = Api.from(a);
      const c = await findChannel(api, need(a.pos[0], 'CHANNEL'));
      const r = await api.attempt<{ time_ms: number; status: number | null; model: string }>(
        'POST',
        `/api/channel/${c.id}/test`,
        flag(a, 'model') ? { model: flag(a, 'model') } : {},
      );
      if (hasFlag(a, 'json')) return printJson({ success: r.success, message: r.message, ...r.data });
      out(
        table(
          [
            {
              id: c.id,
              name: c.name,
              model: r.data.model,
              result: r.success ? 'ok' : `failed: ${r.message}`,
              time: `${r.data.time_ms} ms`,
              upstream_status: r.data.status,
            },
          ],
          ['id', 'name', 'model', 'result', 'time', 'upstream_status'],
        ),
      );
      if (!r.success) throw new CliError(`channel "${c.name}" failed its test`);
    },
    async disable(a) {
      const api = Api.from(a);
      const id = String((await findChannel(api, need(a.pos[0], 'CHANNEL'))).id);
      const { data } = await api.call<Channel>('PUT', `/api/channel/${encodeURIComponent(id)}`, {
        status: 'disabled',
        status_reason: flag(a, 'reason') ?? 'disabled from the command line',
      });
      out(`Channel "${data.name}" is ${data.status}`);
    },
    async enable(a) {
      const api = Api.from(a);
      const id = String((await findChannel(api, need(a.pos[0], 'CHANNEL'))).id);
      const { data } = await api.call<Channel>('PUT', `/api/channel/${encodeURIComponent(id)}`, { status: 'enabled' });
      out(`Channel "${data.name}" is ${data.status}`);
    },
  },
);

// ---- prices ----

interface Price {
  model: string;
  input: number | null;
  output: number | null;
  cached_input: number | null;
  per_request: number | null;
  expression: string | null;
}

const price = sub(
  'price',
  '  gatehouse price set MODEL [--input USD --output USD [--cached-input USD]] [--per-request USD] [--expression EXPR]\n      (token prices are USD per 1M tokens)\n  gatehouse price list\n  gatehouse price catalog                          list prices of the catalog (source, date)\n  gatehouse price import [MODEL…] [--overwrite]    adopt the catalog (prices already set are kept unless --overwrite)\n',
  {
    async set(a) {
      const api = Api.from(a);
      const body: Record<string, unknown> = { model: need(a.pos[0], 'MODEL') };
      for (const [f, k] of [
        ['input', 'input'],
        ['output', 'output'],
        ['cached-input', 'cached_input'],
        ['per-request', 'per_request'],
      ] as const) {
        const v = numFlag(a, f);
        if (v !== undefined) body[k] = v;
      }
      if (flag(a, 'expression')) body.expression = flag(a, 'expression');
      const { data } = await api.call<Price>('PUT', '/api/price', body);
      if (hasFlag(a, 'json')) return printJson(data);
      out(`Price of ${data.model}: ${describePrice(data)}`);
    },
    async catalog(a) {
      const api = Api.from(a);
      const c = await api.get<Array<Record<string, unknown>>>('/api/price/catalog');
      if (hasFlag(a, 'json')) return printJson(c);
      out(table(c, ['model', 'vendor', 'input', 'output', 'cached_input', 'priced', 'as_of', 'source']) + '(USD per 1M tokens)');
    },
    async import(a) {
      const api = Api.from(a);
      const body = { ...(a.pos.length ? { models: a.pos } : {}), overwrite: hasFlag(a, 'overwrite') };
      const { data } = await api.call<{ imported: string[]; kept: string[] }>('POST', '/api/price/import', body);
      if (hasFlag(a, 'json')) return printJson(data);
      out(
        `Imported ${data.imported.length} price(s) from the catalog; kept ${data.kept.length} already set${data.kept.length ? ` (${data.kept.join(', ')}; --overwrite replaces them)` : ''}`,
      );
    },
    async list(a) {
      const api = Api.from(a);
      const p = await api.get<Page<Price>>('/api/price?page_size=100');
      if (hasFlag(a, 'json')) return printJson(p);
      out(
        table(p.items as unknown as Record<string, unknown>[], ['model', 'input', 'output', 'cached_input', 'per_request', 'expression']) +
          '(token prices in USD per 1M tokens)',
      );
    },
  },
);

function describePrice(p: Price): string {
  const parts: string[] = [];
  if (p.input !== null) parts.push(`input $${p.input}/1M`);
  if (p.output !== null) parts.push(`output $${p.output}/1M`);
  if (p.cached_input !== null) parts.push(`cached input $${p.cached_input}/1M`);
  if (p.per_request !== null) parts.push(`$${p.per_request} per request`);
  if (p.expression !== null) parts.push(`expression ${p.expression}`);
  return parts.join(', ');
}

// ---- config ----

const config = sub('config', '  gatehouse config check FILE     validate a configuration file offline (no gateway needed)\n', {
  async check(a) {
    const file = need(a.pos[0], 'FILE');
    try {
      const doc = loadConfigFile(file, loadConfig(process.env));
      out(
        `${file}: OK (${doc.users.length} user(s), ${doc.keys.length} key(s), ${doc.channels.length} channel(s), ${doc.prices.length} price(s), ${doc.groupRatios.length} group ratio(s), ${doc.options.length} option(s), ${doc.sso.length} SSO provider(s))`,
      );
    } catch (e) {
      if (e instanceof ConfigFileError) throw new CliError(e.message);
      throw e;
    }
  },
});

export const ADMIN_COMMANDS: Record<string, { summary: string; run: Run }> = {
  login: { summary: 'log in to a gateway and store a session of this command line', run: login },
  logout: { summary: "end this command line's session on a gateway", run: logout },
  password: { summary: 'change your own password', run: password },
  user: { summary: 'users: add, list, topup', run: user },
  key: { summary: 'API keys: create, list, revoke', run: key },
  channel: { summary: 'channels: add, list, test, disable, enable', run: channel },
  price: { summary: 'model prices: set, list, catalog, import', run: price },
  config: { summary: 'configuration file: check', run: config },
};
