import { clientAddressKey } from './client-address.js';
import { ServiceError } from './errors.js';
import type { LeaseStore } from './ports.js';

/** At most `limit` requests per `windowMs` from one client address (an IPv6 client: its /64). */
export interface RateLimit {
  /** What is limited, in the key and the refusal: `terminal sign-in requests`. */
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
}

/**
 * Counts one request from `clientAddress` (grouped by clientAddressKey: IPv4 per address,
 * IPv6 per /64) against `rule` and refuses it past the limit: 429 with
 * `Retry-After` (seconds until the window ends) and a detail saying what was limited.
 * The count is one atomic `incr` on the LeaseStore (a Lua script on Redis, shared by every
 * scheduler; in-process in the embedded shape), so concurrent requests are counted exactly.
 * Each address's window opens with its first request (its start kept beside the count), so
 * the wait is known without reading a TTL and no shared boundary lets a burst through twice.
 */
export async function takeRateLimit(leases: LeaseStore, rule: RateLimit, clientAddress: string): Promise<void> {
  const now = Date.now();
  const base = `ratelimit:${rule.name.replace(/\s+/g, '-')}:${clientAddressKey(clientAddress) || 'unknown'}`;
  await leases.setIfAbsent(`${base}:start`, String(now), rule.windowMs);
  const start = Number(await leases.get(`${base}:start`)) || now;
  const count = await leases.incr(`${base}:${start}`, rule.windowMs + 1000);
  if (count <= rule.limit) return;
  const seconds = Math.max(1, Math.ceil((start + rule.windowMs - now) / 1000));
  throw new ServiceError(
    'rate_limited',
    `too many ${rule.name} from this address (at most ${rule.limit} in ${Math.round(rule.windowMs / 1000)} seconds); try again in ${seconds} seconds`,
    { headers: { 'retry-after': String(seconds) } },
  );
}
