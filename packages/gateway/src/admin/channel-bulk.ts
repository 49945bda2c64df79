/**
 * Channel actions over many channels at once, at the paths New API's operators use: a tag's channels
 * enabled, disabled or edited together, a channel copied, several deleted by id, every disabled
 * channel deleted. Each changed channel is audited on its own; the channels revision moves once.
 */
import type { Core } from '../core.ts';
import { fail } from '../platform/errors.ts';
import { isUniqueViolation } from '../store/db.ts';
import { Reader, fieldError, type Obj } from '../platform/validate.ts';
import { ChannelStore } from '../channels/store.ts';
import { auditView, type ChannelAdmin, type ChannelInput, type ChannelView } from './channels.ts';
import type { Changes } from './changes.ts';
import type { Actor } from './users.ts';
import type { AuditLog } from '../logs/audit.ts';

/** The fields `PUT /api/channel/tag` may set on every channel of a tag (and `new_tag`, a new name for the tag). */
const TAG_EDIT_FIELDS = [
  'priority',
  'weight',
  'models',
  'groups',
  'model_mapping',
  'header_override',
  'param_override',
  'test_model',
  'key_mode',
];

export class ChannelBulk {
  constructor(
    private readonly core: Core,
    private readonly channels: ChannelAdmin,
    private readonly changes: Changes,
    private readonly audit: AuditLog,
  ) {}

  private get store() {
    return new ChannelStore(this.core.h);
  }

  /** The tag a body names (`{tag}`), required. */
  parseTag(raw: unknown, extra: string[] = []): { tag: string; r: Reader } {
    const r = Reader.of(raw).only(['tag', ...extra]);
    return { tag: r.str('tag', { required: true, max: 64 })!, r };
  }

  /** Enables (status 1) or disables by hand (status 2) every channel of a tag; returns the channels changed. */
  async setTagStatus(tag: string, enabled: boolean, actor: Actor): Promise<number[]> {
    const rows = await this.store.byTag(tag);
    if (rows.length === 0) throw fail('channel_not_found', `no channel has the tag "${tag}"`);
    const changed: number[] = [];
    await this.changes.batched(async () => {
      for (const row of rows) {
        const want = enabled ? 1 : 2;
        if (Number(row.status) === want) continue;
        await this.channels.setStatus(Number(row.id), want, enabled ? null : `disabled with the tag ${tag}`, actor);
        changed.push(Number(row.id));
      }
    });
    return changed;
  }

  /** Parses the body of `PUT /api/channel/tag`: the tag, the fields to set, and `new_tag`. */
  parseTagEdit(raw: unknown): { tag: string; input: ChannelInput } {
    const { tag, r } = this.parseTag(raw, [...TAG_EDIT_FIELDS, 'new_tag']);
    const fields: Obj = {};
    for (const k of TAG_EDIT_FIELDS) if (r.obj[k] !== undefined) fields[k] = r.obj[k];
    const input = this.channels.parse(fields, 'update');
    if (r.has('new_tag') || r.obj.new_tag === null) input.tag = r.nullableStr('new_tag', { max: 64 }) || null;
    if (Object.keys(input).length === 0) throw fieldError('tag', `give at least one field to set: new_tag, ${TAG_EDIT_FIELDS.join(', ')}`);
    return { tag, input };
  }

  /** Applies the same fields to every channel of a tag; returns the channels that changed. */
  async editTag(tag: string, input: ChannelInput, actor: Actor): Promise<ChannelView[]> {
    const rows = await this.store.byTag(tag);
    if (rows.length === 0) throw fail('channel_not_found', `no channel has the tag "${tag}"`);
    const out: ChannelView[] = [];
    await this.changes.batched(async () => {
      for (const row of rows) {
        const r = await this.channels.update(Number(row.id), input, `channel ${row.name}`, { actor });
        if (r.changed) out.push(r.view);
      }
    });
    return out;
  }

  /**
   * Copies a channel (keys, models, settings, tag …) under the name plus `suffix` (default `_copy`);
   * the copy starts enabled, untested, with no balance unless `keepBalance`.
   */
  async copy(id: number, opts: { suffix?: string; keepBalance?: boolean }, actor: Actor): Promise<ChannelView> {
    const src = await this.channels.row(id);
    const now = Date.now();
    const name = `${src.name}${opts.suffix ?? '_copy'}`.slice(0, 128);
    const { id: _id, ...rest } = src;
    let newId: number;
    try {
      newId = await this.store.insert({
        ...rest,
        name,
        status: 1,
        status_reason: null,
        key_state: '{}',
        recovery: null,
        last_test: null,
        response_time_ms: null,
        tested_at: null,
        balance: opts.keepBalance ? src.balance : null,
        balance_updated_at: opts.keepBalance ? src.balance_updated_at : null,
        created_at: now,
        updated_at: now,
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw fail('channel_exists', `a channel named "${name}" already exists: give another suffix`);
      throw e;
    }
    await this.changes.changed('channels');
    const made = await this.channels.get(newId);
    await this.audit.record(actor, 'channel.copy', { type: 'channel', id: newId }, null, { ...auditView(made), copied_from: id });
    return made;
  }

  /** Deletes the channels with these ids (ids without a channel are skipped); returns how many went. */
  async removeMany(ids: number[], actor: Actor): Promise<number> {
    const rows = (await Promise.all([...new Set(ids)].map((i) => this.store.byId(i)))).filter((r) => r !== undefined);
    return this.removeRows(rows, actor);
  }

  /** Deletes every channel disabled by hand or automatically; returns how many went. */
  async removeDisabled(actor: Actor): Promise<number> {
    return this.removeRows(await this.store.disabled(), actor);
  }

  private async removeRows(rows: Awaited<ReturnType<ChannelStore['disabled']>>, actor: Actor): Promise<number> {
    if (rows.length === 0) return 0;
    const n = await this.store.removeMany(rows.map((r) => Number(r.id)));
    await this.changes.changed('channels');
    for (const r of rows)
      await this.audit.record(actor, 'channel.delete', { type: 'channel', id: Number(r.id) }, auditView(this.channels.view(r)), null);
    return n;
  }
}

/** The ids of `POST /api/channel/batch` (`{ids: [..]}`, at most 1,000). */
export function parseIds(raw: unknown): number[] {
  const r = Reader.of(raw).only(['ids']);
  const v = r.obj.ids;
  if (!Array.isArray(v) || v.length === 0) throw fieldError('ids', 'must be a non-empty list of channel ids');
  if (v.length > 1000) throw fieldError('ids', 'must list at most 1000 ids');
  return v.map((x, i) => {
    if (typeof x !== 'number' || !Number.isInteger(x) || x < 1) throw fieldError(`ids[${i}]`, 'must be a positive integer');
    return x;
  });
}
