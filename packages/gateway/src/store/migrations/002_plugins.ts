import type { MigrationCtx } from './util.ts';

/** Plugin runtime tables. */
export async function up(_ctx: MigrationCtx): Promise<void> {}
