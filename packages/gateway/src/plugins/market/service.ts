/**
 * Plugin marketplaces (docs/plugins.md): sources are HTTP(S) locations serving an
 * `index.json` (indexVersion 1). Installing fetches the version's plugin.js, verifies its sha256 from
 * the index and then goes through the normal upload (validation, conflict preflight). The index is a
 * cache, never a trust anchor: the upload re-verifies the hash of what was fetched.
 */
import { createHash } from 'node:crypto';
import type { Core } from '../../core.ts';
import { fetch, type Dispatcher } from 'undici';
import { GatewayError, fail } from '../../platform/errors.ts';
import type { PluginAdmin } from '../admin/service.ts';
import { AuditLog, type AuditActor } from '../../logs/audit.ts';
import { OptionStore } from '../../options/store.ts';

export const SOURCES_OPTION = 'TaskPluginMarketplaceSources';
export const DEFAULT_SOURCES = [
  { name: 'Official', index_url: 'https://www.newapi.ai/api/v1/plugins/index.json' },
  { name: 'GitHub', index_url: 'https://raw.githubusercontent.com/QuantumNous/new-api-plugins/main/index.json' },
];
const MAX_INDEX_BYTES = 8 * 1024 * 1024;
const MAX_FILE_BYTES = 1024 * 1024 + 1;
const FETCH_TIMEOUT_MS = 15_000;

export interface MarketSource {
  name: string;
  index_url: string;
}
interface IndexVersion {
  version: string;
  path: string;
  sha256: string;
  kind?: string;
  minApiVersion?: number;
}
interface IndexPlugin {
  key: string;
  name?: string;
  latest?: string;
  versions: IndexVersion[];
  iconFile?: { path: string; sha256: string };
}
export interface MarketIndex {
  indexVersion: 1;
  name?: string;
  plugins: IndexPlugin[];
}

const bad = (m: string) => fail('invalid_request', m);

function httpUrl(v: unknown, what: string): URL {
  let u: URL;
  try {
    u = new URL(String(v));
  } catch {
    throw bad(`${what} must be an absolute http(s) URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw bad(`${what} must be an absolute http(s) URL`);
  return u;
}

async function fetchBytes(url: URL, max: number, dispatcher: Dispatcher): Promise<Buffer> {
  let res: Awaited<ReturnType<typeof fetch>>;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'follow', dispatcher });
  } catch (e) {
    throw fail('market_fetch_failed', { url: url.href, reason: (e as Error).message });
  }
  if (!res.ok) throw fail('market_fetch_failed', `fetching ${url.href} returned HTTP ${res.status}`);
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) {
    n += c.length;
    if (n > max) throw fail('market_fetch_failed', `${url.href} is larger than ${max} bytes`);
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks);
}

export class Marketplace {
  constructor(
    private readonly core: Core,
    private readonly admin: PluginAdmin,
  ) {}

  async sources(): Promise<MarketSource[]> {
    const value = await new OptionStore(this.core.h).value(SOURCES_OPTION);
    if (value === undefined) return DEFAULT_SOURCES;
    try {
      return JSON.parse(value) as MarketSource[];
    } catch {
      return DEFAULT_SOURCES;
    }
  }

  async setSources(body: unknown, actor: AuditActor = null): Promise<MarketSource[]> {
    const list = Array.isArray(body) ? body : (body as { sources?: unknown })?.sources;
    if (!Array.isArray(list)) throw bad('body must be an array of { name, index_url }');
    const out: MarketSource[] = list.map((s, i) => {
      const o = s as { name?: unknown; index_url?: unknown };
      if (typeof o?.name !== 'string' || !o.name.trim()) throw bad(`sources[${i}].name is required`);
      return { name: o.name.trim(), index_url: httpUrl(o.index_url, `sources[${i}].index_url`).href };
    });
    const value = JSON.stringify(out);
    const store = new OptionStore(this.core.h);
    const before = await this.sources();
    if ((await store.update(SOURCES_OPTION, value)) === 0) await store.insert(SOURCES_OPTION, value);
    await new AuditLog(this.core).record(
      actor,
      'marketplace.sources',
      { type: 'marketplace', id: 'sources' },
      { sources: before },
      { sources: out },
    );
    return out;
  }

  private async indexUrl(q: { source?: unknown; index_url?: unknown }): Promise<URL> {
    if (q.index_url) return httpUrl(q.index_url, 'index_url');
    const name = typeof q.source === 'string' ? q.source : '';
    const src = (await this.sources()).find((s) => s.name === name);
    if (!src) throw bad(`unknown marketplace source "${name}"`);
    return httpUrl(src.index_url, 'index_url');
  }

  async fetchIndex(q: { source?: unknown; index_url?: unknown }): Promise<{ url: URL; index: MarketIndex }> {
    const url = await this.indexUrl(q);
    let index: MarketIndex;
    try {
      index = JSON.parse((await fetchBytes(url, MAX_INDEX_BYTES, this.core.outbound.content)).toString('utf8')) as MarketIndex;
    } catch (e) {
      if (e instanceof GatewayError) throw e;
      throw fail('market_index_invalid', `${url.href} is not valid JSON`);
    }
    if (!index || index.indexVersion !== 1 || !Array.isArray(index.plugins))
      throw fail('market_index_invalid', `${url.href} is not a version 1 plugin index`);
    return { url, index };
  }

  async install(
    body: { source?: unknown; index_url?: unknown; key?: unknown; version?: unknown; enabled?: unknown; force?: unknown },
    actor: AuditActor = null,
  ) {
    if (typeof body.key !== 'string' || !body.key) throw bad('key is required');
    const { url, index } = await this.fetchIndex(body);
    const entry = index.plugins.find((p) => p && p.key === body.key);
    if (!entry || !Array.isArray(entry.versions) || !entry.versions.length)
      throw fail('not_found', `the index has no plugin "${body.key}"`);
    const want = typeof body.version === 'string' && body.version ? body.version : (entry.latest ?? entry.versions[0].version);
    const v = entry.versions.find((x) => x.version === want);
    if (!v) throw fail('not_found', `the index has no version ${want} of "${body.key}"`);
    if (v.kind !== undefined && v.kind !== 'task') throw bad(`version ${want} of "${body.key}" is a "${v.kind}" plugin, not a task plugin`);
    if (typeof v.sha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(v.sha256))
      throw fail('market_index_invalid', `the index gives no valid sha256 for ${body.key}@${want}`);
    const fileUrl = new URL(v.path, url);
    const bytes = await fetchBytes(fileUrl, MAX_FILE_BYTES, this.core.outbound.content);
    const got = createHash('sha256').update(bytes).digest('hex');
    if (got !== v.sha256.toLowerCase()) throw fail('market_sha256_mismatch', { file: fileUrl.href, got, want: v.sha256.toLowerCase() });
    let icon: string | undefined;
    if (entry.iconFile?.path && entry.iconFile.sha256) {
      try {
        const iconUrl = new URL(entry.iconFile.path, url);
        if (iconUrl.origin === url.origin) {
          const ib = await fetchBytes(iconUrl, 512 * 1024, this.core.outbound.content);
          if (createHash('sha256').update(ib).digest('hex') === entry.iconFile.sha256.toLowerCase()) {
            icon = `data:${/\.svg$/i.test(iconUrl.pathname) ? 'image/svg+xml' : 'image/png'};base64,${ib.toString('base64')}`;
          }
        }
      } catch {
        icon = undefined;
      }
    }
    return this.admin.upload({ source: bytes.toString('utf8'), sourceSha256: got, icon, enabled: body.enabled, force: body.force }, actor);
  }
}
