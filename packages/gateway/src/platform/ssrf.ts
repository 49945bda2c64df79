/**
 * Address checks for content fetched from places the channel does not vouch for (credentialless
 * reads and their redirects): private, loopback, link-local and other non-public addresses are
 * refused unless CONTENT_ALLOW_PRIVATE_ADDRESSES=true. The check runs in the connection's DNS
 * lookup, so a name that resolves differently on the second look still cannot reach them.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent } from 'undici';

export function isPrivateAddress(ip: string): boolean {
  const v = isIP(ip);
  if (v === 4) {
    const [a, b] = ip.split('.').map(Number);
    return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254)
      || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 192 && b === 0) || (a === 198 && (b === 18 || b === 19)) || a >= 224;
  }
  if (v === 6) {
    const s = ip.toLowerCase().replace(/^\[|\]$/g, '');
    if (s === '::' || s === '::1') return true;
    const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(s);
    if (m) return isPrivateAddress(m[1]);
    return /^(fc|fd|fe8|fe9|fea|feb|ff)/.test(s) || s.startsWith('64:ff9b:') || s.startsWith('2001:db8');
  }
  return true;
}

export class BlockedAddressError extends Error {
  code = 'ERR_BLOCKED_ADDRESS';
}

/** An undici Agent whose connections refuse non-public addresses. */
export function publicOnlyAgent(): Agent {
  return new Agent({
    connect: {
      lookup(hostname: string, options: object, cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void) {
        dnsLookup(hostname, { ...options, all: true }, (err, addrs) => {
          if (err) return cb(err, '');
          const list = addrs as LookupAddress[];
          if (!list.length || list.some((a) => isPrivateAddress(a.address))) return cb(new BlockedAddressError(`address of ${hostname} is not public`), '');
          const o = options as { all?: boolean };
          if (o.all) cb(null, list);
          else cb(null, list[0].address, list[0].family);
        });
      },
    },
  });
}

/** For literal IP hosts (no DNS lookup happens for them). */
export function literalBlocked(u: URL): boolean {
  const h = u.hostname.replace(/^\[|\]$/g, '');
  return isIP(h) !== 0 && isPrivateAddress(h);
}
