import Database from 'better-sqlite3';
import { ServiceError } from '../errors.js';
import { checkPaging, docJson } from './sql-filter.js';
import { WalCheckpointer } from './sqlite-checkpointer.js';
import type { Doc, DocumentStore, Filter, FindOptions, IndexSpec } from '../ports.js';
import { compileFilter, fieldSql, FIELD_SEGMENT, jsonPath, type Sql } from './sqlite-filter.js';

/** Options of {@link SqliteStore}. */
export interface SqliteStoreOptions {
  /** How long a write waits for another process holding the file's write lock (5000 ms). */
  busyTimeoutMs?: number;
  /**
   * Who copies the write-ahead log into the database file: `background` (default for a
   * file), a thread of its own (WalCheckpointer), so no request waits for the disk's
   * fsync; `inline`, SQLite's automatic checkpoints inside the store's own writes.
   */
  checkpoints?: 'background' | 'inline';
}

const COLLECTION_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;
const MAX_CACHED_STATEMENTS = 500;

/**
 * The embedded {@link DocumentStore}: one SQLite file (better-sqlite3, WAL), one table per
 * collection holding `_id TEXT PRIMARY KEY, doc TEXT` (the whole document as JSON).
 *
 * Filters compile to `json_extract` expressions and compare JSON types the way MongoDB
 * does (`'5'` never equals `5`, a numeric range never matches a string: sqlite-filter.ts).
 * Indexes are expression indexes over the same expressions, so queries use them. Every
 * method is one SQL statement, hence atomic, and safe for several processes sharing the
 * file: writers wait up to `busyTimeoutMs` for the lock. Fields holding arrays compare as
 * whole values (MongoDB would match single elements): do not filter on arrays.
 */
export class SqliteStore implements DocumentStore {
  readonly #db: Database.Database;
  readonly #tables = new Set<string>();
  readonly #statements = new Map<string, Database.Statement>();
  #checkpointer: WalCheckpointer | null = null;

  constructor(file: string, options: SqliteStoreOptions = {}) {
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    this.#db = new Database(file, { timeout: busyTimeoutMs });
    this.#db.pragma(`busy_timeout = ${Math.floor(busyTimeoutMs)}`);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.exec('CREATE TABLE IF NOT EXISTS _sequences (name TEXT PRIMARY KEY, value INTEGER NOT NULL)');
    if ((options.checkpoints ?? 'background') === 'background' && !this.#db.memory) {
      this.#db.pragma('wal_autocheckpoint = 0');
      this.#checkpointer = new WalCheckpointer(file, {
        busyTimeoutMs,
        // writes come too close together for a complete checkpoint: reset the log here, once in a while
        onLogTooLarge: () => this.#resetLog(),
        // back to SQLite's own checkpoints, inside the writes
        onStopped: () => this.#db.open && this.#db.pragma('wal_autocheckpoint = 1000'),
      });
    }
  }

  async ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
    const table = this.#table(collection);
    for (const index of indexes) {
      if (index.fields.length === 0) throw new ServiceError('bad_request', `an index of ${collection} names no fields`);
      const exprs = index.fields.map((f) => fieldSql(f).value);
      this.#run(() =>
        this.#db.exec(
          `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS "${indexName(collection, index)}" ON ${table} (${exprs.join(', ')})`,
        ),
      );
    }
  }

  async dropIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
    checkCollection(collection);
    for (const index of indexes)
      this.#run(() => this.#db.exec(`DROP INDEX IF EXISTS "${indexName(collection, index)}"`));
  }

  async insert<T extends Doc>(collection: string, doc: T): Promise<T> {
    const json = docJson(doc);
    this.#stmt(`INSERT INTO ${this.#table(collection)} (_id, doc) VALUES (?, ?)`).run(doc._id, json);
    return JSON.parse(json) as T;
  }

  async insertMany(collection: string, docs: Doc[]): Promise<number> {
    if (docs.length === 0) return 0;
    const rows = docs.map((d) => [d._id, docJson(d)] as const);
    const stmt = this.#stmt(`INSERT INTO ${this.#table(collection)} (_id, doc) VALUES (?, ?)`);
    // one transaction: one write of the log instead of one per document
    return this.#transaction(() => {
      let n = 0;
      for (const [id, json] of rows) {
        try {
          stmt.run(id, json);
        } catch (err) {
          if (err instanceof ServiceError && err.code === 'conflict') break;
          throw err;
        }
        n++;
      }
      return n;
    });
  }

  async get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null> {
    const row = this.#stmt(`SELECT doc FROM ${this.#table(collection)} WHERE _id = ?`).get(id) as
      { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  async findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null> {
    const where = compileFilter(filter);
    const row = this.#stmt(`SELECT doc FROM ${this.#table(collection)} WHERE ${where.sql} LIMIT 1`).get(
      ...where.params,
    ) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  async find<T extends Doc = Doc>(collection: string, filter: Filter, options: FindOptions = {}): Promise<T[]> {
    checkPaging(options);
    if (options.limit === 0) return [];
    const where = compileFilter(filter);
    let sql = `SELECT doc FROM ${this.#table(collection)} WHERE ${where.sql}`;
    if (options.sort) {
      const dir = options.sort.direction === 'desc' ? 'DESC' : 'ASC';
      sql +=
        options.sort.field === '_id'
          ? ` ORDER BY _id ${dir}`
          : ` ORDER BY ${fieldSql(options.sort.field).value} ${dir}${
              options.then
                ? `, ${fieldSql(options.then.field).value} ${options.then.direction === 'desc' ? 'DESC' : 'ASC'}`
                : ''
            }, _id ASC`;
    }
    const params = [...where.params];
    if (options.limit !== undefined || options.skip !== undefined) {
      sql += ' LIMIT ? OFFSET ?';
      params.push(options.limit ?? -1, options.skip ?? 0);
    }
    const rows = this.#stmt(sql).all(...params) as Array<{ doc: string }>;
    return rows.map((r) => JSON.parse(r.doc) as T);
  }

  async count(collection: string, filter: Filter): Promise<number> {
    const where = compileFilter(filter);
    const row = this.#stmt(`SELECT COUNT(*) AS n FROM ${this.#table(collection)} WHERE ${where.sql}`).get(
      ...where.params,
    ) as { n: number };
    return row.n;
  }

  async update<T extends Doc = Doc>(
    collection: string,
    id: string,
    patch: Record<string, unknown>,
    where: Filter = {},
  ): Promise<T | null> {
    const sets: Sql = { sql: '', params: [] };
    const removes: string[] = [];
    for (const [key, value] of Object.entries(patch)) {
      if (key === '_id') {
        if (value !== id) throw new ServiceError('bad_request', 'update cannot change _id');
        continue;
      }
      if (!FIELD_SEGMENT.test(key)) throw new ServiceError('bad_request', `invalid top-level field name "${key}"`);
      const json = value === undefined ? undefined : JSON.stringify(value);
      if (json === undefined) {
        removes.push(`'${jsonPath(key)}'`);
      } else {
        sets.sql += `, '${jsonPath(key)}', json(?)`;
        sets.params.push(json);
      }
    }
    const cond = compileFilter(where);
    const table = this.#table(collection);
    if (sets.params.length === 0 && removes.length === 0) {
      const row = this.#stmt(`SELECT doc FROM ${table} WHERE _id = ? AND ${cond.sql}`).get(id, ...cond.params) as
        { doc: string } | undefined;
      return row ? (JSON.parse(row.doc) as T) : null;
    }
    let expr = sets.params.length > 0 ? `json_set(doc${sets.sql})` : 'doc';
    if (removes.length > 0) expr = `json_remove(${expr}, ${removes.join(', ')})`;
    const row = this.#stmt(`UPDATE ${table} SET doc = ${expr} WHERE _id = ? AND ${cond.sql} RETURNING doc`).get(
      ...sets.params,
      id,
      ...cond.params,
    ) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  async replace<T extends Doc>(collection: string, doc: T, where: Filter = {}): Promise<T | null> {
    const json = docJson(doc);
    return this.#put(collection, json, doc._id, where) ? (JSON.parse(json) as T) : null;
  }

  async putJson(collection: string, id: string, json: string, where: Filter = {}): Promise<boolean> {
    // the caller's own text is stored as it is, so check it is one object for this id
    if (typeof id !== 'string' || id === '' || json[0] !== '{')
      throw new ServiceError('bad_request', 'putJson needs a non-empty id and the JSON text of an object');
    return this.#put(collection, json, id, where);
  }

  #put(collection: string, json: string, id: string, where: Filter): boolean {
    const cond = compileFilter(where);
    return (
      this.#stmt(`UPDATE ${this.#table(collection)} SET doc = ? WHERE _id = ? AND ${cond.sql}`).run(
        json,
        id,
        ...cond.params,
      ).changes > 0
    );
  }

  async delete(collection: string, id: string): Promise<boolean> {
    return this.#stmt(`DELETE FROM ${this.#table(collection)} WHERE _id = ?`).run(id).changes > 0;
  }

  async deleteMany(collection: string, filter: Filter): Promise<number> {
    const where = compileFilter(filter);
    return this.#stmt(`DELETE FROM ${this.#table(collection)} WHERE ${where.sql}`).run(...where.params).changes;
  }

  async nextSequence(name: string): Promise<number> {
    // One upsert statement is its own write transaction: processes sharing the file queue on the lock.
    const row = this.#stmt(
      'INSERT INTO _sequences (name, value) VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value',
    ).get(name) as { value: number };
    return row.value;
  }

  async close(): Promise<void> {
    await this.#checkpointer?.close();
    this.#checkpointer = null;
    this.#statements.clear();
    if (this.#db.open) this.#db.close();
  }

  /**
   * Checkpoints and empties the write-ahead log in this connection (the log grew past the
   * checkpoint thread's limit). Waits at most 20 ms for other connections; a busy file
   * is left for the next report.
   */
  #resetLog(): void {
    if (!this.#db.open) return;
    const timeout = this.#db.pragma('busy_timeout', { simple: true }) as number;
    try {
      this.#db.pragma('busy_timeout = 20');
      this.#db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // busy or failing: the thread reports again while the log stays large
    } finally {
      this.#db.pragma(`busy_timeout = ${timeout}`);
    }
  }

  /** The quoted table of a collection, created on first use. */
  #table(collection: string): string {
    checkCollection(collection);
    const quoted = `"${collection}"`;
    if (!this.#tables.has(collection)) {
      this.#run(() => this.#db.exec(`CREATE TABLE IF NOT EXISTS ${quoted} (_id TEXT PRIMARY KEY, doc TEXT NOT NULL)`));
      this.#tables.add(collection);
    }
    return quoted;
  }

  /** A prepared statement whose run/get/all map SQLite errors to ServiceError. */
  #stmt(sql: string): {
    run(...p: unknown[]): Database.RunResult;
    get(...p: unknown[]): unknown;
    all(...p: unknown[]): unknown[];
  } {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      if (this.#statements.size >= MAX_CACHED_STATEMENTS) this.#statements.clear();
      stmt = this.#run(() => this.#db.prepare(sql));
      this.#statements.set(sql, stmt);
    }
    const s = stmt;
    return {
      run: (...p) => this.#run(() => s.run(...p)),
      get: (...p) => this.#run(() => s.get(...p)),
      all: (...p) => this.#run(() => s.all(...p)),
    };
  }

  /** Runs `fn` in one write transaction (BEGIN IMMEDIATE takes the write lock up front). */
  #transaction<R>(fn: () => R): R {
    return this.#run(() => this.#db.transaction(fn).immediate());
  }

  #run<R>(fn: () => R): R {
    try {
      return fn();
    } catch (err) {
      throw mapSqliteError(err);
    }
  }
}

function checkCollection(collection: string): void {
  if (!COLLECTION_NAME.test(collection) || /^sqlite_/i.test(collection)) {
    throw new ServiceError(
      'bad_request',
      `invalid collection name "${collection}": letters, digits and _ only, starting with a letter`,
    );
  }
}

/** The SQLite name of the index `ensureIndexes` makes for `index`. */
function indexName(collection: string, index: IndexSpec): string {
  return `${collection}__${index.unique ? 'ux' : 'ix'}__${index.fields.join('__').replace(/[^A-Za-z0-9_]/g, '_')}`;
}

function mapSqliteError(err: unknown): unknown {
  const code = (err as { code?: unknown }).code;
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE') {
    return new ServiceError(
      'conflict',
      code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
        ? 'a document with this _id already exists'
        : 'a unique index already holds this value',
      { cause: err },
    );
  }
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new ServiceError('unavailable', 'the SQLite file is locked by another process; try again', { cause: err });
  }
  return err;
}
