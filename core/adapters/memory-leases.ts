import { ServiceError } from '../errors.js';
import type { LeaseStore } from '../ports.js';

/** One key: a string (lease owner, value, counter) or a hash, with its expiry time. */
interface Entry {
  value: string | Map<string, string>;
  expiresAt: number | null;
}

const SWEEP_EVERY_MS = 30_000;

/** Checks a TTL the way Redis' PX does: a positive whole number of milliseconds. */
export function checkTtl(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new ServiceError('bad_request', `a TTL must be a positive number of milliseconds, got ${ttlMs}`);
  return Math.ceil(ttlMs);
}

function wrongKind(key: string): ServiceError {
  return new ServiceError('bad_request', `key "${key}" holds a different kind of value`);
}

/**
 * The embedded {@link LeaseStore}: one in-process Map with expiry, with Redis' semantics
 * (one key space for leases, values, counters and hashes; an empty hash disappears; a
 * string command on a hash key fails with `bad_request`). Every method runs to completion
 * without yielding, so each is atomic. Expired keys read as absent at once and are swept
 * from memory periodically.
 */
export class MemoryLeases implements LeaseStore {
  readonly #entries = new Map<string, Entry>();
  readonly #sweeper: NodeJS.Timeout;

  constructor() {
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_EVERY_MS);
    this.#sweeper.unref();
  }

  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#setIfAbsent(key, owner, checkTtl(ttlMs));
  }

  async renew(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs) as number;
    const entry = this.#entry(key);
    if (!entry || this.#string(key, entry) !== owner) return false;
    entry.expiresAt = Date.now() + ttl;
    return true;
  }

  async release(key: string, owner: string): Promise<boolean> {
    const entry = this.#entry(key);
    if (!entry || this.#string(key, entry) !== owner) return false;
    this.#entries.delete(key);
    return true;
  }

  async holder(key: string): Promise<string | null> {
    return this.get(key);
  }

  async get(key: string): Promise<string | null> {
    const entry = this.#entry(key);
    return entry ? this.#string(key, entry) : null;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    const ttl = checkTtl(ttlMs);
    this.#entries.set(key, { value: String(value), expiresAt: ttl === undefined ? null : Date.now() + ttl });
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    return this.#setIfAbsent(key, value, checkTtl(ttlMs));
  }

  async del(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  async incr(key: string, ttlMs?: number, by = 1): Promise<number> {
    const ttl = checkTtl(ttlMs);
    if (!Number.isSafeInteger(by)) throw new ServiceError('bad_request', `incr needs a whole number, got ${by}`);
    const entry = this.#entry(key);
    if (!entry) {
      this.#entries.set(key, { value: String(by), expiresAt: ttl === undefined ? null : Date.now() + ttl });
      return by;
    }
    const current = this.#string(key, entry);
    if (!/^-?\d+$/.test(current)) throw new ServiceError('bad_request', `key "${key}" does not hold a whole number`);
    const next = Number(current) + by;
    entry.value = String(next);
    return next;
  }

  async hset(key: string, field: string, value: string): Promise<void> {
    const entry = this.#entry(key);
    if (!entry) {
      this.#entries.set(key, { value: new Map([[field, String(value)]]), expiresAt: null });
      return;
    }
    this.#hash(key, entry).set(field, String(value));
  }

  async hdel(key: string, field: string): Promise<void> {
    const entry = this.#entry(key);
    if (!entry) return;
    const hash = this.#hash(key, entry);
    hash.delete(field);
    if (hash.size === 0) this.#entries.delete(key);
  }

  async hgetall(key: string): Promise<Record<string, string>> {
    const entry = this.#entry(key);
    return entry ? Object.fromEntries(this.#hash(key, entry)) : {};
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#entries.clear();
  }

  #setIfAbsent(key: string, value: string, ttl: number | undefined): boolean {
    if (this.#entry(key)) return false;
    this.#entries.set(key, { value: String(value), expiresAt: ttl === undefined ? null : Date.now() + ttl });
    return true;
  }

  /** The live entry of `key`; an expired one is dropped and reads as absent. */
  #entry(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt !== null && entry.expiresAt <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #string(key: string, entry: Entry): string {
    if (typeof entry.value !== 'string') throw wrongKind(key);
    return entry.value;
  }

  #hash(key: string, entry: Entry): Map<string, string> {
    if (typeof entry.value === 'string') throw wrongKind(key);
    return entry.value;
  }

  #sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt !== null && entry.expiresAt <= now) this.#entries.delete(key);
    }
  }
}
