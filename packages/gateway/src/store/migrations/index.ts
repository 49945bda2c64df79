/**
 * Migrations run at start. Two processes starting together are safe: Kysely's migrator takes a
 * lock (a row lock on PostgreSQL/MySQL; SQLite serialises writers) and skips what already ran.
 */
import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { DbHandle } from '../db.ts';
import type { MigrationCtx } from './util.ts';
import * as m001 from './001_core.ts';
import * as m002 from './002_plugins.ts';
import * as m003 from './003_tasks.ts';
import * as m004 from './004_task_protocol.ts';
import * as m005 from './005_relay_responses.ts';
import * as m006 from './006_quota_holds.ts';
import * as m007 from './007_node_leases.ts';
import * as m008 from './008_open_reserves.ts';
import * as m009 from './009_usage_rollup.ts';
import * as m012 from './012_redemption_payments.ts';
import * as m017 from './017_cache_write_prices.ts';
import * as m018 from './018_relay_conversations.ts';
import * as m019 from './019_limits_budgets.ts';
import * as m020 from './020_task_callbacks.ts';
import * as m021 from './021_audit_alerts.ts';
import * as m022 from './022_signup_email.ts';
import * as m023 from './023_sso.ts';
import * as m024 from './024_two_factor.ts';
import * as m025 from './025_call_pages.ts';
import * as m026 from './026_log_search.ts';
import * as m027 from './027_sso_changed_by.ts';
import * as m028 from './028_usage_cache.ts';
import * as m029 from './029_channel_caps.ts';
import * as m030 from './030_plans.ts';
import * as m031 from './031_mcp_servers.ts';
import * as m032 from './032_channel_chores.ts';
import * as m033 from './033_price_rules.ts';
import * as m034 from './034_usage_daily.ts';
import * as m035 from './035_teams.ts';
import * as m036 from './036_team_payments.ts';
import * as m037 from './037_team_plans.ts';
import * as m038 from './038_log_totals_indexes.ts';
import * as m039 from './039_ledger_team_partial.ts';
import * as m040 from './040_usage_rank_index.ts';

type Step = { up(ctx: MigrationCtx): Promise<void> };
const STEPS: Record<string, Step> = {
  '001_core': m001,
  '002_plugins': m002,
  '003_tasks': m003,
  '004_task_protocol': m004,
  '005_relay_responses': m005,
  '006_quota_holds': m006,
  '007_node_leases': m007,
  '008_open_reserves': m008,
  '009_usage_rollup': m009,
  '012_redemption_payments': m012,
  '017_cache_write_prices': m017,
  '018_relay_conversations': m018,
  '019_limits_budgets': m019,
  '020_task_callbacks': m020,
  '021_audit_alerts': m021,
  '022_signup_email': m022,
  '023_sso': m023,
  '024_two_factor': m024,
  '025_call_pages': m025,
  '026_log_search': m026,
  '027_sso_changed_by': m027,
  '028_usage_cache': m028,
  '029_channel_caps': m029,
  '030_plans': m030,
  '031_mcp_servers': m031,
  '032_channel_chores': m032,
  '033_price_rules': m033,
  '034_usage_daily': m034,
  '035_teams': m035,
  '036_team_payments': m036,
  '037_team_plans': m037,
  '038_log_totals_indexes': m038,
  '039_ledger_team_partial': m039,
  '040_usage_rank_index': m040,
};

/** Brings the schema to the latest migration (or, given `upTo`, to that one: tests of an upgrade). */
export async function migrate(h: DbHandle, upTo?: string): Promise<void> {
  const provider: MigrationProvider = {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, step] of Object.entries(STEPS)) {
        out[name] = { up: (db) => step.up({ db, dialect: h.dialect }) };
      }
      return out;
    },
  };
  const migrator = new Migrator({ db: h.db, provider, migrationTableName: 'gh_migrations', migrationLockTableName: 'gh_migrations_lock' });
  const { error, results } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest());
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed ? `${failed.migrationName} ` : ''}failed: ${(error as Error).message || String(error)}`);
  }
}
