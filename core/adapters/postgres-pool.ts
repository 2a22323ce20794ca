import type pg from 'pg';
import { mapPgError } from './postgres-errors.js';

/**
 * Tries at a pooled connection per statement: one more after a connection that could not be
 * had. Nothing was sent on it, so asking again is safe for any statement, writes included.
 * Compose saw a worker's connect time out once while another container was killed, and that
 * failed the episode it was starting.
 */
const CONNECT_TRIES = 2;
/** Pause before that second try. */
const CONNECT_RETRY_MS = 250;

/**
 * The PostgreSQL store's statements on its pool: each on a pooled connection asked for
 * {@link CONNECT_TRIES} times, errors mapped to the store's (`unavailable` when no
 * connection could be had).
 */
export class PgStatements {
  readonly #pool: pg.Pool;
  readonly #closing: () => boolean;

  /** `closing`: true once the store is being closed (a failed connect is then not tried again). */
  constructor(pool: pg.Pool, closing: () => boolean) {
    this.#pool = pool;
    this.#closing = closing;
  }

  /** One statement; as pool.query does, a connection whose statement failed is closed, not pooled again. */
  async query(config: pg.QueryConfig): Promise<pg.QueryResult> {
    const client = await this.#client();
    let failed: Error | undefined;
    try {
      return await client.query(config);
    } catch (err) {
      failed = err as Error;
      throw mapPgError(err);
    } finally {
      client.release(failed);
    }
  }

  /**
   * `fn` between BEGIN and COMMIT on one connection; rolled back when it throws, and then the
   * connection is closed rather than pooled again: a failure may have left it in a state the
   * next borrower must not inherit (a ROLLBACK that did not arrive, an aborted transaction, a
   * statement still running, a broken socket), as pool.query does for a failed statement.
   */
  async transaction<R>(fn: (client: pg.PoolClient) => Promise<R>): Promise<R> {
    const client = await this.#client();
    let failed: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      failed = err instanceof Error ? err : new Error(String(err));
      await client.query('ROLLBACK').catch(() => undefined);
      throw mapPgError(err);
    } finally {
      client.release(failed);
    }
  }

  async #client(): Promise<pg.PoolClient> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.#pool.connect();
      } catch (err) {
        if (tries >= CONNECT_TRIES || this.#closing()) throw mapPgError(err);
      }
      await new Promise((r) => setTimeout(r, CONNECT_RETRY_MS));
    }
  }
}
