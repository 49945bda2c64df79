/**
 * The one address filter for content fetched from places no channel vouches for (credentialless
 * artifact reads and their redirects, image downloads, marketplace downloads): every connection of
 * the `content` dispatcher (platform/outbound.ts) is decided here, on the address it would connect to
 * — a literal IP host before connecting, a name after its DNS lookup (so a name that resolves
 * differently on the second look still cannot reach a private address). Non-public addresses are
 * refused unless CONTENT_ALLOW_PRIVATE_ADDRESSES=true.
 *
 * Addresses are decided on their parsed value with `net.BlockList`, so every spelling the URL parser
 * accepts (`127.1`, `2130706433`, `0x7f.1`, `[::ffff:7f00:1]`, `[::]`) gets the same answer. IPv6
 * addresses that carry an IPv4 address (IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) are decided on the IPv4 address they carry; other IPv6
 * addresses are public only inside global unicast `2000::/3` and outside its special ranges.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, buildConnector } from 'undici';

/** IPv4 ranges that are not public (RFC 6890 and its updates). */
const BLOCKED_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network", 0.0.0.0
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, 255.255.255.255 broadcast
];

/** Special ranges inside IPv6 global unicast 2000::/3. */
const BLOCKED_V6: Array<[string, number]> = [
  ['2001::', 23], // IETF protocol assignments (Teredo 2001::/32, benchmarking, ORCHID)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
];

const v4 = new BlockList();
for (const [a, p] of BLOCKED_V4) v4.addSubnet(a, p, 'ipv4');
const global6 = new BlockList();
global6.addSubnet('2000::', 3, 'ipv6');
const v6 = new BlockList();
for (const [a, p] of BLOCKED_V6) v6.addSubnet(a, p, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (already checked by isIP), or null. */
function groups(ip: string): number[] | null {
  let s = ip;
  const dot = s.lastIndexOf(':');
  let tail: number[] = [];
  if (s.includes('.', dot)) {
    const q = s
      .slice(dot + 1)
      .split('.')
      .map(Number);
    if (q.length !== 4 || q.some((n) => !(n >= 0 && n <= 255))) return null;
    tail = [(q[0] << 8) | q[1], (q[2] << 8) | q[3]];
    s = s.slice(0, dot + 1) + '0';
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const part = (h: string) => (h ? h.split(':').map((x) => parseInt(x, 16)) : []);
  const head = part(halves[0]);
  const rest = halves.length === 2 ? part(halves[1]) : [];
  if (tail.length) (halves.length === 2 ? rest : head).pop();
  const fill = 8 - head.length - rest.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return null;
  const g = [...head, ...new Array<number>(fill).fill(0), ...rest, ...tail];
  return g.length === 8 && g.every((n) => n >= 0 && n <= 0xffff) ? g : null;
}

const quad = (hi: number, lo: number): string => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/** The IPv4 address an IPv6 address carries, if it is of a kind that carries one. */
function embeddedV4(g: number[]): string | null {
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(5) && g[5] === 0xffff) return quad(g[6], g[7]); // ::ffff:a.b.c.d (IPv4-mapped)
  if (zeros(6)) return quad(g[6], g[7]); // ::a.b.c.d (IPv4-compatible; also :: and ::1)
  if (zeros(4) && g[4] === 0xffff && g[5] === 0) return quad(g[6], g[7]); // ::ffff:0:a.b.c.d (IPv4-translated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0) return quad(g[6], g[7]); // NAT64
  if (g[0] === 0x2002) return quad(g[1], g[2]); // 6to4
  return null;
}

/** Whether an address (IPv4 or IPv6, brackets and a zone allowed) may not be fetched from. Not an address: true. */
export function isPrivateAddress(ip: string): boolean {
  const s = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const fam = isIP(s);
  if (fam === 4) return v4.check(s, 'ipv4');
  if (fam !== 6) return true;
  const g = groups(s.toLowerCase());
  if (!g) return true;
  const inner = embeddedV4(g);
  if (inner !== null) return v4.check(inner, 'ipv4');
  return !global6.check(s, 'ipv6') || v6.check(s, 'ipv6');
}

export class BlockedAddressError extends Error {
  code = 'ERR_BLOCKED_ADDRESS';
}

type LookupCb = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup that fails when any address of the name is not public. */
function checkedLookup(hostname: string, options: object, cb: LookupCb): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addrs) => {
    if (err) return cb(err, '');
    const list = addrs as LookupAddress[];
    if (!list.length || list.some((a) => isPrivateAddress(a.address)))
      return cb(new BlockedAddressError(`address of ${hostname} is not public`), '');
    if ((options as { all?: boolean }).all) cb(null, list);
    else cb(null, list[0].address, list[0].family);
  });
}

/** Names that are loopback by definition (RFC 6761), whatever the resolver says. */
const LOCALHOST = /^(.*\.)?localhost\.?$/i;

/**
 * An undici Agent whose connections reach public addresses only: a literal IP host is decided before
 * connecting (no DNS lookup happens for it), a name in its lookup.
 */
export function publicOnlyAgent(opts: { connectTimeoutMs?: number } = {}): Agent {
  const inner = buildConnector({ timeout: opts.connectTimeoutMs ?? 10_000, lookup: checkedLookup } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (o, cb) => {
    const host = o.hostname.replace(/^\[|\]$/g, '');
    if ((isIP(host.replace(/%.*$/, '')) !== 0 && isPrivateAddress(host)) || LOCALHOST.test(host)) {
      cb(new BlockedAddressError(`address ${host} is not public`), null);
      return;
    }
    inner(o, cb);
  };
  return new Agent({ connect });
}

/**
 * Whether a URL's host is public: a literal IP on its value, a name on every address it resolves to
 * now (`localhost` names never). For checks made ahead of time (a task callback URL at submit); the
 * connection itself is decided again by `publicOnlyAgent`, since a name may resolve differently later.
 */
export async function isPublicHost(hostname: string): Promise<boolean> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (LOCALHOST.test(host)) return false;
  if (isIP(host.replace(/%.*$/, '')) !== 0) return !isPrivateAddress(host);
  const list = await new Promise<LookupAddress[] | null>((resolve) => {
    dnsLookup(host, { all: true }, (err, addrs) => resolve(err ? null : addrs));
  });
  return !!list && list.length > 0 && !list.some((a) => isPrivateAddress(a.address));
}
