/** Tables of the plugin runtime (filled by migration 002_plugins). */

/** One uploaded version of a plugin. Rows are never changed after insert (only deleted). */
export interface PluginVersionRow {
  plugin_key: string;
  version: string;
  source: string;
  sha256: string;
  /** JSON of the manifest as the plugin declared it (original spellings). */
  manifest: string;
  /** Base64 icon bytes, or null. */
  icon: string | null;
  /** `image/png` or `image/svg+xml`. */
  icon_type: string | null;
  uploaded_at: number;
}

/** Per plugin: which version is active, and whether it is enabled. */
export interface PluginRow {
  plugin_key: string;
  active_version: string | null;
  /** 1 enabled, 0 disabled. */
  enabled: number;
  remark: string | null;
  created_at: number;
  updated_at: number;
}

export interface PluginTables {
  plugin_versions: PluginVersionRow;
  plugins: PluginRow;
}
