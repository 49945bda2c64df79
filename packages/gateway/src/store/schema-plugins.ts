/** Tables of the plugin runtime (filled by migration 002_plugins). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PluginTables {}
