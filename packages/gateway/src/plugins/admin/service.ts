/**
 * Plugin administration (docs/plugins.md): upload, versions, activation, status with the
 * cascade/force rules, dry runs, deletion, icons. Every write bumps the plugin revision in the same
 * transaction, so this node and the others rebuild their generation.
 */
import type { Core } from '../../core.ts';
import { ERRORS, GatewayError, catalogArgs, fail } from '../../platform/errors.ts';
import type { Tx } from '../../store/db.ts';
import type { PluginHost } from '../runtime/host.ts';
import { LoadedPlugin, MAX_SOURCE_BYTES } from '../runtime/loader.ts';
import { sha256Hex } from '../../platform/crypto.ts';
import { isGuardrailMeta, type LoadedGuardrail } from '../runtime/guardrail.ts';
import { isMcpToolMeta, type LoadedMcpTool } from '../runtime/mcp-tool.ts';

/** The plugin kinds (docs/plugins.md): task plugins, guardrails and MCP tools. */
export type PluginKind = 'task' | 'guardrail' | 'mcp_tool';
const kindOf = (manifest: string): PluginKind => {
  if (!manifest.includes('"guardrail"') && !manifest.includes('"mcp_tool"')) return 'task';
  const meta = JSON.parse(manifest) as unknown;
  return isGuardrailMeta(meta) ? 'guardrail' : isMcpToolMeta(meta) ? 'mcp_tool' : 'task';
};
import { GenerationBuilder } from '../runtime/generation.ts';
import { PluginCallError, PluginLoadError } from '../runtime/errors.ts';
import { bindingOf, parseSettings, TYPE_PEER_GATEWAY, type BoundChannel } from '../runtime/channels.ts';
import { parseIcon } from './icon.ts';
import { ChannelStore } from '../../channels/store.ts';
import { AuditLog, type AuditActor } from '../../logs/audit.ts';

export interface UploadInput {
  source?: unknown;
  enabled?: unknown;
  remark?: unknown;
  force?: unknown;
  sourceSha256?: unknown;
  icon?: unknown;
}

export class InUseError extends GatewayError {
  constructor(readonly data: { channels: BoundChannel[]; in_flight_count: number }) {
    super(...catalogArgs('plugin_in_use', ERRORS.plugin_in_use.message));
  }
}

const badRequest = (m: string) => fail('invalid_request', m);
const notFound = (m: string) => fail('not_found', m);

function semverCompare(a: string, b: string): number {
  const pa = /^(\d+)\.(\d+)\.(\d+)(?:-([^+]*))?/.exec(a) ?? [];
  const pb = /^(\d+)\.(\d+)\.(\d+)(?:-([^+]*))?/.exec(b) ?? [];
  for (let i = 1; i <= 3; i++) {
    const d = Number(pa[i] ?? 0) - Number(pb[i] ?? 0);
    if (d) return d;
  }
  if (pa[4] === pb[4]) return 0;
  if (!pa[4]) return 1;
  if (!pb[4]) return -1;
  return pa[4] < pb[4] ? -1 : 1;
}

export class PluginAdmin {
  private readonly audit: AuditLog;

  constructor(
    private readonly core: Core,
    private readonly host: PluginHost,
  ) {
    this.audit = new AuditLog(core);
    host.activeSources = () => this.activeSources();
  }

  /** The enabled plugins' active versions (the host's rebuild). */
  private activeSources() {
    return this.db
      .selectFrom('plugins')
      .innerJoin('plugin_versions', (j) =>
        j.onRef('plugin_versions.plugin_key', '=', 'plugins.plugin_key').onRef('plugin_versions.version', '=', 'plugins.active_version'),
      )
      .select([
        'plugins.plugin_key',
        'plugin_versions.version',
        'plugin_versions.source',
        'plugin_versions.sha256',
        'plugin_versions.manifest',
      ])
      .where('plugins.enabled', '=', 1)
      .execute();
  }

  private get db() {
    return this.core.h.db;
  }

  private async loadChecked(source: string): Promise<LoadedPlugin> {
    try {
      return await this.host.loadDetached(source);
    } catch (e) {
      if (e instanceof PluginLoadError) throw fail('plugin_invalid', e.message, { details: e.field ? { field: e.field } : undefined });
      throw e;
    }
  }

  /** Channels bound to a plugin (by key, peer list, or owned legacy channel type). */
  async boundChannels(key: string, ownedTypes: readonly number[]): Promise<BoundChannel[]> {
    const rows = await new ChannelStore(this.core.h).bindings();
    const out: BoundChannel[] = [];
    for (const r of rows) {
      const via = bindingOf(r, key, ownedTypes);
      if (via) out.push({ id: Number(r.id), name: r.name, type: r.type, status: r.status, via });
    }
    return out;
  }

  private async ownedTypes(key: string): Promise<number[]> {
    const p = this.host.current().plugins.get(key);
    if (p) return p.manifest.channelTypes;
    const row = await this.activeRow(key);
    if (!row) return [];
    try {
      const m = JSON.parse(row.manifest) as { channelTypes?: number[] };
      return Array.isArray(m.channelTypes) ? m.channelTypes : [];
    } catch {
      return [];
    }
  }

  private async activeRow(key: string) {
    return this.db
      .selectFrom('plugins')
      .innerJoin('plugin_versions', (j) =>
        j.onRef('plugin_versions.plugin_key', '=', 'plugins.plugin_key').onRef('plugin_versions.version', '=', 'plugins.active_version'),
      )
      .selectAll('plugin_versions')
      .select(['plugins.enabled', 'plugins.remark'])
      .where('plugins.plugin_key', '=', key)
      .executeTakeFirst();
  }

  /** Refuses a plugin that conflicts with the live generation (other keys), naming the counterpart. */
  preflight(p: LoadedPlugin): void {
    const c = GenerationBuilder.from(this.host.current(), p.key).conflict(p);
    if (c)
      throw fail(
        'plugin_conflict',
        `${p.key}@${p.version} conflicts with the running plugins: ${c} (upload with force or disabled to store it anyway)`,
      );
  }

  async list() {
    const gen = this.host.current();
    const rows = await this.db
      .selectFrom('plugins')
      .leftJoin('plugin_versions', (j) =>
        j.onRef('plugin_versions.plugin_key', '=', 'plugins.plugin_key').onRef('plugin_versions.version', '=', 'plugins.active_version'),
      )
      .select([
        'plugins.plugin_key',
        'plugins.enabled',
        'plugins.remark',
        'plugins.active_version',
        'plugin_versions.manifest',
        'plugin_versions.sha256',
        'plugin_versions.icon',
      ])
      .execute();
    const channels = await new ChannelStore(this.core.h).bindings();
    const items = await Promise.all(
      rows
        .filter((r) => !r.manifest || kindOf(r.manifest) === 'task')
        .map(async (r) => {
          const live = gen.plugins.get(r.plugin_key);
          let meta: Record<string, unknown> | null = null;
          try {
            meta = r.manifest ? (JSON.parse(r.manifest) as Record<string, unknown>) : null;
          } catch {
            meta = null;
          }
          const owned = Array.isArray(meta?.channelTypes) ? (meta!.channelTypes as number[]) : [];
          const err = gen.errors[r.plugin_key];
          const runtime_status = !r.enabled
            ? 'disabled'
            : live && live.sha256 === r.sha256
              ? 'registered'
              : live
                ? 'compile_failed'
                : err
                  ? 'compile_failed'
                  : 'not_registered';
          return {
            key: r.plugin_key,
            meta,
            source: 'override',
            layer: 'override',
            enabled: !!r.enabled,
            active: !!r.active_version,
            active_version: r.active_version,
            serving_version: live?.version ?? null,
            source_hash: r.sha256 ?? null,
            has_icon: !!r.icon,
            remark: r.remark ?? '',
            runtime_status,
            ...(err ? { runtime_error: err } : {}),
            channel_count: channels.filter((c) => bindingOf(c, r.plugin_key, owned)).length,
            in_flight_count: await this.host.inFlightCounter(r.plugin_key),
            sortPriority: typeof meta?.sortPriority === 'number' ? meta.sortPriority : 0,
          };
        }),
    );
    items.sort((a, b) => b.sortPriority - a.sortPriority || (a.key < b.key ? -1 : 1));
    return items.map(({ sortPriority: _s, ...rest }) => rest);
  }

  private async loadGuardrailChecked(
    source: string,
    kind: 'guardrail' | 'mcp_tool' = 'guardrail',
  ): Promise<LoadedGuardrail | LoadedMcpTool> {
    try {
      return kind === 'mcp_tool' ? await this.host.loadMcpToolDetached(source) : await this.host.loadGuardrailDetached(source);
    } catch (e) {
      if (e instanceof PluginLoadError) throw fail('plugin_invalid', e.message, { details: e.field ? { field: e.field } : undefined });
      throw e;
    }
  }

  /** Loads a stored source as its kind says (task or guardrail), with the task plugins' conflict check when asked. */
  private async recheck(source: string, manifest: string, preflight: boolean): Promise<void> {
    const kind = kindOf(manifest);
    if (kind !== 'task') {
      (await this.loadGuardrailChecked(source, kind)).dispose();
      return;
    }
    const p = await this.loadChecked(source);
    try {
      if (preflight) this.preflight(p);
    } finally {
      p.dispose();
    }
  }

  /** The installed guardrail (docs/guardrails.md) or MCP tool (docs/mcp.md) plugins with their serving state. */
  async listGuardrails(kind: 'guardrail' | 'mcp_tool' = 'guardrail') {
    const rows = await this.db
      .selectFrom('plugins')
      .innerJoin('plugin_versions', (j) =>
        j.onRef('plugin_versions.plugin_key', '=', 'plugins.plugin_key').onRef('plugin_versions.version', '=', 'plugins.active_version'),
      )
      .select([
        'plugins.plugin_key',
        'plugins.enabled',
        'plugins.remark',
        'plugins.active_version',
        'plugin_versions.manifest',
        'plugin_versions.sha256',
      ])
      .execute();
    return rows
      .map((r) => ({ r, meta: JSON.parse(r.manifest) as Record<string, unknown> }))
      .filter(({ meta }) => (kind === 'mcp_tool' ? isMcpToolMeta(meta) : isGuardrailMeta(meta)))
      .map(({ r, meta }) => {
        const live = kind === 'mcp_tool' ? this.host.mcpTool(r.plugin_key) : this.host.guardrail(r.plugin_key);
        const err = (kind === 'mcp_tool' ? this.host.mcpToolErrors : this.host.guardrailErrors)[r.plugin_key];
        return {
          key: r.plugin_key,
          meta,
          enabled: !!r.enabled,
          active_version: r.active_version,
          serving_version: live?.version ?? null,
          source_hash: r.sha256,
          remark: r.remark ?? '',
          runtime_status: !r.enabled
            ? 'disabled'
            : live && live.sha256 === r.sha256
              ? 'registered'
              : err
                ? 'compile_failed'
                : 'not_registered',
          ...(err ? { runtime_error: err } : {}),
        };
      })
      .sort((a, b) => (a.key < b.key ? -1 : 1));
  }

  /** Installs a plugin version of `kind` (task, guardrail or MCP tool). */
  async upload(input: UploadInput, actor: AuditActor = null, kind: PluginKind = 'task') {
    if (typeof input.source !== 'string' || !input.source.trim()) throw badRequest('source is required');
    const source = input.source;
    if (Buffer.byteLength(source, 'utf8') > MAX_SOURCE_BYTES) throw fail('plugin_too_large', 'source is larger than 1 MiB');
    const sha = sha256Hex(source);
    if (input.sourceSha256 !== undefined && input.sourceSha256 !== null && input.sourceSha256 !== '') {
      if (typeof input.sourceSha256 !== 'string' || !/^[0-9a-f]{64}$/i.test(input.sourceSha256))
        throw badRequest('sourceSha256 must be 64 hex characters');
      if (input.sourceSha256.toLowerCase() !== sha) throw fail('source_sha256_mismatch', { sha });
    }
    const enabled = input.enabled === undefined ? true : input.enabled === true;
    if (input.enabled !== undefined && typeof input.enabled !== 'boolean') throw badRequest('enabled must be a boolean');
    const force = input.force === true;
    const remark = typeof input.remark === 'string' ? input.remark.slice(0, 1000) : null;
    const icon = typeof input.icon === 'string' && input.icon ? parseIcon(input.icon) : null;
    const p = kind === 'task' ? await this.loadChecked(source) : await this.loadGuardrailChecked(source, kind);
    try {
      if (enabled && !force && p instanceof LoadedPlugin) this.preflight(p);
      const other = await this.activeRow(p.key);
      const otherKind = other ? kindOf(other.manifest) : kind;
      if (otherKind !== kind) throw fail('plugin_conflict', `the key "${p.key}" is taken by a ${otherKind.replace('_', ' ')} plugin`);
      const now = Date.now();
      const before = await this.db
        .selectFrom('plugins')
        .select(['active_version', 'enabled', 'remark'])
        .where('plugin_key', '=', p.key)
        .executeTakeFirst();
      await this.host.write(async (tx) => {
        const existing = await tx
          .selectFrom('plugin_versions')
          .select(['sha256'])
          .where('plugin_key', '=', p.key)
          .where('version', '=', p.version)
          .executeTakeFirst();
        if (existing && existing.sha256 !== sha) throw fail('version_exists', { key: p.key, version: p.version });
        if (!existing) {
          await tx
            .insertInto('plugin_versions')
            .values({
              plugin_key: p.key,
              version: p.version,
              source,
              sha256: sha,
              manifest: JSON.stringify(p.rawManifest),
              icon: icon ? icon.bytes.toString('base64') : null,
              icon_type: icon?.type ?? null,
              uploaded_at: now,
            })
            .execute();
        }
        const row = await tx.selectFrom('plugins').select('plugin_key').where('plugin_key', '=', p.key).executeTakeFirst();
        if (row) {
          await tx
            .updateTable('plugins')
            .set({ active_version: p.version, enabled: enabled ? 1 : 0, ...(remark !== null ? { remark } : {}), updated_at: now })
            .where('plugin_key', '=', p.key)
            .execute();
        } else {
          await tx
            .insertInto('plugins')
            .values({ plugin_key: p.key, active_version: p.version, enabled: enabled ? 1 : 0, remark, created_at: now, updated_at: now })
            .execute();
        }
      });
      const stored = await this.db
        .selectFrom('plugin_versions')
        .select(['icon'])
        .where('plugin_key', '=', p.key)
        .where('version', '=', p.version)
        .executeTakeFirstOrThrow();
      await this.audit.record(
        actor,
        'plugin.upload',
        { type: 'plugin', id: p.key },
        before ? { active_version: before.active_version, enabled: !!before.enabled, remark: before.remark ?? '' } : null,
        { active_version: p.version, enabled, remark: remark ?? before?.remark ?? '', sha256: sha },
      );
      return {
        plugin: p.key,
        version: p.version,
        meta: p.rawManifest,
        source: 'override',
        layer: 'override',
        has_icon: !!stored.icon,
        sha256: sha,
        enabled,
      };
    } finally {
      p.dispose();
    }
  }

  async detail(key: string, version?: string) {
    const pl = await this.db.selectFrom('plugins').selectAll().where('plugin_key', '=', key).executeTakeFirst();
    if (!pl) throw notFound(`task plugin "${key}" is not installed`);
    const v = version || pl.active_version;
    const row = v
      ? await this.db.selectFrom('plugin_versions').selectAll().where('plugin_key', '=', key).where('version', '=', v).executeTakeFirst()
      : undefined;
    if (version && !row) throw notFound(`task plugin "${key}" has no version ${version}`);
    const live = this.host.current().plugins.get(key);
    return {
      key,
      layer: 'override',
      source: 'override',
      enabled: !!pl.enabled,
      active_version: pl.active_version,
      remark: pl.remark ?? '',
      version: row?.version ?? null,
      meta: row ? (JSON.parse(row.manifest) as unknown) : null,
      normalized_meta: live && live.version === row?.version ? normalisedView(live) : null,
      plugin_source: row?.source ?? null,
      source_hash: row?.sha256 ?? null,
      has_icon: !!row?.icon,
      uploaded_at: row ? Math.floor(row.uploaded_at / 1000) : null,
      runtime_error: this.host.current().errors[key] ?? null,
    };
  }

  async versions(key: string) {
    const pl = await this.db.selectFrom('plugins').select(['active_version']).where('plugin_key', '=', key).executeTakeFirst();
    const rows = await this.db
      .selectFrom('plugin_versions')
      .select(['version', 'sha256', 'uploaded_at', 'icon', 'manifest'])
      .where('plugin_key', '=', key)
      .execute();
    if (!pl && rows.length === 0) throw notFound(`task plugin "${key}" is not installed`);
    rows.sort((a, b) => semverCompare(b.version, a.version));
    return rows.map((r) => ({
      version: r.version,
      sha256: r.sha256,
      source_hash: r.sha256,
      uploaded_at: Math.floor(r.uploaded_at / 1000),
      has_icon: !!r.icon,
      active: r.version === pl?.active_version,
      meta: JSON.parse(r.manifest) as unknown,
    }));
  }

  async activate(key: string, version: unknown, force = false, actor: AuditActor = null) {
    if (typeof version !== 'string' || !version) throw badRequest('version is required');
    const pl = await this.db.selectFrom('plugins').selectAll().where('plugin_key', '=', key).executeTakeFirst();
    const row = await this.db
      .selectFrom('plugin_versions')
      .selectAll()
      .where('plugin_key', '=', key)
      .where('version', '=', version)
      .executeTakeFirst();
    if (!pl || !row) throw notFound(`task plugin "${key}" has no version ${version}`);
    await this.recheck(row.source, row.manifest, !!pl.enabled && !force);
    await this.host.write(async (tx) => {
      await tx.updateTable('plugins').set({ active_version: version, updated_at: Date.now() }).where('plugin_key', '=', key).execute();
    });
    await this.audit.record(
      actor,
      'plugin.activate',
      { type: 'plugin', id: key },
      { active_version: pl.active_version },
      { active_version: version },
    );
    return { plugin: key, active_version: version, generation: this.host.current().revision };
  }

  /** Enables or disables a plugin (the status rules of docs/plugins.md). */
  async setStatus(key: string, enabled: unknown, opts: { cascade?: boolean; force?: boolean } = {}, actor: AuditActor = null) {
    if (typeof enabled !== 'boolean') throw badRequest('enabled must be a boolean');
    const pl = await this.activeRow(key);
    const exists = await this.db.selectFrom('plugins').select(['plugin_key', 'enabled']).where('plugin_key', '=', key).executeTakeFirst();
    if (!exists) throw notFound(`task plugin "${key}" is not installed`);
    if (enabled) {
      if (!pl) throw badRequest(`task plugin "${key}" has no active version to enable`);
      if (!opts.force) await this.recheck(pl.source, pl.manifest, true);
      await this.host.write(async (tx) => {
        await tx.updateTable('plugins').set({ enabled: 1, updated_at: Date.now() }).where('plugin_key', '=', key).execute();
      });
      await this.audit.record(actor, 'plugin.enable', { type: 'plugin', id: key }, { enabled: !!exists.enabled }, { enabled: true });
      return { plugin_enabled: true, disabled_channels: [], unbound_channels: [] };
    }
    const cascade = await this.checkInUse(key, opts);
    await this.host.write(async (tx) => {
      await tx.updateTable('plugins').set({ enabled: 0, updated_at: Date.now() }).where('plugin_key', '=', key).execute();
      await this.applyCascade(tx, key, cascade.channels);
    });
    const out = { plugin_enabled: false, ...summarise(cascade.channels) };
    await this.audit.record(
      actor,
      'plugin.disable',
      { type: 'plugin', id: key },
      { enabled: !!exists.enabled },
      { enabled: false, disabled_channels: out.disabled_channels, unbound_channels: out.unbound_channels },
    );
    return out;
  }

  /** Bound channels require `cascade`, in-flight tasks require `force`; else InUseError. */
  private async checkInUse(key: string, opts: { cascade?: boolean; force?: boolean }) {
    const channels = (await this.boundChannels(key, await this.ownedTypes(key))).filter((c) => c.via === 'peer' || c.status === 1);
    const inFlight = await this.host.inFlightCounter(key);
    if ((channels.length && !opts.cascade) || (inFlight > 0 && !opts.force)) throw new InUseError({ channels, in_flight_count: inFlight });
    return { channels, inFlight };
  }

  /** Type-60 channels get the key removed from their plugin list; other bound channels are disabled. */
  private async applyCascade(tx: Tx, key: string, channels: BoundChannel[]): Promise<void> {
    if (!channels.length) return;
    const now = Date.now();
    const store = new ChannelStore(this.core.h);
    for (const c of channels) {
      if (c.type === TYPE_PEER_GATEWAY) {
        const row = await store.byId(c.id, tx);
        const s = parseSettings(row?.settings) as Record<string, unknown>;
        s.plugins = ((s.plugins as string[] | undefined) ?? []).filter((k) => k !== key);
        await store.update(c.id, { settings: JSON.stringify(s), updated_at: now }, tx);
      } else {
        await store.update(c.id, { status: 2, status_reason: `task plugin ${key} was disabled`, updated_at: now }, tx);
      }
    }
    await this.core.cache.bump(CHANNELS_REVISION, tx);
  }

  async dryRun(key: string, body: { hook?: unknown; member?: unknown; args?: unknown }) {
    if (typeof body.hook !== 'string' || !body.hook) throw badRequest('hook is required');
    if (body.member !== undefined && typeof body.member !== 'string') throw badRequest('member must be a string');
    if (body.args !== undefined && !Array.isArray(body.args)) throw badRequest('args must be an array');
    const row = await this.activeRow(key);
    if (!row) throw notFound(`task plugin "${key}" has no active version`);
    const p = await this.loadChecked(row.source);
    try {
      const hook = body.member ? `${body.hook}.${body.member}` : body.hook;
      const output = await p.callRaw(hook, (body.args as unknown[]) ?? []);
      return { plugin: key, version: row.version, hook, output };
    } catch (e) {
      if (e instanceof PluginCallError) throw fail('plugin_hook_failed', e.message);
      throw e;
    } finally {
      p.dispose();
    }
  }

  async deleteVersion(key: string, version: string, force = false, actor: AuditActor = null) {
    const pl = await this.db.selectFrom('plugins').selectAll().where('plugin_key', '=', key).executeTakeFirst();
    const row = await this.db
      .selectFrom('plugin_versions')
      .select(['version'])
      .where('plugin_key', '=', key)
      .where('version', '=', version)
      .executeTakeFirst();
    if (!pl || !row) throw notFound(`task plugin "${key}" has no version ${version}`);
    const isActive = pl.active_version === version;
    let channels: BoundChannel[] = [];
    if (isActive && pl.enabled) channels = (await this.checkInUse(key, { cascade: force, force })).channels;
    await this.host.write(async (tx) => {
      await tx.deleteFrom('plugin_versions').where('plugin_key', '=', key).where('version', '=', version).execute();
      const left = await tx.selectFrom('plugin_versions').select('version').where('plugin_key', '=', key).executeTakeFirst();
      if (!left) await tx.deleteFrom('plugins').where('plugin_key', '=', key).execute();
      else if (isActive)
        await tx.updateTable('plugins').set({ active_version: null, updated_at: Date.now() }).where('plugin_key', '=', key).execute();
      if (isActive) await this.applyCascade(tx, key, channels);
    });
    const out = { plugin: key, deleted_version: version, ...summarise(channels) };
    await this.audit.record(actor, 'plugin.delete_version', { type: 'plugin', id: key }, { version, active: isActive }, null);
    return out;
  }

  async icon(key: string, version?: string) {
    const pl = await this.db.selectFrom('plugins').select('active_version').where('plugin_key', '=', key).executeTakeFirst();
    const v = version || pl?.active_version;
    if (!v) return null;
    const row = await this.db
      .selectFrom('plugin_versions')
      .select(['icon', 'icon_type'])
      .where('plugin_key', '=', key)
      .where('version', '=', v)
      .executeTakeFirst();
    if (!row?.icon || !row.icon_type) return null;
    return { type: row.icon_type, bytes: Buffer.from(row.icon, 'base64') };
  }
}

/** Revision name of the channel cache (bumped when a cascade changes channels). */
export const CHANNELS_REVISION = 'channels';

function summarise(channels: BoundChannel[]) {
  return {
    disabled_channels: channels.filter((c) => c.type !== TYPE_PEER_GATEWAY).map((c) => c.id),
    unbound_channels: channels.filter((c) => c.type === TYPE_PEER_GATEWAY).map((c) => c.id),
  };
}

export function normalisedView(p: LoadedPlugin) {
  const { routes, ...rest } = p.manifest;
  return { ...rest, routes: routes.map(({ parsed: _p, ...r }) => r) };
}
