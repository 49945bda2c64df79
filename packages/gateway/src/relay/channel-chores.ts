/**
 * Channel chores that ask the upstream itself: its balance (each vendor's own billing endpoint), its
 * model list (OpenAI-compatible `/models`, Gemini's and Anthropic's model lists, every page) and a
 * test of every model a channel lists. Requests go through the model-call pools with the channel's
 * first usable key; upstream error text is redacted of that key before it is shown.
 */
import { fail } from '../platform/errors.ts';
import { redactSecrets } from '../platform/redact.ts';
import { isObj } from '../platform/validate.ts';
import { ChannelType } from '../channels/types.ts';
import type { RuntimeChannel } from './channels.ts';
import { firstUsableKey, testKey, type TestResult } from './health.ts';
import { readText, type UpstreamPools } from './upstream.ts';
import type { GoogleTokens } from '../platform/google-token.ts';

/** The billing endpoints a channel's balance can be read from. */
export const BALANCE_APIS = ['openai', 'deepseek', 'openrouter', 'siliconflow', 'moonshot'] as const;
export type BalanceApi = (typeof BALANCE_APIS)[number];

const HOSTS: Array<[RegExp, BalanceApi]> = [
  [/(^|\.)deepseek\.com$/, 'deepseek'],
  [/(^|\.)openrouter\.ai$/, 'openrouter'],
  [/(^|\.)siliconflow\.(cn|com)$/, 'siliconflow'],
  [/(^|\.)moonshot\.(cn|ai)$/, 'moonshot'],
];

/** Which billing endpoint a channel has: `settings.balance_api`, else its preset or host, else an OpenAI-compatible reseller's. */
export function balanceApiOf(ch: RuntimeChannel): BalanceApi {
  if (ch.type !== ChannelType.openai) throw fail('invalid_request', { problem: `channels of type ${ch.type} publish no balance` });
  const named = ch.settings.balance_api ?? ch.settings.preset;
  if (typeof named === 'string' && (BALANCE_APIS as readonly string[]).includes(named)) return named as BalanceApi;
  let host = '';
  try {
    host = new URL(ch.baseUrl).hostname;
  } catch {
    /* an unusable base URL fails when it is asked */
  }
  for (const [re, api] of HOSTS) if (re.test(host)) return api;
  return 'openai';
}

/** The API root with its version (`…/v1`), as the relay appends OpenAI paths to it. */
const versionRoot = (ch: RuntimeChannel) => (ch.apiRoot || /\/v\d+[a-z0-9]*$/.test(ch.baseUrl) ? ch.baseUrl : `${ch.baseUrl}/v1`);
/** The base URL without a trailing version. */
const hostRoot = (ch: RuntimeChannel) => ch.baseUrl.replace(/\/v\d+[a-z0-9]*$/, '');

const num = (v: unknown): number | null => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};

export class ChannelChores {
  constructor(
    private readonly pools: UpstreamPools,
    private readonly google?: GoogleTokens,
  ) {}

  /** GET a JSON document from the upstream with the channel's key; a failure is a 502 naming the status. */
  private async getJson(ch: RuntimeChannel, url: string, headers: Record<string, string>): Promise<unknown> {
    const key = ch.keys[firstUsableKey(ch)] ?? '';
    let res;
    try {
      res = await this.pools.send({ url: new URL(url), method: 'GET', headers: { accept: 'application/json', ...headers } });
    } catch (e) {
      const code = (e as { code?: string }).code;
      throw fail('upstream_error', { reason: `the connection failed${code ? ` (${code})` : ''}` });
    }
    const text = await readText(res.body, 4 * 1024 * 1024);
    if (res.statusCode >= 400) {
      throw fail('upstream_error', {
        reason: `${new URL(url).pathname} answered ${res.statusCode}: ${redactSecrets(text, key ? [key] : []).slice(0, 300)}`,
      });
    }
    try {
      return JSON.parse(text);
    } catch {
      throw fail('upstream_error', { reason: `${new URL(url).pathname} did not answer JSON` });
    }
  }

  private bearer(ch: RuntimeChannel): Record<string, string> {
    const key = ch.keys[firstUsableKey(ch)];
    return key ? { authorization: `Bearer ${key}` } : {};
  }

  /** The upstream's balance as its vendor reports it (USD, or CNY for the Chinese vendors). */
  async balance(ch: RuntimeChannel): Promise<number> {
    const api = balanceApiOf(ch);
    const auth = this.bearer(ch);
    const bad = (what: string): never => {
      throw fail('upstream_error', { reason: `the ${api} balance answer has no ${what}` });
    };
    switch (api) {
      case 'deepseek': {
        // {is_available, balance_infos: [{currency, total_balance: "110.00", …}]}: the first currency's total.
        const d = (await this.getJson(ch, `${hostRoot(ch)}/user/balance`, auth)) as { balance_infos?: Array<{ total_balance?: unknown }> };
        return num(d?.balance_infos?.[0]?.total_balance) ?? bad('balance_infos[0].total_balance');
      }
      case 'openrouter': {
        const d = (await this.getJson(ch, `${versionRoot(ch)}/credits`, auth)) as {
          data?: { total_credits?: unknown; total_usage?: unknown };
        };
        const credits = num(d?.data?.total_credits) ?? bad('data.total_credits');
        return credits - (num(d?.data?.total_usage) ?? 0);
      }
      case 'siliconflow': {
        const d = (await this.getJson(ch, `${versionRoot(ch)}/user/info`, auth)) as {
          data?: { totalBalance?: unknown; balance?: unknown };
        };
        return num(d?.data?.totalBalance) ?? num(d?.data?.balance) ?? bad('data.totalBalance');
      }
      case 'moonshot': {
        const d = (await this.getJson(ch, `${versionRoot(ch)}/users/me/balance`, auth)) as { data?: { available_balance?: unknown } };
        return num(d?.data?.available_balance) ?? bad('data.available_balance');
      }
      default: {
        // OpenAI-compatible resellers: the grant (hard_limit_usd) less this period's usage (total_usage, in cents).
        const root = `${hostRoot(ch)}/v1/dashboard/billing`;
        const sub = (await this.getJson(ch, `${root}/subscription`, auth)) as { hard_limit_usd?: unknown; access_until?: unknown };
        const limit = num(sub?.hard_limit_usd) ?? bad('hard_limit_usd');
        const now = new Date();
        const day = (d: Date) => d.toISOString().slice(0, 10);
        const start = new Date(now.getTime() - 99 * 86_400_000);
        const end = new Date(now.getTime() + 86_400_000);
        const usage = (await this.getJson(ch, `${root}/usage?start_date=${day(start)}&end_date=${day(end)}`, auth)) as {
          total_usage?: unknown;
        };
        return Math.round((limit - (num(usage?.total_usage) ?? 0) / 100) * 1e6) / 1e6;
      }
    }
  }

  /** The model ids the upstream lists, sorted (Gemini's without their `models/` prefix). */
  async models(ch: RuntimeChannel): Promise<string[]> {
    const key = ch.keys[firstUsableKey(ch)] ?? '';
    const out = new Set<string>();
    if (ch.type === ChannelType.openai) {
      const d = (await this.getJson(ch, `${versionRoot(ch)}/models`, this.bearer(ch))) as { data?: unknown };
      if (!Array.isArray(d?.data)) throw fail('upstream_error', { reason: 'the model list has no data array' });
      for (const m of d.data) if (isObj(m) && typeof m.id === 'string') out.add(m.id);
    } else if (ch.type === ChannelType.gemini) {
      let token = '';
      for (let page = 0; page < 50; page++) {
        const url = `${hostRoot(ch)}/v1beta/models?pageSize=1000${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
        const d = (await this.getJson(ch, url, { 'x-goog-api-key': key })) as { models?: unknown; nextPageToken?: unknown };
        if (!Array.isArray(d?.models)) throw fail('upstream_error', { reason: 'the model list has no models array' });
        for (const m of d.models) if (isObj(m) && typeof m.name === 'string') out.add(m.name.replace(/^models\//, ''));
        token = typeof d.nextPageToken === 'string' ? d.nextPageToken : '';
        if (!token) break;
      }
    } else if (ch.type === ChannelType.anthropic) {
      let after = '';
      for (let page = 0; page < 50; page++) {
        const url = `${hostRoot(ch)}/v1/models?limit=1000${after ? `&after_id=${encodeURIComponent(after)}` : ''}`;
        const d = (await this.getJson(ch, url, { 'x-api-key': key, 'anthropic-version': '2023-06-01' })) as {
          data?: unknown;
          has_more?: unknown;
          last_id?: unknown;
        };
        if (!Array.isArray(d?.data)) throw fail('upstream_error', { reason: 'the model list has no data array' });
        for (const m of d.data) if (isObj(m) && typeof m.id === 'string') out.add(m.id);
        after = d.has_more === true && typeof d.last_id === 'string' ? d.last_id : '';
        if (!after) break;
      }
    } else {
      throw fail('invalid_request', { problem: `channels of type ${ch.type} have no model list to read` });
    }
    return [...out].sort();
  }

  /** Tests each model the channel lists (a few at a time), in the channel's model order. */
  async testAll(ch: RuntimeChannel, concurrency = 4): Promise<TestResult[]> {
    const models = [...new Set(ch.models)];
    const results: TestResult[] = new Array(models.length);
    let next = 0;
    const worker = async () => {
      while (next < models.length) {
        const i = next++;
        results[i] = await testKey(this.pools, ch, firstUsableKey(ch), models[i], this.google);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, models.length) }, worker));
    return results;
  }
}

/** What a model sync would change: the upstream's models the channel lacks, and the channel's the upstream no longer lists. */
export function modelDiff(current: string[], upstream: string[], mapping: Record<string, string>): { added: string[]; removed: string[] } {
  const up = new Set(upstream);
  const served = new Set(current.map((m) => mapping[m] ?? m));
  return {
    added: upstream.filter((m) => !served.has(m) && !current.includes(m)),
    removed: current.filter((m) => !up.has(mapping[m] ?? m)),
  };
}
