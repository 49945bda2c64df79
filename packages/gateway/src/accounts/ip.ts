/** Allowed-IP lists: single addresses and CIDR blocks, IPv4 and IPv6, checked with node's BlockList. */
import { BlockList, isIP } from 'node:net';

export interface IpMatcher {
  matches(ip: string): boolean;
}

function normalise(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1] : ip;
}

/** Throws on an entry that is neither an address nor a CIDR block, naming it. */
export function compileIpList(entries: string[]): IpMatcher {
  const list = new BlockList();
  for (const raw of entries) {
    const e = raw.trim();
    const [addr, bits] = e.split('/');
    const fam = isIP(addr);
    if (!fam) throw new Error(`allowed_ips: "${raw}" is not an IP address or CIDR block`);
    const type = fam === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(addr, type);
    else {
      const n = Number(bits);
      if (!Number.isInteger(n) || n < 0 || n > (fam === 4 ? 32 : 128))
        throw new Error(`allowed_ips: "${raw}" has an invalid prefix length`);
      list.addSubnet(addr, n, type);
    }
  }
  return {
    matches(ip: string) {
      const a = normalise(ip);
      const fam = isIP(a);
      if (!fam) return false;
      return list.check(a, fam === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
