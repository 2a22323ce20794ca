import { Redis } from 'ioredis';
import { ServiceError } from '../errors.js';
import type { LeaseStore } from '../ports.js';
import { checkTtl } from './memory-leases.js';
import { redactUrl } from './nats-bus.js';

/** Options of {@link RedisLeases.connect}. */
export interface RedisLeasesOptions {
  /** Put before every key, so several installations or test runs share one server apart (`crucible:`). */
  prefix?: string;
  /** How long the first connection may take (5000 ms). */
  connectTimeoutMs?: number;
}

/** Extends the expiry only while `owner` still holds the lease. */
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
/** Deletes the lease only while `owner` still holds it. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/** INCRBY, and PEXPIRE when this call created the key. */
const INCR = `local existed = redis.call('EXISTS', KEYS[1])
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if existed == 0 and tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return value`;

/**
 * The engine {@link LeaseStore} on Redis (ioredis). `acquire` is `SET NX PX`; `renew`,
 * `release` and `incr` are small Lua scripts, so each check-and-act is one atomic step
 * on the server. Keys carry the `prefix`. A command against a key of the other kind
 * (hash vs string) or a non-integer counter fails with `bad_request`, as in the embedded store.
 */
export class RedisLeases implements LeaseStore {
  readonly #redis: Redis;
  readonly #prefix: string;

  private constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  /** Connects to `url`; fails with `unavailable` when Redis cannot be reached. */
  static async connect(url: string, options: RedisLeasesOptions = {}): Promise<RedisLeases> {
    const redis = new Redis(url, { lazyConnect: true, connectTimeout: options.connectTimeoutMs ?? 5000 });
    let lastError: Error | undefined;
    // ioredis reports connection trouble as events; keep the last one for the message
    redis.on('error', (err: Error) => {
      lastError = err;
    });
    try {
      await redis.connect();
    } catch (err) {
      redis.disconnect();
      const reason = lastError?.message ?? (err as Error).message;
      throw new ServiceError('unavailable', `cannot reach Redis at ${redactUrl(url)} (REDIS_URL): ${reason}`, {
        cause: lastError ?? err,
      });
    }
    return new RedisLeases(redis, options.prefix ?? 'crucible:');
  }

  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs) as number;
    return (await this.#call(() => this.#redis.set(this.#key(key), owner, 'PX', ttl, 'NX'))) === 'OK';
  }

  async renew(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs) as number;
    return (await this.#call(() => this.#redis.eval(RENEW, 1, this.#key(key), owner, ttl))) === 1;
  }

  async release(key: string, owner: string): Promise<boolean> {
    return (await this.#call(() => this.#redis.eval(RELEASE, 1, this.#key(key), owner))) === 1;
  }

  async holder(key: string): Promise<string | null> {
    return this.get(key);
  }

  async get(key: string): Promise<string | null> {
    return this.#call(() => this.#redis.get(this.#key(key)));
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    const ttl = checkTtl(ttlMs);
    const k = this.#key(key);
    await this.#call(() => (ttl === undefined ? this.#redis.set(k, value) : this.#redis.set(k, value, 'PX', ttl)));
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    const ttl = checkTtl(ttlMs);
    const k = this.#key(key);
    const result = await this.#call(() =>
      ttl === undefined ? this.#redis.set(k, value, 'NX') : this.#redis.set(k, value, 'PX', ttl, 'NX'),
    );
    return result === 'OK';
  }

  async del(key: string): Promise<void> {
    await this.#call(() => this.#redis.del(this.#key(key)));
  }

  async incr(key: string, ttlMs?: number, by = 1): Promise<number> {
    const ttl = checkTtl(ttlMs) ?? 0;
    if (!Number.isSafeInteger(by)) throw new ServiceError('bad_request', `incr needs a whole number, got ${by}`);
    return Number(await this.#call(() => this.#redis.eval(INCR, 1, this.#key(key), by, ttl)));
  }

  async hset(key: string, field: string, value: string): Promise<void> {
    await this.#call(() => this.#redis.hset(this.#key(key), field, value));
  }

  async hdel(key: string, field: string): Promise<void> {
    await this.#call(() => this.#redis.hdel(this.#key(key), field));
  }

  async hgetall(key: string): Promise<Record<string, string>> {
    return this.#call(() => this.#redis.hgetall(this.#key(key)));
  }

  /** Deletes every key under this store's prefix (tests clean up with it). */
  async clear(): Promise<void> {
    if (this.#prefix === '')
      throw new ServiceError('bad_request', 'clear() needs a key prefix; it would empty the whole server');
    let cursor = '0';
    do {
      const [next, keys] = await this.#redis.scan(cursor, 'MATCH', `${escapeGlob(this.#prefix)}*`, 'COUNT', 500);
      if (keys.length > 0) await this.#redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  }

  async close(): Promise<void> {
    if (this.#redis.status === 'end') return;
    try {
      await this.#redis.quit();
    } catch {
      this.#redis.disconnect();
    }
  }

  #key(key: string): string {
    return this.#prefix + key;
  }

  async #call<R>(fn: () => Promise<R>): Promise<R> {
    try {
      return await fn();
    } catch (err) {
      const message = (err as Error).message ?? '';
      if (message.includes('WRONGTYPE'))
        throw new ServiceError('bad_request', 'the key holds a different kind of value', { cause: err });
      if (message.includes('not an integer'))
        throw new ServiceError('bad_request', 'the key does not hold a whole number', { cause: err });
      throw new ServiceError('unavailable', `the lease store (Redis) failed: ${message}`, { cause: err });
    }
  }
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
