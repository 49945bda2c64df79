/**
 * Applies a validated configuration file to the database through the admin services, idempotently:
 * what exists and matches is left alone (no write, no revision bump), what differs is updated, what is
 * missing is created. Nothing absent from the file is deleted. Identity: users by username, keys with
 * a fixed value by that value (then by user and name), keys without one by (user, name), channels by
 * name, prices by model, group ratios by group, options by key, plans by name, teams by name (their
 * members by username; config-file/teams.ts).
 *
 * Applying never fails on what users may change themselves: a key's name is set when the file creates
 * the key and left as its user renamed it afterwards (a renamed key with a fixed value is still found
 * by its value, never inserted twice); its status follows the file only when the file states it.
 *
 * Quota: `quota_usd` of a user (or key) sets the starting balance (cap) when the row is created and
 * is ignored afterwards, so restarting never adds money twice; later changes go through top-ups.
 * Passwords: set at creation, and replaced only when the file's password no longer verifies.
 */
import type { Admin } from '../admin/index.ts';
import { verifyPassword } from '../platform/crypto.ts';
import { GatewayError, fail } from '../platform/errors.ts';
import type { UserInput } from '../admin/users.ts';
import type { ConfigDoc } from './load.ts';
import { ConfigFileError } from './load.ts';
import type { Sso } from '../accounts/sso.ts';
import type { Plans } from '../billing/plans.ts';
import type { McpServers } from '../mcp/servers.ts';
import { KeyStore } from '../accounts/key-store.ts';
import { KEYS_REVISION } from '../accounts/keys.ts';
import { getTeamByName, memberRole } from '../teams/store.ts';
import { applyConfigTeam, type TeamApplyDeps } from './teams.ts';

export interface ApplySummary {
  created: number;
  updated: number;
  unchanged: number;
}

export async function applyConfigDoc(
  admin: Admin,
  doc: ConfigDoc,
  file: string,
  say: (line: string) => void = () => {},
  plans?: Plans,
  teams?: TeamApplyDeps,
): Promise<ApplySummary> {
  const sum: ApplySummary = { created: 0, updated: 0, unchanged: 0 };
  const count = (changed: boolean | 'created') => {
    if (changed === 'created') sum.created++;
    else if (changed) sum.updated++;
    else sum.unchanged++;
  };
  const at = async <T>(path: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof GatewayError) {
        const msg = e.message.startsWith(path) ? e.message : `${path}: ${e.message}`;
        throw new ConfigFileError(file, path, msg);
      }
      throw e;
    }
  };

  await admin.changes.batched(async () => {
    for (const u of doc.users) {
      await at(u.at, async () => {
        const cur = await admin.users.findByUsername(u.input.username!);
        if (!cur) {
          await admin.users.create(u.input, null, u.at);
          return count('created');
        }
        const diff: UserInput = {};
        if (u.given.has('display_name') && u.input.display_name !== cur.display_name) diff.display_name = u.input.display_name;
        if (u.given.has('role') && u.input.role !== cur.role) diff.role = u.input.role;
        if (u.given.has('group') && u.input.group !== cur.group_name) diff.group = u.input.group;
        if (u.given.has('status') && u.input.status !== Number(cur.status)) diff.status = u.input.status;
        for (const f of ['rpm', 'tpm', 'max_concurrency'] as const) {
          if (u.given.has(f) && u.input[f] !== Number(cur[f])) diff[f] = u.input[f];
        }
        if (['budget', 'budget_usd', 'budget_period'].some((f) => u.given.has(f))) {
          const quota = cur.budget_quota === null ? null : Number(cur.budget_quota);
          if ((u.input.budget_quota ?? null) !== quota || (u.input.budget_period ?? null) !== cur.budget_period) {
            diff.budget_quota = u.input.budget_quota ?? null;
            diff.budget_period = u.input.budget_period ?? null;
          }
        }
        if (u.input.password && !(await verifyPassword(u.input.password, cur.password_hash))) diff.password = u.input.password;
        if (Object.keys(diff).length === 0) return count(false);
        await admin.users.update(Number(cur.id), diff, null);
        count(true);
      });
    }

    for (const t of teams ? doc.teams : []) {
      await at(t.at, async () => {
        const changed = await applyConfigTeam(teams!, t, (name) => admin.users.findByUsername(name).then((u) => u && { id: Number(u.id) }));
        if (changed) await admin.changes.changed(KEYS_REVISION);
        count(changed);
      });
    }

    for (const k of doc.keys) {
      await at(k.at, async () => {
        const owner = await admin.users.findByUsername(k.user);
        if (!owner) throw fail('invalid_field', `${k.at}.user: no user "${k.user}" (declare it under users)`);
        const byValue = k.input.key ? await admin.keys.findByValue(k.input.key) : undefined;
        if (byValue && Number(byValue.user_id) !== Number(owner.id)) {
          throw fail('invalid_field', `${k.at}.key: this key value belongs to another user`);
        }
        const cur = byValue ?? (await admin.keys.findByName(Number(owner.id), k.input.name!));
        // The key's team: its user must be a member (a key of a team is charged to the team's wallet).
        let teamId: number | null = null;
        if (k.team !== null && teams) {
          const team = await getTeamByName(teams.core.h.db, k.team);
          if (!team) throw fail('invalid_field', `${k.at}.team: no team "${k.team}"`);
          if (!(await memberRole(teams.core.h.db, team.id, Number(owner.id))))
            throw fail('invalid_field', `${k.at}.team: user "${k.user}" is not a member of team "${k.team}"`);
          teamId = team.id;
        }
        const setTeam = async (id: number, was: number | null) => {
          if (!teams || teamId === was) return false;
          await new KeyStore(teams.core.h).setTeam(id, teamId);
          await admin.changes.changed(KEYS_REVISION);
          return true;
        };
        if (!cur) {
          const made = await admin.keys.create({ ...k.input, user_id: Number(owner.id) }, null);
          await setTeam(made.id, null);
          if (!k.input.key) say(`Created API key "${k.input.name}" for ${k.user}: ${made.key}  (shown once)`);
          return count('created');
        }
        const rest = { ...k.input };
        delete rest.quota;
        // The name is the user's once the key exists (matched by value, it may have been renamed).
        if (byValue) delete rest.name;
        const r = await admin.keys.update(Number(cur.id), rest, null);
        const moved = await setTeam(Number(cur.id), cur.team_id === null ? null : Number(cur.team_id));
        count(r.changed || moved);
      });
    }

    for (const c of doc.channels) {
      await at(c.at, async () => {
        const cur = await admin.channels.findByName(c.input.name!);
        if (!cur) {
          await admin.channels.create(c.input, c.at, { requireInstalled: false });
          return count('created');
        }
        const r = await admin.channels.update(Number(cur.id), c.input, c.at, { requireInstalled: false });
        count(r.changed);
      });
    }

    for (const p of doc.prices) {
      await at(p.at, async () => count((await admin.prices.set(p.input)).changed));
    }
    for (const g of doc.groupRatios) {
      await at(g.at, async () => count(await admin.prices.setRatio(g.input)));
    }
    for (const o of doc.options) {
      await at(o.at, async () => count(await admin.options.set(o.key, o.value, o.at)));
    }
    for (const p of plans ? doc.plans : []) {
      await at(p.at, async () => count(await plans!.applyFromFile(p.input)));
    }
  });
  return sum;
}

/**
 * Applies the `sso:` section (after the admin part, by the SSO area): providers by id, created when
 * missing, updated where they differ (the client secret compared after opening it). Nothing deleted.
 */
export async function applySsoProviders(sso: Sso, doc: ConfigDoc, file: string): Promise<ApplySummary> {
  const sum: ApplySummary = { created: 0, updated: 0, unchanged: 0 };
  for (const p of doc.sso) {
    try {
      // The file has root's authority: its providers count as changed by root (accounts/sso.ts).
      if (!(await sso.providers.row(p.input.id!))) {
        await sso.providers.create(p.input, null);
        sum.created++;
        continue;
      }
      const rest = { ...p.input };
      delete rest.id;
      delete rest.kind;
      if ((await sso.providers.update(p.input.id!, rest, null)).changed) sum.updated++;
      else sum.unchanged++;
    } catch (e) {
      if (e instanceof GatewayError)
        throw new ConfigFileError(file, p.at, e.message.startsWith(p.at) ? e.message : `${p.at}: ${e.message}`);
      throw e;
    }
  }
  return sum;
}

/**
 * Applies the `mcp_servers:` section (after the admin part): servers by name, created when missing,
 * updated where they differ (headers and OAuth credentials compared after opening them). Nothing deleted.
 */
export async function applyMcpServers(servers: McpServers, doc: ConfigDoc, file: string): Promise<ApplySummary> {
  const sum: ApplySummary = { created: 0, updated: 0, unchanged: 0 };
  for (const m of doc.mcpServers) {
    try {
      if (!(await servers.row(m.input.name!))) {
        await servers.create(m.input);
        sum.created++;
      } else if ((await servers.update(m.input.name!, m.input)).changed) sum.updated++;
      else sum.unchanged++;
    } catch (e) {
      if (e instanceof GatewayError)
        throw new ConfigFileError(file, m.at, e.message.startsWith(m.at) ? e.message : `${m.at}: ${e.message}`);
      throw e;
    }
  }
  return sum;
}
