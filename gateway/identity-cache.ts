import { identityFrom, identityRecordsOf, type IdentityRecords } from '../accounts/index.js';
import type { DocumentStore, Principal } from '../core/index.js';

/**
 * How long GET /v1/me answers from the records it last read, at most. A change made through this
 * gateway drops them at once (`forgetAll`); one made through another gateway, or by the `admin`
 * CLI on the store, shows within this long.
 */
export const IDENTITY_CACHE_MS = 1_000;
/** Records kept at most (one per project and user that asked in the last second). */
const IDENTITY_CACHE_ENTRIES = 10_000;

/**
 * The records behind GET /v1/me (project, organization, user and role), kept for up to
 * IDENTITY_CACHE_MS: /v1/me is the most frequent request of a console and of many clients,
 * and reading three documents for each was the largest part of the gateway's own cost per
 * request (BENCHMARKS.md, bench/gateway). Nothing is decided from these records: the key,
 * scopes and operator flag of the answer come from the request's principal, which the
 * authenticator checks on its own terms (gateway/auth.ts).
 */
export class IdentityCache {
  readonly #store: DocumentStore;
  readonly #ttlMs: number;
  readonly #entries = new Map<string, { records: IdentityRecords; until: number }>();
  /** Bumped by `forgetAll`: a read that started before a change does not fill the cache. */
  #generation = 0;

  constructor(store: DocumentStore, opts: { ttlMs?: number } = {}) {
    this.#store = store;
    this.#ttlMs = opts.ttlMs ?? IDENTITY_CACHE_MS;
  }

  /** The identity of spec section 2 for the principal. */
  async identityOf(p: Principal): Promise<Record<string, unknown>> {
    const key = `${p.projectId ?? ''}\n${p.userId ?? ''}`;
    const kept = this.#entries.get(key);
    if (kept && kept.until > Date.now()) return identityFrom(p, kept.records);
    const generation = this.#generation;
    const records = await identityRecordsOf(this.#store, p);
    if (this.#ttlMs > 0 && generation === this.#generation) {
      if (this.#entries.size >= IDENTITY_CACHE_ENTRIES) this.#entries.clear();
      this.#entries.set(key, { records, until: Date.now() + this.#ttlMs });
    }
    return identityFrom(p, records);
  }

  /**
   * Drops every kept record. Called when this gateway has answered a change (any successful
   * request that is not a read) and when a payment sets a plan, so a client sees its own
   * change at once.
   */
  forgetAll(): void {
    this.#generation++;
    this.#entries.clear();
  }

  /** Records kept now (tests). */
  get size(): number {
    return this.#entries.size;
  }
}
