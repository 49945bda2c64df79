/** Errors of the plugin runtime. Messages are safe to show: they never carry a host stack trace. */

export type PluginCallErrorKind = 'timeout' | 'memory' | 'thrown' | 'invalid_result' | 'admission' | 'not_found' | 'runtime';

/** A hook call failed: timeout, memory limit, an error thrown by the plugin, or an invalid return value. */
export class PluginCallError extends Error {
  constructor(
    readonly pluginKey: string,
    readonly hook: string,
    readonly kind: PluginCallErrorKind,
    /** The readable reason alone, without the plugin/hook prefix (for callers that show it as is). */
    readonly detail: string,
  ) {
    super(`plugin ${pluginKey} ${hook}: ${detail}`);
    this.name = 'PluginCallError';
  }
}

/** A plugin failed to load or validate. `field` names the manifest field or export at fault. */
export class PluginLoadError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'PluginLoadError';
  }
}

/** Truncates to `max` characters and replaces C0/C1 control characters (except none) with spaces. */
export function cleanMessage(s: string, max = 500): string {
  // eslint-disable-next-line no-control-regex
  let out = String(s).replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  if (out.length > max) out = out.slice(0, max) + '…';
  return out;
}
