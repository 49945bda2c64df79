/**
 * Text a plugin hook threw may reach the caller (SPEC §4.5 rule 4, §7). It is made readable and
 * safe here: control characters become spaces, things that look like credentials are replaced, and
 * the text is capped at 512 characters.
 */
export const HOOK_TEXT_MAX = 512;

const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, '$1 [redacted]'],
  [/\bsk-[A-Za-z0-9_-]{6,}/g, 'sk-[redacted]'],
  [/\b(api[_-]?key|access[_-]?token|secret|password|token|key|access|signature|sig)=([^&\s"']+)/gi, '$1=[redacted]'],
  [/\b(https?:\/\/)[^/\s:@]+:[^/\s@]+@/gi, '$1[redacted]@'],
  [/\b(x-api-key|authorization|x-goog-api-key)(["']?\s*[:=]\s*["']?)[^\s"',}]+/gi, '$1$2[redacted]'],
];

/** The message of a thrown hook error (or any value), sanitised and capped. */
export function sanitizeHookText(input: unknown, max = HOOK_TEXT_MAX): string {
  const detail = input && typeof input === 'object' && typeof (input as { detail?: unknown }).detail === 'string' ? (input as { detail: string }).detail : null;
  let s = detail ?? (input instanceof Error ? input.message : typeof input === 'string' ? input : String(input ?? ''));
  s = s.replace(/^(?:PluginCallError:\s*)/, '');
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
