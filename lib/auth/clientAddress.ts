// Who a request comes from, for rate limits and the log. The socket's peer is the client unless
// it is a proxy the configuration trusts (palisade.yaml server.trustedProxies: addresses or
// CIDRs); then X-Forwarded-For is read from the right, skipping trusted hops, and the first
// address no trusted proxy vouches for is the client. Without a trusted proxy the header is
// ignored: anyone can write it. Limits are keyed per client: an IPv4 address, or an IPv6 /64
// (one host's or one home's whole prefix, so rotating addresses inside it is no way around a
// limit). Pure: node:net's parsers and BlockList only.
import { BlockList, isIP } from 'node:net';

export interface TrustedProxies {
  has(address: string): boolean;
}

const CIDR = /^(.+)\/(\d{1,3})$/;

/** The configured proxies as a matcher; throws naming the entry that is not an address or CIDR. */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  const list = new BlockList();
  for (const raw of entries) {
    const e = raw.trim();
    const m = CIDR.exec(e);
    const addr = normaliseAddress(m ? m[1] : e);
    const family = addr ? isIP(addr) : 0;
    if (!addr || !family) throw new Error(`"${raw}" is not an IP address or CIDR`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (m) {
      const prefix = Number(m[2]);
      if (prefix > (family === 4 ? 32 : 128)) throw new Error(`"${raw}": the prefix is too long`);
      list.addSubnet(addr, prefix, type);
    } else list.addAddress(addr, type);
  }
  return {
    has(address) {
      const a = normaliseAddress(address);
      const family = a ? isIP(a) : 0;
      return family !== 0 && list.check(a!, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/**
 * An address as written in a socket or a forwarding header, plain: "::ffff:1.2.3.4" -> "1.2.3.4",
 * "[::1]:8080" -> "::1", "1.2.3.4:5678" -> "1.2.3.4"; undefined when it is not an IP address.
 */
export function normaliseAddress(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let a = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(a);
  if (bracketed) a = bracketed[1];
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(a)) a = a.slice(0, a.lastIndexOf(':'));
  a = a.replace(/%[\w.-]+$/, ''); // an IPv6 zone
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) a = mapped[1];
  return isIP(a) ? a.toLowerCase() : undefined;
}

/** The client of a request: the peer, or (behind trusted proxies) the first untrusted forwarded hop. */
export function clientOf(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string {
  const from = normaliseAddress(peer) ?? 'unknown';
  if (from === 'unknown' || !trusted.has(from)) return from;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '');
  const hops = header
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  let client = from;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normaliseAddress(hops[i]);
    // a hop that is no address: whoever wrote it is the last one a trusted proxy vouched for
    if (!hop) return client;
    client = hop;
    if (!trusted.has(hop)) return hop;
  }
  return client;
}

/** The rate-limit key of a client address: IPv4 as it is, IPv6 by its /64. */
export function clientKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = expandIPv6(address);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : address;
}

function expandIPv6(a: string): string[] | undefined {
  const [head, tail] = a.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail ? tail.split(':') : [];
  // an embedded IPv4 tail (::ffff:1.2.3.4 that was not mapped) counts as two groups
  const last = t.length ? t : h;
  if (last.length && last[last.length - 1].includes('.')) {
    const [x, y, z, w] = last.pop()!.split('.').map(Number);
    last.push(((x << 8) | y).toString(16), ((z << 8) | w).toString(16));
  }
  const fill = a.includes('::') ? 8 - h.length - t.length : 0;
  const groups = [...h, ...Array(Math.max(0, fill)).fill('0'), ...t];
  if (groups.length !== 8) return undefined;
  return groups.map((g) => Number.parseInt(g || '0', 16).toString(16));
}
