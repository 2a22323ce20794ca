import { createHash } from 'node:crypto';
import { clientAddressKey, ServiceError } from '../core/index.js';
import type { LeaseStore } from '../core/index.js';

/** How failed sign-ins are slowed, then blocked. */
export interface ThrottleLimits {
  /** Failed sign-ins for one e-mail address within the window that block it for the window. */
  perAccount: number;
  /** Failed sign-ins from one client address (any account) within the window that block it. */
  perAddress: number;
  /** Failures of an account answered without a wait; each later one doubles the wait. */
  freeFailures: number;
  /** The wait after the first failure past `freeFailures`, and the longest wait. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** The counting window, and the length of a block, in milliseconds. */
  windowMs: number;
}

/**
 * Per account: 2 failures answered at once, then waits of 1, 2, 4 ... up to 60 seconds
 * before the next attempt, and a block of 15 minutes at 10 failures; per address a block
 * at 30 failures (higher, because many people can share one address behind NAT).
 */
export const LOGIN_THROTTLE: ThrottleLimits = Object.freeze({
  perAccount: 10,
  perAddress: 30,
  freeFailures: 2,
  firstDelayMs: 1000,
  maxDelayMs: 60_000,
  windowMs: 15 * 60_000,
});

/** The wait before the next attempt of an account with `failures` failures: 0, then doubling up to the cap. */
export function waitAfter(failures: number, limits: ThrottleLimits): number {
  if (failures <= limits.freeFailures) return 0;
  return Math.min(limits.maxDelayMs, limits.firstDelayMs * 2 ** (failures - limits.freeFailures - 1));
}

type Subject = { kind: 'account' | 'address'; id: string; limit: number };

/**
 * Slows password guessing. Attempts are counted per account and per client address (an
 * IPv6 client by its /64, see clientAddressKey) in the
 * LeaseStore (in-process in the embedded shape, Redis in the distributed one, so every
 * scheduler shares the counts). `check` runs before the password is verified: it refuses an
 * account or address that is blocked or still waiting out its last failure (429 with
 * `Retry-After`), then takes one attempt with an atomic increment, so concurrent attempts
 * are counted exactly and no more than the limit ever reach the password check. A failure
 * keeps the attempt counted and sets the account's wait (doubling per failure) or, at the
 * limit, a block for the window; a success gives the attempts back. Counters, waits and
 * blocks expire on their own, so the right password works once the window has passed.
 */
export class LoginThrottle {
  readonly #leases: LeaseStore;
  readonly #limits: ThrottleLimits;

  constructor(leases: LeaseStore, limits: ThrottleLimits = LOGIN_THROTTLE) {
    this.#leases = leases;
    this.#limits = limits;
  }

  /** Refuses a blocked or waiting account or address (`rate_limited`, 429), else counts this attempt. */
  async check(email: string, address: string): Promise<void> {
    const subjects = this.#subjects(email, address);
    for (const s of subjects) {
      await this.#refuseIfHeld(s, blockKey(s), 'blocked');
      await this.#refuseIfHeld(s, waitKey(s), 'waiting');
    }
    for (const s of subjects) {
      const attempts = await this.#leases.incr(failKey(s), this.#limits.windowMs);
      if (attempts > s.limit) {
        // over the limit by concurrent attempts: this one is refused and the block set
        await this.#block(s);
        await this.#refuseIfHeld(s, blockKey(s), 'blocked');
      }
    }
  }

  /** The attempt `check` counted failed: the account waits longer, a subject at its limit is blocked. */
  async recordFailure(email: string, address: string): Promise<void> {
    for (const s of this.#subjects(email, address)) {
      const failures = Number(await this.#leases.get(failKey(s))) || 1;
      if (failures >= s.limit) await this.#block(s);
      else if (s.kind === 'account') {
        const delay = waitAfter(failures, this.#limits);
        if (delay > 0) await this.#leases.set(waitKey(s), String(Date.now() + delay), delay);
      }
    }
  }

  /** The attempt succeeded: the account's failures are forgotten and the address's attempt given back. */
  async recordSuccess(email: string, address: string): Promise<void> {
    const account = this.#account(email);
    await this.#leases.del(failKey(account));
    await this.#leases.del(waitKey(account));
    await this.#leases.del(blockKey(account)); // set by attempts racing this one: the password was right
    const addr = this.#address(address);
    if (Number(await this.#leases.get(failKey(addr))) > 0)
      await this.#leases.incr(failKey(addr), this.#limits.windowMs, -1);
  }

  async #block(s: Subject): Promise<void> {
    const { windowMs } = this.#limits;
    await this.#leases.setIfAbsent(blockKey(s), String(Date.now() + windowMs), windowMs);
  }

  async #refuseIfHeld(s: Subject, key: string, why: 'blocked' | 'waiting'): Promise<void> {
    const until = Number(await this.#leases.get(key));
    if (!Number.isFinite(until) || until <= Date.now()) return;
    const seconds = Math.max(1, Math.ceil((until - Date.now()) / 1000));
    const what = s.kind === 'account' ? 'this account' : 'this address';
    const message =
      why === 'blocked'
        ? `too many failed sign-ins for ${what}; try again in ${seconds} seconds`
        : `too many failed sign-ins for ${what}: wait ${seconds} seconds before the next attempt`;
    throw new ServiceError('rate_limited', message, { headers: { 'retry-after': String(seconds) } });
  }

  #account(email: string): Subject {
    // Hashed, so e-mail addresses do not sit in plain text in Redis.
    const id = createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
    return { kind: 'account', id, limit: this.#limits.perAccount };
  }

  #address(address: string): Subject {
    // IPv4 per address, IPv6 per /64: rotating addresses inside one /64 is still one client
    return { kind: 'address', id: clientAddressKey(address) || 'unknown', limit: this.#limits.perAddress };
  }

  #subjects(email: string, address: string): Subject[] {
    return [this.#account(email), this.#address(address)];
  }
}

const failKey = (s: Subject) => `login:attempts:${s.kind}:${s.id}`;
const waitKey = (s: Subject) => `login:wait:${s.kind}:${s.id}`;
const blockKey = (s: Subject) => `login:blocked:${s.kind}:${s.id}`;

/**
 * Limits account creation per client address (an IPv6 client by its /64; SERVICE_SIGNUPS_PER_HOUR): every sign-up attempt counts (whether or
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
    const key = `signup:attempts:${clientAddressKey(address) || 'unknown'}:${window}`;
    const count = await this.#leases.incr(key, this.#limits.windowMs);
    if (count <= this.#limits.perAddress) return;
    const seconds = Math.max(1, Math.ceil(((window + 1) * this.#limits.windowMs - now) / 1000));
    throw new ServiceError(
      'rate_limited',
      `too many sign-ups from this address (${this.#limits.perAddress} in ${Math.round(this.#limits.windowMs / 60_000)} minutes); try again in ${seconds} seconds`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }
}
