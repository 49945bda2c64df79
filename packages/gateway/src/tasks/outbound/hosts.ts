/**
 * The host allow-list for plugin requests: a URL may go to the channel's host or to a host the
 * manifest lists in `allowedHosts`. Matching is exact and port-sensitive; a default port (80 for
 * http, 443 for https) is dropped, so `host` matches both and `host:80` matches neither default.
 * The plugin's default `baseUrl` is not implied.
 */
import { fail } from '../../platform/errors.ts';

export function canonicalHost(u: URL): string {
  const host = u.hostname.toLowerCase();
  const port =
    u.port && !((u.protocol === 'http:' && u.port === '80') || (u.protocol === 'https:' && u.port === '443')) ? `:${u.port}` : '';
  return host + port;
}

export function parseUpstreamUrl(raw: unknown): URL {
  if (typeof raw !== 'string' || !raw) throw fail('plugin_response_invalid', 'plugin request has no url');
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw fail('plugin_response_invalid', 'plugin request url is not absolute');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw fail('plugin_response_invalid', 'plugin request url must be http(s)');
  if (u.username || u.password) throw fail('plugin_response_invalid', 'plugin request url must not carry credentials');
  return u;
}

export function hostAllowed(u: URL, channelBaseUrl: string, allowedHosts: readonly string[] = []): boolean {
  const want = canonicalHost(u);
  if (channelBaseUrl) {
    try {
      if (canonicalHost(new URL(channelBaseUrl)) === want) return true;
    } catch {
      /* no channel host */
    }
  }
  for (const h of allowedHosts) {
    try {
      if (canonicalHost(new URL(`https://${h}`)) === want) return true;
    } catch {
      /* skip invalid entry */
    }
  }
  return false;
}

export function checkHost(u: URL, channelBaseUrl: string, allowedHosts: readonly string[] = []): void {
  if (!hostAllowed(u, channelBaseUrl, allowedHosts)) {
    throw fail(
      'plugin_host_not_allowed',
      `plugin request to ${canonicalHost(u)} is not allowed: only the channel host and the plugin's allowedHosts may be reached`,
    );
  }
}
