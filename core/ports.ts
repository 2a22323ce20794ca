/**
 * The ports every component talks through. Each has an embedded adapter (one machine,
 * `npm start`) and an engine adapter (compose.yaml, many machines); both pass the same
 * contract suite in test/contract.
 */

/** A stored document. `_id` is the primary key; every other field is free-form JSON. */
export type Doc = { _id: string } & Record<string, unknown>;

/**
 * A filter value: a literal (equality, `null` matches missing or null) or one operator
 * object. Keys may be dotted paths (`source.kind`).
 */
export type FilterValue =
  | string
  | number
  | boolean
  | null
  | { $in: Array<string | number | boolean> }
  | { $ne: string | number | boolean | null }
  | { $gt?: number | string; $gte?: number | string; $lt?: number | string; $lte?: number | string };

export type Filter = Record<string, FilterValue>;

export interface FindOptions {
  /** Field to order by (dotted path allowed) and direction; ties break on `_id` ascending. */
  sort?: { field: string; direction: 'asc' | 'desc' };
  /** A second sort key, between `sort` and the `_id` tie-break (keyset paging over two fields). */
  then?: { field: string; direction: 'asc' | 'desc' };
  limit?: number;
  skip?: number;
}

export interface IndexSpec {
  /** Dotted field paths making up the index key. */
  fields: string[];
  unique?: boolean;
}

/**
 * A document store of named collections.
 *
 * Promises: a single call is atomic on one document; `insert` fails with
 * `ServiceError('conflict')` when `_id` or a unique index already holds the value;
 * `update` with `where` is a compare-and-set (the patch applies only when the document
 * still matches); `nextSequence` never returns the same number twice for one name, even
 * across processes sharing the store. Reads see every write acknowledged before them.
 */
export interface DocumentStore {
  /** Creates indexes if missing; idempotent. */
  ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void>;
  /** Drops indexes made by `ensureIndexes` with these specs, where present; idempotent. */
  dropIndexes(collection: string, indexes: IndexSpec[]): Promise<void>;
  insert<T extends Doc>(collection: string, doc: T): Promise<T>;
  /**
   * Inserts `docs` in order, stopping at the first one whose `_id` or unique value is taken
   * (no error for that); resolves with how many were inserted, the ones before it. Other
   * failures reject. For writers that allocate ids themselves (the event log).
   */
  insertMany(collection: string, docs: Doc[]): Promise<number>;
  get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null>;
  findOne<T extends Doc = Doc>(collection: string, filter: Filter): Promise<T | null>;
  find<T extends Doc = Doc>(collection: string, filter: Filter, options?: FindOptions): Promise<T[]>;
  count(collection: string, filter: Filter): Promise<number>;
  /**
   * Sets the top-level fields of `patch` (a field set to `undefined` is removed) on the
   * document `id`, when it exists and also matches `where`. Returns the document after the
   * change, or null when nothing matched.
   */
  update<T extends Doc = Doc>(
    collection: string,
    id: string,
    patch: Record<string, unknown>,
    where?: Filter,
  ): Promise<T | null>;
  /** Replaces the whole document when it exists (and matches `where`). */
  replace<T extends Doc>(collection: string, doc: T, where?: Filter): Promise<T | null>;
  /**
   * Like `replace`, with the new document given as JSON text (it must hold `_id: id`) and
   * nothing read back: true when document `id` existed (and matched `where`) and was
   * replaced. For writers of large documents that serialise them themselves, reusing the
   * text of parts that did not change (episode-actor/state-json.ts).
   */
  putJson(collection: string, id: string, json: string, where?: Filter): Promise<boolean>;
  /** Deletes one document; true when it existed. */
  delete(collection: string, id: string): Promise<boolean>;
  /** Deletes every document matching the filter; returns how many. */
  deleteMany(collection: string, filter: Filter): Promise<number>;
  /** An atomic counter: 1, 2, 3 ... per name. */
  nextSequence(name: string): Promise<number>;
  close(): Promise<void>;
}

export interface BusMessage {
  subject: string;
  data: unknown;
}

export interface BusSubscription {
  unsubscribe(): Promise<void>;
}

/**
 * Publish/subscribe on dotted subjects. `*` matches one token, `>` the rest.
 *
 * Promises: `publish` resolves once the bus accepted the message; a subscriber receives
 * the messages of one subject in publish order, each at most once, from the moment
 * `subscribe` resolved. The bus is for live fan-out; the durable record is elsewhere
 * (the event log in the document store), so a subscriber that was away replays from there.
 */
export interface EventBus {
  publish(subject: string, data: unknown): Promise<void>;
  subscribe(subject: string, handler: (msg: BusMessage) => void): Promise<BusSubscription>;
  close(): Promise<void>;
}

/**
 * Leases and small shared state with expiry: job and run ownership, worker placement,
 * rate limits and idempotency look-ups.
 *
 * Promises: `acquire` is exclusive (at most one owner holds a key until it expires or is
 * released); `renew` and `release` act only for the current owner; `incr` is atomic;
 * expired keys read as absent.
 */
export interface LeaseStore {
  acquire(key: string, owner: string, ttlMs: number): Promise<boolean>;
  renew(key: string, owner: string, ttlMs: number): Promise<boolean>;
  release(key: string, owner: string): Promise<boolean>;
  /** The owner holding `key`, or null. */
  holder(key: string): Promise<string | null>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets only when absent; true when it was set. */
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>;
  del(key: string): Promise<void>;
  /** Adds `by` (default 1) and returns the new value; `ttlMs` applies when the key is created. */
  incr(key: string, ttlMs?: number, by?: number): Promise<number>;
  /** Hash fields, for registries such as the live workers. */
  hset(key: string, field: string, value: string): Promise<void>;
  hdel(key: string, field: string): Promise<void>;
  hgetall(key: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

/** The adapters one process uses, chosen once at start by `chooseAdapters(config)`. */
export interface Adapters {
  store: DocumentStore;
  bus: EventBus;
  leases: LeaseStore;
  /** Names of the engines in use, for logs and /v1/health. */
  engines: { store: 'sqlite' | 'postgres' | 'mongodb'; bus: 'memory' | 'nats'; leases: 'memory' | 'redis' };
  close(): Promise<void>;
}
