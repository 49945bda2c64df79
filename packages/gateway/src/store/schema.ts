/**
 * The database as Kysely sees it: the tables of every area, joined. Times are unix milliseconds,
 * money is integer quota units, booleans are 0/1 integers, JSON is text.
 */
import type { CoreTables } from './schema-core.ts';
import type { PluginTables } from './schema-plugins.ts';
import type { TaskTables } from './schema-tasks.ts';
import type { AuditTables } from './schema-audit.ts';
import type { SignupTables } from './schema-signup.ts';
import type { SsoTables } from './schema-sso.ts';
import type { TwoFactorTables } from './schema-two-factor.ts';
import type { PlanTables } from './schema-plans.ts';
import type { McpTables } from './schema-mcp.ts';
import type { TeamTables } from './schema-teams.ts';

export interface Database
  extends CoreTables, PluginTables, TaskTables, AuditTables, SignupTables, SsoTables, TwoFactorTables, PlanTables, McpTables, TeamTables {}
export type * from './schema-core.ts';
export type * from './schema-plans.ts';
export type * from './schema-plugins.ts';
export type * from './schema-tasks.ts';
export type * from './schema-audit.ts';
export type * from './schema-signup.ts';
export type * from './schema-sso.ts';
export type * from './schema-two-factor.ts';
export type * from './schema-mcp.ts';
export type * from './schema-teams.ts';
