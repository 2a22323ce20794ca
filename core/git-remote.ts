import { isIP } from 'node:net';
import { HOST_NAME, addressKind, allowedPrivate } from './private-address.js';

/** A tenant's remote git repository, as the scheduler and the worker read its URL. */
export interface GitRemote {
  transport: 'https' | 'ssh';
  /** Lower case, IPv6 without brackets: what is resolved and checked. */
  host: string;
  /** The TCP port git connects to (443 for https unless named; 22 for `git@`). */
  port: number;
  /** The URL rebuilt from its parts (https: WHATWG-normalised), the only form git is given. */
  url: string;
  /** `git@` sources: the path after the colon. */
  path?: string;
}

/**
 * Reads an `https://` or `git@<host>:<path>` URL; null for anything else, or for a host
 * that is neither a DNS name nor an IP address (`git@-oProxyCommand=...:x`). An https URL
 * is normalised by the WHATWG parser first, so `https://2130706433/` is read, checked and
 * handed to git as `https://127.0.0.1/`: what is checked is what git connects to.
 */
export function parseGitRemote(url: string): GitRemote | null {
  if (url.startsWith('https://')) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return null;
    }
    const host = u.hostname.toLowerCase().replace(/^\[|\]$/g, '');
    if (!(HOST_NAME.test(host) || isIP(host) !== 0)) return null;
    return { transport: 'https', host, port: u.port ? Number(u.port) : 443, url: u.href };
  }
  const m = /^git@([^\s:@/[\]]+):(\S+)$/.exec(url);
  if (!m) return null;
  const host = m[1]!.toLowerCase();
  if (!(HOST_NAME.test(host) || isIP(host) === 4) || m[2]!.startsWith('-')) return null;
  return { transport: 'ssh', host, port: 22, url: `git@${host}:${m[2]}`, path: m[2]! };
}

/** A host the URL names without DNS: an IP address, or `localhost` and names under it. */
export function literalAddresses(host: string): string[] | null {
  if (isIP(host) !== 0) return [host];
  if (host === 'localhost' || host.endsWith('.localhost')) return ['127.0.0.1', '::1'];
  return null;
}

/**
 * Why `host` may not be fetched from, given the addresses it resolved to (or that it
 * names), or null when every one is public or allowed by SERVICE_GIT_ALLOW_PRIVATE. The
 * words say what was refused and what the operator may set, and never which addresses a
 * name resolved to (the worker's DNS is not the tenant's to probe).
 */
export function remoteAddressProblem(
  host: string,
  addresses: readonly string[],
  allow: readonly string[],
): string | null {
  const refused = addresses.filter((a) => addressKind(a) !== 'public' && !allowedPrivate(host, a, allow));
  if (addresses.length > 0 && refused.length === 0) return null;
  const how =
    literalAddresses(host) !== null
      ? `"${host}" is a ${describeKind(addressKind(refused[0] ?? host))} address`
      : `the host name "${host}" does not resolve, or resolves to an address that is not public (loopback, private, link-local or reserved)`;
  return `${how}; git sources are fetched from public addresses only, unless the server's operator allows the host in SERVICE_GIT_ALLOW_PRIVATE`;
}

function describeKind(kind: string): string {
  const words: Record<string, string> = {
    loopback: 'loopback',
    private: 'private',
    linkLocal: 'link-local',
    uniqueLocal: 'unique-local (private)',
    siteLocal: 'site-local (private)',
    carrierGradeNat: 'carrier-grade NAT (private)',
    unspecified: 'unspecified',
    multicast: 'multicast',
    broadcast: 'broadcast',
  };
  return words[kind] ?? 'reserved (not public)';
}
