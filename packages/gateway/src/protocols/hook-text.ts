/**
 * Text a plugin hook threw may reach the caller (docs/plugins.md). It is made readable and
 * safe here: stack traces are cut, host file paths and things that look like credentials are
 * replaced, control characters become spaces, and the text is capped at 512 characters.
 */
export const HOOK_TEXT_MAX = 512;

const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, '$1 [redacted]'],
  [/\bsk-[A-Za-z0-9_-]{6,}/g, 'sk-[redacted]'],
  [/\b(api[_-]?key|access[_-]?token|secret|password|token|key|access|signature|sig)=([^&\s"']+)/gi, '$1=[redacted]'],
  [/\b(https?:\/\/)[^/\s:@]+:[^/\s@]+@/gi, '$1[redacted]@'],
  [/\b(x-api-key|authorization|x-goog-api-key)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, '$1$2[redacted]'],
];

/** Absolute paths under the usual host roots, `file://` URLs, Node internals and Windows drive paths. */
const PATH_PATTERNS: Array<[RegExp, string]> = [
  [/file:\/\/\S+/gi, '[path]'],
  [/\bnode:internal\/[^\s)]*/g, '[internal]'],
  [
    /(?<![\w.:/~-])\/(?:home|root|work|usr|opt|srv|var|tmp|etc|app|apps|mnt|proc|Users|private|snap|data|nix|workspace)\/[^\s"'`),]*/g,
    '[path]',
  ],
  [/\b[A-Za-z]:\\[^\s"'`),]+/g, '[path]'],
];

/** The message of a thrown hook error (or any value), sanitised and capped. */
export function sanitizeHookText(input: unknown, max = HOOK_TEXT_MAX): string {
  const detail =
    input && typeof input === 'object' && typeof (input as { detail?: unknown }).detail === 'string'
      ? (input as { detail: string }).detail
      : null;
  let s = detail ?? (input instanceof Error ? input.message : typeof input === 'string' ? input : String(input ?? ''));
  s = s.replace(/^(?:PluginCallError:\s*)/, '');
  // A stack trace starts at the first "at ..." frame line; nothing from there on is shown.
  const frame = s.search(/\r?\n\s*at\s/);
  if (frame >= 0) s = s.slice(0, frame);
  s = s.replace(/\s+at\s+(?:async\s+)?[\w.$<>[\]]*\s*\((?:file:|node:|\/|[A-Za-z]:\\)[^)]*\)/g, '');
  for (const [re, rep] of PATH_PATTERNS) s = s.replace(re, rep);
  // eslint-disable-next-line no-control-regex
  s = s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  for (const [re, rep] of SECRET_PATTERNS) s = s.replace(re, rep);
  s = s.replace(/\s{2,}/g, ' ').trim();
  const chars = Array.from(s);
  if (chars.length > max) s = chars.slice(0, max - 1).join('') + '…';
  return s || 'plugin hook failed';
}

/** Sanitised text, with secrets known to the host (channel keys) removed as well. */
export function scrubKnown(text: string, secrets: Iterable<string | null | undefined>): string {
  let s = text;
  for (const k of secrets) if (k && k.length >= 4) s = s.split(k).join('[redacted]');
  return s;
}
