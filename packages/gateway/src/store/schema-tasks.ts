/** Tables of the task lifecycle (filled by migration 003_tasks). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface TaskTables {}
