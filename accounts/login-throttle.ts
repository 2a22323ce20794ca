import { createHash } from 'node:crypto';
import { ServiceError } from '../core/index.js';
import type { LeaseStore } from '../core/index.js';

/** How many failed sign-ins are allowed, and for how long a block lasts. */
export interface ThrottleLimits {
  /** Failed sign-ins for one e-mail address within the window before it is blocked. */
  perAccount: number;
  /** Failed sign-ins from one client address (any account) within the window. */
  perAddress: number;
  /** The counting window, and the length of a block, in milliseconds. */
  windowMs: number;
}

/**
 * 5 failures per account and 20 per address in 15 minutes. The per-address figure is
 * higher because many people can share one address (an office behind NAT).
 */
export const LOGIN_THROTTLE: ThrottleLimits = Object.freeze({ perAccount: 5, perAddress: 20, windowMs: 15 * 60_000 });

type Subject = { kind: 'account' | 'address'; id: string; limit: number };

/**
 * Slows password guessing. Failed sign-ins are counted per account and per client address
 * in the LeaseStore (in-process in the embedded shape, Redis in the distributed one, so
 * every scheduler shares the counts). When either count reaches its limit, further
 * attempts for that account or from that address answer 429 with `Retry-After` until the
 * block ends, before any password is checked. A successful sign-in clears the account's
 * count. Counters and blocks expire on their own.
 */
export class LoginThrottle {
  readonly #leases: LeaseStore;
  readonly #limits: ThrottleLimits;

  constructor(leases: LeaseStore, limits: ThrottleLimits = LOGIN_THROTTLE) {
    this.#leases = leases;
    this.#limits = limits;
  }

  /** Throws `rate_limited` (429, `Retry-After` in seconds) when the account or address is blocked. */
  async check(email: string, address: string): Promise<void> {
    for (const s of this.#subjects(email, address)) {
      const until = Number(await this.#leases.get(blockKey(s)));
      if (!Number.isFinite(until) || until <= 0) continue;
      const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1000));
      const what = s.kind === 'account' ? 'this account' : 'this address';
      throw new ServiceError('rate_limited', `too many failed sign-ins for ${what}; try again in ${seconds} seconds`, {
        headers: { 'retry-after': String(seconds) },
      });
    }
  }

  /** Counts one failed sign-in against the account and the address; blocks the one that reached its limit. */
  async recordFailure(email: string, address: string): Promise<void> {
    for (const s of this.#subjects(email, address)) {
      const failures = await this.#leases.incr(failKey(s), this.#limits.windowMs);
      if (failures >= s.limit) {
        const until = Date.now() + this.#limits.windowMs;
        await this.#leases.set(blockKey(s), String(until), this.#limits.windowMs);
      }
    }
  }

  /** Forgets the account's failures after it signed in. The address keeps its count. */
  async recordSuccess(email: string): Promise<void> {
    await this.#leases.del(failKey(this.#account(email)));
  }

  #account(email: string): Subject {
    // Hashed, so e-mail addresses do not sit in plain text in Redis.
    const id = createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
    return { kind: 'account', id, limit: this.#limits.perAccount };
  }

  #subjects(email: string, address: string): Subject[] {
    return [this.#account(email), { kind: 'address', id: address || 'unknown', limit: this.#limits.perAddress }];
  }
}

const failKey = (s: Subject) => `login:failures:${s.kind}:${s.id}`;
const blockKey = (s: Subject) => `login:blocked:${s.kind}:${s.id}`;

/**
 * Limits account creation per client address (SERVICE_SIGNUPS_PER_HOUR): every sign-up attempt counts (whether or
 * not the address had an account, so the limit itself tells nothing), in fixed windows
 * of the LeaseStore shared by every scheduler. Over the limit, sign-up answers 429 with
 * `Retry-After` (seconds to the window's end) before any work is done.
 */
export class SignupThrottle {
  readonly #leases: LeaseStore;
  readonly #limits: { perAddress: number; windowMs: number };

  constructor(leases: LeaseStore, limits: { perAddress: number; windowMs: number }) {
    this.#leases = leases;
    this.#limits = limits;
  }

  /** Counts one attempt from `address`; throws `rate_limited` when it is over the limit. */
  async attempt(address: string): Promise<void> {
    const now = Date.now();
    const window = Math.floor(now / this.#limits.windowMs);
    const count = await this.#leases.incr(`signup:attempts:${address || 'unknown'}:${window}`, this.#limits.windowMs);
    if (count <= this.#limits.perAddress) return;
    const seconds = Math.max(1, Math.ceil(((window + 1) * this.#limits.windowMs - now) / 1000));
    throw new ServiceError(
      'rate_limited',
      `too many sign-ups from this address (${this.#limits.perAddress} in ${Math.round(this.#limits.windowMs / 60_000)} minutes); try again in ${seconds} seconds`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }
}
