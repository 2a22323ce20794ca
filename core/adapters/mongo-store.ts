import {
  MongoClient,
  type Collection,
  type Db,
  type Document,
  type Filter as MongoFilter,
  type MongoClientOptions,
} from 'mongodb';
import { ServiceError } from '../errors.js';
import type { Doc, DocumentStore, Filter, FilterValue, FindOptions, IndexSpec } from '../ports.js';

/** Options of {@link MongoStore.connect}. */
export interface MongoStoreOptions {
  /** How long to look for a reachable server before failing (10000 ms). */
  serverSelectionTimeoutMs?: number;
}

const COLLECTION_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;
const FIELD_SEGMENT = /^[A-Za-z0-9_-]+$/;
const RANGE_OPS = new Set(['$gt', '$gte', '$lt', '$lte']);
const DUPLICATE_KEY = 11000;
const SEQUENCES = '_sequences';

/**
 * The engine {@link DocumentStore} on MongoDB (official driver), with the SQLite store's
 * semantics: documents are stored as plain JSON (values are normalised through JSON, so a
 * `Date` becomes its ISO string and `undefined` fields vanish), a duplicate key (error
 * 11000) is `ServiceError('conflict')`, unique indexes only constrain documents that have
 * every indexed field, and `nextSequence` is one `$inc` upsert on `_sequences`.
 */
export class MongoStore implements DocumentStore {
  readonly #client: MongoClient;
  readonly #db: Db;

  private constructor(client: MongoClient, db: Db) {
    this.#client = client;
    this.#db = db;
  }

  /** Connects to `url` and uses database `dbName`; fails with `unavailable` when unreachable. */
  static async connect(url: string, dbName: string, options: MongoStoreOptions = {}): Promise<MongoStore> {
    const clientOptions: MongoClientOptions = { serverSelectionTimeoutMS: options.serverSelectionTimeoutMs ?? 10_000 };
    const client = new MongoClient(url, clientOptions);
    try {
      await client.connect();
      await client.db(dbName).command({ ping: 1 });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw new ServiceError('unavailable', `cannot reach MongoDB (MONGODB_URL): ${(err as Error).message}`, {
        cause: err,
      });
    }
    return new MongoStore(client, client.db(dbName));
  }

  async ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
    const coll = this.#coll(collection);
    for (const index of indexes) {
      if (index.fields.length === 0) throw new ServiceError('bad_request', `an index of ${collection} names no fields`);
      index.fields.forEach(checkPath);
      if (index.fields.length === 1 && index.fields[0] === '_id') continue;
      const keys = Object.fromEntries(index.fields.map((f) => [f, 1] as const));
      const name = indexName(index);
      await this.#call(() =>
        coll.createIndex(
          keys,
          index.unique
            ? {
                name,
                unique: true,
                partialFilterExpression: Object.fromEntries(index.fields.map((f) => [f, { $exists: true }])),
              }
            : { name },
        ),
      );
    }
  }

  async dropIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
    const coll = this.#coll(collection);
    for (const index of indexes) {
      if (index.fields.length === 1 && index.fields[0] === '_id') continue;
      try {
        await coll.dropIndex(indexName(index));
      } catch (err) {
        // 26 NamespaceNotFound (no collection), 27 IndexNotFound: nothing to drop
        const code = (err as { code?: unknown }).code;
        if (code === 26 || code === 27) continue;
        throw mapMongoError(err);
      }
    }
  }

  async insert<T extends Doc>(collection: string, doc: T): Promise<T> {
    const plain = normalise(doc);
    await this.#call(() => this.#coll(collection).insertOne({ ...plain }));
    return plain;
  }

  async insertMany(collection: string, docs: Doc[]): Promise<number> {
    if (docs.length === 0) return 0;
    const plain = docs.map((d) => normalise(d));
    try {
      const result = await this.#coll(collection).insertMany(plain, { ordered: true });
      return result.insertedCount;
    } catch (err) {
      // ordered: everything before the taken value went in, nothing after it
      const inserted =
        (err as { insertedCount?: unknown; result?: { insertedCount?: unknown } }).insertedCount ??
        (err as { result?: { insertedCount?: unknown } }).result?.insertedCount;
      if (isDuplicateKey(err) && typeof inserted === 'number') return inserted;
      throw mapMongoError(err);
    }
  }

  async get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null> {
    return (await this.#call(() => this.#coll(collection).findOne({ _id: id }))) as T | null;
  }

  async findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null> {
    return (await this.#call(() => this.#coll(collection).findOne(translate(filter)))) as T | null;
  }

  async find<T extends Doc = Doc>(collection: string, filter: Filter, options: FindOptions = {}): Promise<T[]> {
    checkPaging(options);
    if (options.limit === 0) return [];
    let cursor = this.#coll(collection).find(translate(filter));
    if (options.sort) {
      checkPath(options.sort.field);
      const dir = options.sort.direction === 'desc' ? -1 : 1;
      const then = options.then;
      if (then) checkPath(then.field);
      cursor = cursor.sort(
        options.sort.field === '_id'
          ? { _id: dir }
          : then
            ? { [options.sort.field]: dir, [then.field]: then.direction === 'desc' ? -1 : 1, _id: 1 }
            : { [options.sort.field]: dir, _id: 1 },
      );
    }
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit !== undefined) cursor = cursor.limit(options.limit);
    return (await this.#call(() => cursor.toArray())) as T[];
  }

  async count(collection: string, filter: Filter): Promise<number> {
    return this.#call(() => this.#coll(collection).countDocuments(translate(filter)));
  }

  async update<T extends Doc = Doc>(
    collection: string,
    id: string,
    patch: Record<string, unknown>,
    where: Filter = {},
  ): Promise<T | null> {
    const $set: Document = {};
    const $unset: Document = {};
    for (const [key, value] of Object.entries(patch)) {
      if (key === '_id') {
        if (value !== id) throw new ServiceError('bad_request', 'update cannot change _id');
        continue;
      }
      if (!FIELD_SEGMENT.test(key)) throw new ServiceError('bad_request', `invalid top-level field name "${key}"`);
      const json = value === undefined ? undefined : JSON.stringify(value);
      if (json === undefined) $unset[key] = '';
      else $set[key] = JSON.parse(json);
    }
    const filter = { $and: [{ _id: id }, translate(where)] } as MongoFilter<Doc>;
    const coll = this.#coll(collection);
    if (Object.keys($set).length === 0 && Object.keys($unset).length === 0) {
      return (await this.#call(() => coll.findOne(filter))) as T | null;
    }
    const ops: Document = {};
    if (Object.keys($set).length > 0) ops.$set = $set;
    if (Object.keys($unset).length > 0) ops.$unset = $unset;
    return (await this.#call(() => coll.findOneAndUpdate(filter, ops, { returnDocument: 'after' }))) as T | null;
  }

  async replace<T extends Doc>(collection: string, doc: T, where: Filter = {}): Promise<T | null> {
    const plain = normalise(doc);
    const filter = { $and: [{ _id: plain._id }, translate(where)] } as MongoFilter<Doc>;
    return (await this.#call(() =>
      this.#coll(collection).findOneAndReplace(filter, plain, { returnDocument: 'after' }),
    )) as T | null;
  }

  async putJson(collection: string, id: string, json: string, where: Filter = {}): Promise<boolean> {
    const plain = normalise({ ...(JSON.parse(json) as Doc), _id: id });
    const filter = { $and: [{ _id: id }, translate(where)] } as MongoFilter<Doc>;
    const result = await this.#call(() => this.#coll(collection).replaceOne(filter, plain));
    return result.matchedCount > 0;
  }

  async delete(collection: string, id: string): Promise<boolean> {
    const result = await this.#call(() => this.#coll(collection).deleteOne({ _id: id }));
    return result.deletedCount > 0;
  }

  async deleteMany(collection: string, filter: Filter): Promise<number> {
    const result = await this.#call(() => this.#coll(collection).deleteMany(translate(filter)));
    return result.deletedCount;
  }

  async nextSequence(name: string): Promise<number> {
    const coll = this.#db.collection<{ _id: string; value: number }>(SEQUENCES);
    // Two first-time upserts of one name can race on _id; the loser simply retries as an update.
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await coll.findOneAndUpdate(
          { _id: name },
          { $inc: { value: 1 } },
          { upsert: true, returnDocument: 'after' },
        );
        if (!doc) throw new ServiceError('internal', `sequence ${name} returned nothing`);
        return doc.value;
      } catch (err) {
        if (!isDuplicateKey(err) || attempt >= 3) throw mapMongoError(err);
      }
    }
  }

  /** Drops this store's whole database (test runs clean up with it). */
  async dropDatabase(): Promise<void> {
    await this.#call(() => this.#db.dropDatabase());
  }

  async close(): Promise<void> {
    await this.#client.close();
  }

  #coll(collection: string): Collection<Doc> {
    if (!COLLECTION_NAME.test(collection)) {
      throw new ServiceError(
        'bad_request',
        `invalid collection name "${collection}": letters, digits and _ only, starting with a letter`,
      );
    }
    return this.#db.collection<Doc>(collection);
  }

  async #call<R>(fn: () => Promise<R>): Promise<R> {
    try {
      return await fn();
    } catch (err) {
      throw mapMongoError(err);
    }
  }
}

function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === DUPLICATE_KEY;
}

function mapMongoError(err: unknown): unknown {
  if (err instanceof ServiceError) return err;
  if (isDuplicateKey(err))
    return new ServiceError('conflict', 'a document with this _id or unique value already exists', { cause: err });
  return err;
}

/** The document as plain JSON, the only shape both stores keep alike. */
function normalise<T extends Doc>(doc: T): T {
  if (typeof doc?._id !== 'string' || doc._id === '')
    throw new ServiceError('bad_request', 'a document needs a non-empty string _id');
  return JSON.parse(JSON.stringify(doc)) as T;
}

function checkPath(field: string): void {
  if (!field.split('.').every((s) => FIELD_SEGMENT.test(s)))
    throw new ServiceError('bad_request', `invalid field path "${field}"`);
}

function checkLiteral(field: string, value: unknown): void {
  const ok =
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value));
  if (!ok) throw new ServiceError('bad_request', `unsupported filter value on "${field}": ${JSON.stringify(value)}`);
}

/** The port's filter as a MongoDB query, checked so no other operator reaches the server. */
function translate(filter: Filter): MongoFilter<Doc> {
  const out: Document = {};
  for (const [field, value] of Object.entries(filter) as Array<[string, FilterValue]>) {
    checkPath(field);
    if (value === null || typeof value !== 'object') {
      checkLiteral(field, value);
      out[field] = value;
      continue;
    }
    const ops = Object.keys(value);
    if ('$in' in value && ops.length === 1) {
      if (!Array.isArray(value.$in)) throw new ServiceError('bad_request', `$in on "${field}" needs an array`);
      value.$in.forEach((v) => checkLiteral(field, v));
      out[field] = { $in: value.$in };
    } else if ('$ne' in value && ops.length === 1) {
      checkLiteral(field, value.$ne);
      out[field] = { $ne: value.$ne };
    } else if (ops.length > 0 && ops.every((op) => RANGE_OPS.has(op))) {
      for (const op of ops) {
        const bound = (value as Record<string, unknown>)[op];
        if (typeof bound !== 'number' && typeof bound !== 'string')
          throw new ServiceError('bad_request', `${op} on "${field}" needs a number or a string`);
      }
      out[field] = { ...value };
    } else {
      throw new ServiceError('bad_request', `unsupported filter on "${field}": ${JSON.stringify(value)}`);
    }
  }
  return out as MongoFilter<Doc>;
}

function checkPaging(options: FindOptions): void {
  for (const key of ['limit', 'skip'] as const) {
    const v = options[key];
    if (v !== undefined && !(Number.isSafeInteger(v) && v >= 0))
      throw new ServiceError('bad_request', `${key} must be a whole number of 0 or more, got ${v}`);
  }
}

/** The MongoDB name of the index `ensureIndexes` makes for `index`. */
function indexName(index: IndexSpec): string {
  return `${index.unique ? 'ux' : 'ix'}__${index.fields.join('__')}`;
}
