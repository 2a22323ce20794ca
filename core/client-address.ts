import ipaddr from 'ipaddr.js';

/**
 * The key under which a per-address limit counts a client (sign-in throttle, sign-up limit,
 * terminal sign-in limits). An IPv4 address counts as itself, also when it arrives
 * IPv4-mapped (`::ffff:203.0.113.7`, as Node writes IPv4 peers of a dual-stack socket). An
 * IPv6 address counts as its /64 (`2001:db8:1:2::/64`): one site or subscriber is given at
 * least a /64 (RFC 6177; SLAAC and privacy addresses pick any host part in it), so a client
 * can take a fresh address per request at no cost and only the /64 stands for it, as one
 * IPv4 address does. A zone (`fe80::1%eth0`) is dropped with the host part. What is not an
 * IP address (empty, a test's placeholder) is kept as it is.
 */
export function clientAddressKey(address: string): string {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address.trim());
  } catch {
    return address;
  }
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts;
  return `${new ipaddr.IPv6([...parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}
