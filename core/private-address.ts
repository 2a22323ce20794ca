import ipaddr from 'ipaddr.js';

/**
 * Which addresses are public, for what the service fetches on a tenant's behalf (git
 * sources): loopback, private, link-local, unique-local, carrier-grade NAT, multicast,
 * reserved and unspecified addresses are not, nor an IPv6 address that embeds one of
 * those IPv4 addresses (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96`, SIIT `::ffff:0:a.b.c.d`, 6to4 `2002:aabb:ccdd::`). Teredo is refused
 * whole: its embedded server and client addresses are obfuscated.
 */

/** A host name as git sources and SERVICE_GIT_ALLOW_PRIVATE write it: DNS labels, lower case. */
export const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** IPv4 ranges ipaddr.js 1.x calls unicast that are not on the internet. */
const IPV4_EXTRA: Array<[string, string]> = [
  ['198.18.0.0/15', 'benchmarking'],
  ['192.0.0.0/24', 'reserved'],
];
const IPV6_EXTRA: Array<[string, string]> = [
  ['fec0::/10', 'siteLocal'],
  ['::/96', 'ipv4Compatible'],
  ['100::/64', 'discard'],
];

/**
 * The kind of an IP address: `public`, or the name of the non-public range it is in
 * (`loopback`, `private`, `linkLocal`, `uniqueLocal`, ...); `invalid` when it is no address.
 */
export function addressKind(address: string): string {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return 'invalid';
  }
  return kindOf(ip);
}

function kindOf(ip: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (ip.kind() === 'ipv4') {
    const v4 = ip as ipaddr.IPv4;
    const range = v4.range();
    if (range !== 'unicast') return range;
    for (const [cidr, name] of IPV4_EXTRA) if (v4.match(ipaddr.parseCIDR(cidr) as [ipaddr.IPv4, number])) return name;
    return 'public';
  }
  const v6 = ip as ipaddr.IPv6;
  const range = v6.range();
  const parts = v6.parts;
  const embedded = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (range === 'ipv4Mapped' || range === 'rfc6052' || range === 'rfc6145')
    return kindOf(embedded(parts[6]!, parts[7]!));
  if (range === '6to4') return kindOf(embedded(parts[1]!, parts[2]!));
  if (range !== 'unicast') return range;
  if (parts.every((p) => p === 0)) return 'unspecified';
  for (const [cidr, name] of IPV6_EXTRA) if (v6.match(ipaddr.parseCIDR(cidr) as [ipaddr.IPv6, number])) return name;
  return 'public';
}

/**
 * Whether SERVICE_GIT_ALLOW_PRIVATE (`allow`, core/config-values.ts `gitAllowPrivate`) lets
 * `host` (as the URL names it, lower case) reach `address`: `*`, the host name itself, a
 * `*.suffix` the host is under, or an address or CIDR range holding the address (an
 * IPv4-mapped IPv6 address matches the IPv4 entries too).
 */
export function allowedPrivate(host: string, address: string, allow: readonly string[]): boolean {
  let ip: ipaddr.IPv4 | ipaddr.IPv6 | null = null;
  try {
    ip = ipaddr.process(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    ip = null;
  }
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  for (const entry of allow) {
    if (entry === '*' || entry === name) return true;
    if (entry.startsWith('*.') && name.endsWith(entry.slice(1))) return true;
    if (!ip) continue;
    const [base = '', bits] = entry.split('/');
    if (!ipaddr.isValid(base)) continue;
    const net = ipaddr.process(base);
    if (net.kind() !== ip.kind()) continue;
    const size = bits === undefined ? (net.kind() === 'ipv4' ? 32 : 128) : Number(bits);
    if ((ip as ipaddr.IPv4).match(net as ipaddr.IPv4, size)) return true;
  }
  return false;
}
