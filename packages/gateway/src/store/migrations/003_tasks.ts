import type { MigrationCtx } from './util.ts';

/** Task lifecycle tables. */
export async function up(_ctx: MigrationCtx): Promise<void> {}
