import type { Request } from 'express';
import { digestsEqual, keyDigest } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import type { BusSubscription, DocumentStore, EventBus, Logger } from '../core/index.js';
import type { Principal } from '../core/index.js';
import { SESSION_COOKIE, lookUpApiKey, prefixOfKey, recordKeyUse, type SessionResolver } from '../accounts/index.js';

/** How often a key's `last_used_at` is written at most; the listing needs minutes, not requests. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Announced (accounts/api-keys.ts) when a key is revoked: `{key_id}` (also read by credential-watch.ts). */
const KEY_REVOKED = 'crucible.keys.revoked';
/**
 * How long a checked key is answered from memory at most. The revocation announcement drops it at
 * once; this bounds what a lost announcement (a bus that dropped its connection) could leave, like
 * the 1 s re-check of open streams (credential-watch.ts).
 */
export const KEY_CACHE_MS = 1_000;
/** Checked keys kept at most (only keys whose hash matched are kept, so this bounds real keys, not guesses). */
const KEY_CACHE_ENTRIES = 10_000;

interface CachedKey {
  /** sha256 of the key's full text, as stored: the text a request brings must hash to it. */
  digest: Buffer;
  keyId: string;
  principal: Principal;
  until: number;
}

/**
 * Turns a request's credentials into a principal.
 *
 * API keys are checked against the store (accounts' `lookUpApiKey`), and a key that passed is then answered from memory
 * for up to KEY_CACHE_MS while this gateway hears revocations: every revocation is announced
 * on the bus (`crucible.keys.revoked`, before the DELETE answers) and drops the key here at
 * once, on every gateway. Without a live subscription (`listen` not called or failed) nothing
 * is kept and every request reads the store. Unknown, malformed and revoked keys are never kept.
 */
export class Authenticator {
  readonly #store: DocumentStore;
  readonly #lastUsedWritten = new Map<string, number>();
  #sessions: SessionResolver | null = null;
  /** Checked keys by prefix. */
  readonly #keys = new Map<string, CachedKey>();
  /** Bumped by every revocation heard: a store read that started before one does not fill the cache. */
  #revocations = 0;
  #subscription: BusSubscription | null = null;
  readonly #keyCacheMs: number;

  constructor(store: DocumentStore, opts: { keyCacheMs?: number } = {}) {
    this.#store = store;
    this.#keyCacheMs = opts.keyCacheMs ?? KEY_CACHE_MS;
  }

  /**
   * Hears key revocations on the bus, and only then keeps checked keys in memory. A bus that
   * cannot subscribe leaves the authenticator reading the store on every request.
   */
  async listen(bus: EventBus, logger: Logger): Promise<void> {
    if (this.#subscription) return;
    try {
      this.#subscription = await bus.subscribe(KEY_REVOKED, (m) => {
        const id = (m.data as Record<string, unknown> | null)?.key_id;
        this.forget(typeof id === 'string' ? id : null);
      });
    } catch (err) {
      logger.warn({ err }, 'cannot hear key revocations; every request reads its key from the store');
    }
  }

  /**
   * Drops a key from memory (null: every key), and keeps a store read already under way from
   * putting it back. Called for each announcement, and by the gateway that revoked the key
   * before it answers the DELETE, so that gateway refuses the key without waiting for the bus.
   */
  forget(keyId: string | null): void {
    this.#revocations++;
    if (keyId === null) this.#keys.clear();
    else for (const [prefix, k] of this.#keys) if (k.keyId === keyId) this.#keys.delete(prefix);
  }

  /** Checked keys kept now (tests, diagnostics). */
  get keptKeys(): number {
    return this.#keys.size;
  }

  /** Stops hearing revocations and forgets every kept key. */
  close(): void {
    const s = this.#subscription;
    this.#subscription = null;
    this.#keys.clear();
    if (s) void s.unsubscribe().catch(() => undefined);
  }

  useSessions(resolver: SessionResolver): void {
    this.#sessions = resolver;
  }

  /**
   * The principal of the request; null when it carries no credentials at all. A credential
   * that is present but invalid, unknown or revoked answers 401.
   */
  async authenticate(req: Request): Promise<Principal | null> {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m) throw new ServiceError('unauthenticated', 'the Authorization header must be "Bearer <API key>"');
      return this.#fromKey(m[1]!);
    }
    const token = readCookie(req, SESSION_COOKIE);
    if (token && this.#sessions) {
      const p = await this.#sessions(token, req);
      if (!p) throw new ServiceError('unauthenticated', 'the console session has ended; sign in again');
      return p;
    }
    return null;
  }

  async #fromKey(text: string): Promise<Principal> {
    const prefix = prefixOfKey(text);
    const kept = this.#keys.get(prefix);
    if (kept) {
      if (kept.until > Date.now() && this.#subscription && digestsEqual(kept.digest, keyDigest(text))) {
        this.#touch(kept.keyId);
        return { ...kept.principal, scopes: [...kept.principal.scopes] };
      }
      this.#keys.delete(prefix);
    }
    const revocations = this.#revocations;
    const key = await lookUpApiKey(this.#store, text);
    this.#touch(key.keyId);
    // kept only if no revocation was heard while the store was read (it may have been this key's)
    if (this.#subscription && revocations === this.#revocations) {
      if (this.#keys.size >= KEY_CACHE_ENTRIES) this.#keys.clear();
      this.#keys.set(prefix, {
        digest: Buffer.from(key.hash, 'hex'),
        keyId: key.keyId,
        principal: { ...key.principal, scopes: [...key.principal.scopes] },
        until: Date.now() + this.#keyCacheMs,
      });
    }
    return key.principal;
  }

  #touch(keyId: string): void {
    const now = Date.now();
    if (now - (this.#lastUsedWritten.get(keyId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    this.#lastUsedWritten.set(keyId, now);
    // Not awaited: recording use must not slow or fail the request.
    recordKeyUse(this.#store, keyId).catch(() => this.#lastUsedWritten.delete(keyId));
  }
}

/** One cookie's value from the Cookie header. */
export function readCookie(req: Request, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}
