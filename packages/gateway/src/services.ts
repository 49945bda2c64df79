/**
 * The services of every area, filled in by each area's `init` (see areas.ts). Each area adds its own
 * member by declaration merging:
 *
 *   declare module '../services.ts' { interface Services { accounts: Accounts } }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Services {}
