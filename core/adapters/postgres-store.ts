import pg from 'pg';
import { ServiceError } from '../errors.js';
import type { Doc, DocumentStore, Filter, FindOptions, IndexSpec } from '../ports.js';
import { redactUrl } from './nats-bus.js';
import { compilePgFilter, pgFieldSql } from './postgres-filter.js';
import { mapPgError } from './postgres-errors.js';
import { PgStatements } from './postgres-pool.js';
import { StatementNames, checkCollection, indexName } from './postgres-names.js';
import { checkPaging, docJson, FIELD_SEGMENT } from './sql-filter.js';

/** Options of {@link PostgresStore.connect}. */
export interface PostgresStoreOptions {
  /** Connections the store keeps open at most (20: a world-worker runs 8 or more episodes at once). */
  maxConnections?: number;
  /**
   * How long to wait for a connection (10000 ms). A statement whose connection could not be
   * had is asked for once more before it fails with `unavailable` (postgres-pool.ts).
   */
  connectTimeoutMs?: number;
}

/**
 * How `doc` is generated from `body`. JSONB holds no U+0000 (`\u0000` in JSON text), which
 * `body` keeps as written: `doc` reads it as U+FFFD, and so do filter values
 * (postgres-filter.ts, `jsonbText`), so equality on such text still matches.
 */
const JSONB_OF_BODY = "replace(body, '\\u0000', '\\ufffd')::jsonb";
/** Prepared by name (on each connection that runs them): statements that find their row by `_id`. */
const BY_ID = true;

/**
 * The networked {@link DocumentStore} on PostgreSQL (node-postgres), chosen by
 * `DATABASE_URL=postgres://…`. One table per collection holding `_id text COLLATE "C"
 * PRIMARY KEY`, `body text` (the whole document as its JSON text, `_id` included, so it reads
 * back with its fields in their order, as from the other stores) and `doc jsonb`, a stored
 * column generated from `body` that every filter, sort and index reads (and that refuses
 * text that is not JSON).
 *
 * Filters compile to `doc #> '{…}'` JSONB comparisons, typed the way MongoDB compares
 * (postgres-filter.ts, sharing its operators with SQLite), and indexes are expression
 * indexes over the same expressions (`NULLS FIRST`, so an ascending sort with missing
 * fields first, and its reverse, read them in order). A unique index leaves documents
 * missing a field unconstrained (SQL NULLs are distinct). Every method is one statement,
 * hence atomic, and a compare-and-set is `UPDATE … WHERE _id = $1 AND <where>`: under READ
 * COMMITTED a concurrent writer waits for the row and re-checks the condition on the new
 * version, so of many writers on one version exactly one matches. `nextSequence` is one
 * `INSERT … ON CONFLICT DO UPDATE` upsert on `_sequences`.
 *
 * Strings compare (ranges, sorts) in the database's collation: create the database with a
 * byte-order one (`LOCALE 'C'` or `C.UTF-8`) to order like the other stores.
 */
export class PostgresStore implements DocumentStore {
  readonly #pool: pg.Pool;
  /** Statements and transactions on the pool, with the connect retry. */
  readonly #statements: PgStatements;
  readonly #tables = new Map<string, Promise<string>>();
  /** Names of the statements prepared by {@link #query}. */
  readonly #prepared = new StatementNames();
  /** ` COMPRESSION lz4` where the server has it (PostgreSQL 14+ built with lz4): large documents cost less CPU to store. */
  #compression = '';
  #closing: Promise<void> | null = null;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
    this.#statements = new PgStatements(pool, () => this.#closing !== null);
  }

  /** Connects to `url` (a `postgres://` URL) and makes the sequences table; `unavailable` when unreachable. */
  static async connect(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.maxConnections ?? 20,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    });
    // An idle connection that breaks (server restart) is dropped by the pool; the next query opens another.
    pool.on('error', () => undefined);
    const store = new PostgresStore(pool);
    try {
      await store.#ddl(
        'CREATE TABLE IF NOT EXISTS _sequences (name text COLLATE "C" PRIMARY KEY, value bigint NOT NULL)',
      );
      const lz4 = await pool.query(
        "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)",
      );
      if (lz4.rowCount) store.#compression = ' COMPRESSION lz4';
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw new ServiceError(
        'unavailable',
        `cannot reach PostgreSQL at ${redactUrl(url)} (DATABASE_URL): ${(err as Error).message}`,
        { cause: err },
      );
    }
    return store;
  }

  async ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
    const table = await this.#table(collection);
    for (const index of indexes) {
      if (index.fields.length === 0) throw new ServiceError('bad_request', `an index of ${collection} names no fields`);
      const keys = index.fields.map((f) => `${pgFieldSql(f).value} NULLS FIRST`);
      await this.#ddl(
        `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS "${indexName(collection, index)}" ON ${table} (${keys.join(', ')})`,
      );
    }
  }

  async dropIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
    checkCollection(collection);
    for (const index of indexes) await this.#ddl(`DROP INDEX IF EXISTS "${indexName(collection, index)}"`);
  }

  async insert<T extends Doc>(collection: string, doc: T): Promise<T> {
    const json = docJson(doc);
    await this.#query(
      `INSERT INTO ${await this.#table(collection)} (_id, body) VALUES ($1, $2)`,
      [doc._id, json],
      BY_ID,
    );
    return JSON.parse(json) as T;
  }

  async insertMany(collection: string, docs: Doc[]): Promise<number> {
    if (docs.length === 0) return 0;
    const ids = docs.map((d) => d._id);
    const texts = docs.map(docJson);
    const table = await this.#table(collection);
    try {
      // the usual case, nothing taken: one statement, all or nothing
      await this.#query(
        `INSERT INTO ${table} (_id, body) SELECT * FROM unnest($1::text[], $2::text[])`,
        [ids, texts],
        BY_ID,
      );
      return docs.length;
    } catch (err) {
      if (!(err instanceof ServiceError && err.code === 'conflict')) throw err;
    }
    // something is taken: one by one in one transaction, up to the first taken value
    return this.#statements.transaction(async (client) => {
      let n = 0;
      for (let i = 0; i < docs.length; i++) {
        const result = await client.query(`INSERT INTO ${table} (_id, body) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
          ids[i],
          texts[i],
        ]);
        if (result.rowCount === 0) break;
        n++;
      }
      return n;
    });
  }

  async get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null> {
    const rows = await this.#rows(`SELECT body FROM ${await this.#table(collection)} WHERE _id = $1`, [id], BY_ID);
    return bodyOf<T>(rows[0]);
  }

  async findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null> {
    const params: unknown[] = [];
    const where = compilePgFilter(filter, params);
    const rows = await this.#rows(`SELECT body FROM ${await this.#table(collection)} WHERE ${where} LIMIT 1`, params);
    return bodyOf<T>(rows[0]);
  }

  async find<T extends Doc = Doc>(collection: string, filter: Filter, options: FindOptions = {}): Promise<T[]> {
    checkPaging(options);
    if (options.limit === 0) return [];
    const params: unknown[] = [];
    let sql = `SELECT body FROM ${await this.#table(collection)} WHERE ${compilePgFilter(filter, params)}`;
    if (options.sort) {
      const key = (field: string, direction: 'asc' | 'desc') =>
        `${pgFieldSql(field).value} ${direction === 'desc' ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`;
      sql +=
        options.sort.field === '_id'
          ? ` ORDER BY _id ${options.sort.direction === 'desc' ? 'DESC' : 'ASC'}`
          : ` ORDER BY ${key(options.sort.field, options.sort.direction)}${
              options.then ? `, ${key(options.then.field, options.then.direction)}` : ''
            }, _id ASC`;
    }
    if (options.limit !== undefined) sql += ` LIMIT $${params.push(options.limit)}`;
    if (options.skip) sql += ` OFFSET $${params.push(options.skip)}`;
    const rows = await this.#rows(sql, params);
    return rows.map((r) => bodyOf<T>(r)!);
  }

  async count(collection: string, filter: Filter): Promise<number> {
    const params: unknown[] = [];
    const where = compilePgFilter(filter, params);
    const rows = await this.#rows(
      `SELECT count(*)::int AS n FROM ${await this.#table(collection)} WHERE ${where}`,
      params,
    );
    return rows[0]!.n as number;
  }

  async update<T extends Doc = Doc>(
    collection: string,
    id: string,
    patch: Record<string, unknown>,
    where: Filter = {},
  ): Promise<T | null> {
    const sets: Record<string, unknown> = {};
    const removes: string[] = [];
    for (const [key, value] of Object.entries(patch)) {
      if (key === '_id') {
        if (value !== id) throw new ServiceError('bad_request', 'update cannot change _id');
        continue;
      }
      if (!FIELD_SEGMENT.test(key)) throw new ServiceError('bad_request', `invalid top-level field name "${key}"`);
      // a value JSON has no text for (undefined) is removed, as in the other stores
      if (JSON.stringify(value) === undefined) removes.push(key);
      else sets[key] = value;
    }
    const table = await this.#table(collection);
    const params: unknown[] = [id];
    const hasSets = Object.keys(sets).length > 0;
    if (!hasSets && removes.length === 0) {
      const cond = compilePgFilter(where, params);
      const rows = await this.#rows(`SELECT body FROM ${table} WHERE _id = $1 AND ${cond}`, params, BY_ID);
      return bodyOf<T>(rows[0]);
    }
    // The new text keeps the document's field order (changed fields where they were, new ones
    // last), as SQLite's json_set and MongoDB's $set do; JSONB alone would reorder every key.
    const patchParam = `$${params.push(JSON.stringify(sets))}::json`;
    const removeParam = `$${params.push(removes)}::text[]`;
    const cond = compilePgFilter(where, params);
    // One pass over the stored text: its fields FULL JOINed with the patch's, kept in their
    // order, new fields last in the patch's order, removed ones left out.
    const body = `(SELECT json_object_agg(coalesce(e.key, p.key), coalesce(p.value, e.value) ORDER BY e.o NULLS LAST, p.o)::text
        FROM json_each(t.body::json) WITH ORDINALITY AS e(key, value, o)
        FULL JOIN json_each(${patchParam}) WITH ORDINALITY AS p(key, value, o) ON p.key = e.key
       WHERE e.key IS NULL OR e.key <> ALL(${removeParam}))`;
    try {
      const rows = await this.#rows(
        `UPDATE ${table} AS t SET body = ${body} WHERE _id = $1 AND ${cond} RETURNING body`,
        params,
        BY_ID,
      );
      return bodyOf<T>(rows[0]);
    } catch (err) {
      // PostgreSQL's JSON functions refuse text holding U+0000; such a document is merged here instead
      if (!(err instanceof ServiceError && (err.cause as { code?: unknown })?.code === '22P05')) throw err;
      return this.#updateHere<T>(table, id, sets, removes, where);
    }
  }

  /**
   * `update` for documents PostgreSQL's JSON functions cannot read (text with U+0000): the row
   * is locked (`FOR UPDATE`, which re-checks `where` once a concurrent writer is done), merged
   * here in the same field order, and written back in one transaction.
   */
  async #updateHere<T>(
    table: string,
    id: string,
    sets: Record<string, unknown>,
    removes: string[],
    where: Filter,
  ): Promise<T | null> {
    return this.#statements.transaction(async (client) => {
      const params: unknown[] = [id];
      const cond = compilePgFilter(where, params);
      const found = await client.query(`SELECT body FROM ${table} WHERE _id = $1 AND ${cond} FOR UPDATE`, params);
      const doc = bodyOf<Record<string, unknown>>(found.rows[0]);
      if (!doc) return null;
      Object.assign(doc, JSON.parse(JSON.stringify(sets)));
      for (const key of removes) delete doc[key];
      const json = JSON.stringify(doc);
      await client.query(`UPDATE ${table} SET body = $2 WHERE _id = $1`, [id, json]);
      return JSON.parse(json) as T;
    });
  }

  async replace<T extends Doc>(collection: string, doc: T, where: Filter = {}): Promise<T | null> {
    const json = docJson(doc);
    return (await this.#put(collection, json, doc._id, where)) ? (JSON.parse(json) as T) : null;
  }

  async putJson(collection: string, id: string, json: string, where: Filter = {}): Promise<boolean> {
    // the caller's own text is stored as it is, so check it is one object for this id
    if (typeof id !== 'string' || id === '' || json[0] !== '{')
      throw new ServiceError('bad_request', 'putJson needs a non-empty id and the JSON text of an object');
    return this.#put(collection, json, id, where);
  }

  async #put(collection: string, json: string, id: string, where: Filter): Promise<boolean> {
    const params: unknown[] = [id, json];
    const cond = compilePgFilter(where, params);
    const result = await this.#query(
      `UPDATE ${await this.#table(collection)} SET body = $2 WHERE _id = $1 AND ${cond}`,
      params,
      BY_ID,
    );
    return (result.rowCount ?? 0) > 0;
  }

  async delete(collection: string, id: string): Promise<boolean> {
    const result = await this.#query(`DELETE FROM ${await this.#table(collection)} WHERE _id = $1`, [id], BY_ID);
    return (result.rowCount ?? 0) > 0;
  }

  async deleteMany(collection: string, filter: Filter): Promise<number> {
    const params: unknown[] = [];
    const where = compilePgFilter(filter, params);
    const result = await this.#query(`DELETE FROM ${await this.#table(collection)} WHERE ${where}`, params);
    return result.rowCount ?? 0;
  }

  async nextSequence(name: string): Promise<number> {
    const rows = await this.#rows(
      'INSERT INTO _sequences (name, value) VALUES ($1, 1) ON CONFLICT (name) DO UPDATE SET value = _sequences.value + 1 RETURNING value',
      [name],
      BY_ID,
    );
    return Number(rows[0]!.value);
  }

  async close(): Promise<void> {
    await (this.#closing ??= this.#pool.end());
  }

  /** The quoted table of a collection, created on first use. */
  #table(collection: string): Promise<string> {
    checkCollection(collection);
    let table = this.#tables.get(collection);
    if (!table) {
      const quoted = `"${collection}"`;
      table = this.#ddl(
        `CREATE TABLE IF NOT EXISTS ${quoted} (_id text COLLATE "C" PRIMARY KEY, body text${this.#compression} NOT NULL, ` +
          `doc jsonb${this.#compression} GENERATED ALWAYS AS (${JSONB_OF_BODY}) STORED)`,
      ).then(() => quoted);
      this.#tables.set(collection, table);
      table.catch(() => this.#tables.delete(collection));
    }
    return table;
  }

  /**
   * A schema statement with IF NOT EXISTS or IF EXISTS. Two processes making the same table or
   * index at once can still collide in PostgreSQL's catalog; the loser finds it made and goes on.
   */
  async #ddl(sql: string): Promise<void> {
    try {
      await this.#pool.query(sql);
    } catch (err) {
      const { code, constraint } = err as { code?: string; constraint?: string };
      const race = code === '42P07' || code === '42710' || (code === '23505' && constraint?.startsWith('pg_'));
      if (!race) throw mapPgError(err);
    }
  }

  async #rows(sql: string, params: unknown[], prepare = false): Promise<Array<Record<string, unknown>>> {
    return (await this.#query(sql, params, prepare)).rows;
  }

  /**
   * One statement on a pooled connection. With `prepare` (statements that find their row by
   * `_id`, whose plan is the primary key whatever the values), the statement is prepared once
   * per connection under a name and then only bound and run: PostgreSQL skips parsing and
   * planning it again (the merge of `update` took 0.5-0.9 ms to plan). Other statements, whose
   * best plan may depend on the values (filters, sorts), are planned for their values each time.
   */
  async #query(sql: string, params: unknown[], prepare = false): Promise<pg.QueryResult> {
    const name = prepare ? this.#prepared.nameOf(sql) : undefined;
    return this.#statements.query(
      name === undefined ? { text: sql, values: params } : { name, text: sql, values: params },
    );
  }
}

/** The document of a row read back: its stored JSON text parsed, or null for no row. */
function bodyOf<T>(row: Record<string, unknown> | undefined): T | null {
  return row ? (JSON.parse(row.body as string) as T) : null;
}
