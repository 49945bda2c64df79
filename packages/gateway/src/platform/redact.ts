/**
 * Removes the secrets a request carried upstream (channel keys, credential headers and query values)
 * from upstream error text before it reaches a caller, a log row or the process log. Used only where
 * an upstream error body or message is read — never on successful responses.
 */

const CREDENTIAL_NAME = /authorization|api[-_]?key|token|secret|password|credential|signature|cookie|^key$|^sig$/i;
const REDACTED = '[redacted]';
/** Shorter values are not worth redacting (and would mangle ordinary words). */
const MIN_SECRET = 4;

/**
 * The secrets of one upstream request: the given keys, and the values of credential-looking headers
 * (with the scheme of `Authorization` removed and Basic credentials decoded) and query parameters.
 */
export function sentSecrets(
  keys: ReadonlyArray<string | null | undefined>,
  headers?: Record<string, unknown> | null,
  url?: URL | string | null,
): string[] {
  const out = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.length >= MIN_SECRET) out.add(v);
  };
  for (const k of keys) add(k);
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!CREDENTIAL_NAME.test(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v !== 'string') continue;
      add(v);
      const m = /^(\w+)\s+(.+)$/.exec(v.trim());
      if (!m) continue;
      add(m[2]);
      if (/^basic$/i.test(m[1])) {
        const plain = Buffer.from(m[2], 'base64').toString('utf8');
        add(plain);
        const i = plain.indexOf(':');
        if (i >= 0) {
          add(plain.slice(0, i));
          add(plain.slice(i + 1));
        }
      }
    }
  }
  if (url) {
    try {
      for (const [name, value] of new URL(String(url)).searchParams) if (CREDENTIAL_NAME.test(name)) add(value);
    } catch {
      /* not a URL: nothing to add */
    }
  }
  return [...out];
}

/** Every spelling under which a secret may come back: as sent, URL-encoded, form-encoded, JSON-escaped. */
function forms(secret: string): string[] {
  const enc = encodeURIComponent(secret);
  return [secret, enc, enc.replace(/%20/g, '+'), JSON.stringify(secret).slice(1, -1)];
}

/** `text` with every form of every secret replaced by `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  if (!text || secrets.length === 0) return text;
  const all = [...new Set(secrets.flatMap(forms))].filter((s) => s.length >= MIN_SECRET).sort((a, b) => b.length - a.length);
  let out = text;
  for (const s of all) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}
