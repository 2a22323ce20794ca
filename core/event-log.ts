import { randomUUID } from 'node:crypto';
import { Collections } from './collections.js';
import { ServiceError } from './errors.js';
import { checkEventData, type EventType } from './event-types.js';
import { nowIso } from './ids.js';
import type { Logger } from './log.js';
import type { BusSubscription, Doc, DocumentStore, EventBus, Filter } from './ports.js';

/** What a producer says happened (spec section 6). */
export interface EventInput {
  /** Id of the server job or run the event belongs to. */
  stream: string;
  /** Project the stream belongs to; used to refuse other projects' readers. */
  project_id: string;
  /** A type of the catalogue (core/event-types.ts); `stream.end` only through {@link EventLog.end}. */
  type: EventType;
  /** One line of text. */
  summary: string;
  episode_id?: string | null;
  actor_id?: string | null;
  goal_version?: number | null;
  /** Fields of the type, as the catalogue names them. */
  data?: Record<string, unknown>;
}

/** An event as clients see it. */
export interface ServiceEvent {
  event_id: number;
  type: string;
  summary: string;
  created_at: string;
  stream: string;
  episode_id: string | null;
  actor_id: string | null;
  goal_version: number | null;
  data: Record<string, unknown>;
}

export interface EventDoc extends Doc, ServiceEvent {
  project_id: string;
  /**
   * The token of the batch write that stored it (`#insertSurely`), by which a retry after a
   * lost answer finds what landed; absent on events stored one at a time.
   */
  write?: string;
}

/** The bus subject live events of a stream are published on. */
export const eventSubject = (stream: string): string => `crucible.events.${stream.replace(/[^A-Za-z0-9_-]/g, '_')}`;

export function toServiceEvent(d: ServiceEvent): ServiceEvent {
  return {
    event_id: d.event_id,
    type: d.type,
    summary: d.summary,
    created_at: d.created_at,
    stream: d.stream,
    episode_id: d.episode_id ?? null,
    actor_id: d.actor_id ?? null,
    goal_version: d.goal_version ?? null,
    data: d.data ?? {},
  };
}

/**
 * Per store and process: index creation, each stream's append queue and last written id.
 * Kept by store in a module-level WeakMap on purpose: its lifetime is the store's (it goes
 * with it, and two stores share nothing), while `EventLog`s are short-lived views made
 * wherever an event is written (`new EventLog(store, bus)`), and every view of one store must
 * share the queue so a stream's ids follow call order. Owning it elsewhere would mean one
 * EventLog per set of adapters, handed to every writer.
 */
interface StoreState {
  indexes: Promise<void>;
  tails: Map<string, Promise<unknown>>;
  hints: Map<string, number>;
}

const states = new WeakMap<DocumentStore, StoreState>();
const MAX_ATTEMPTS = 200;
/** Tries of one event write while the store fails (backoff 0.1 s doubling to 5 s: about 30 s). */
const STORE_RETRIES = 10;
const MAX_HINTS = 10_000;

/**
 * The durable event log.
 *
 * `event_id` is allocated by the insert itself: an event is stored as `<stream>:<id>` with
 * id = last stored id + 1, and a writer that loses the race (conflict) re-reads the last
 * id and tries the next one. So ids of a stream are 1, 2, 3 ... without holes or reuse,
 * and id N+1 is only ever stored after N is — a reader that sees N+1 (in the log or on
 * the bus) can always read N from the log. Appends of one stream in one process queue
 * behind each other (ids follow call order); across processes the conflict decides.
 *
 * `append` stores first and only then publishes on the bus; a failed or lost publish is
 * logged, never thrown, because the stored event is the record: live readers catch up
 * from the log (see gateway/event-stream-session.ts).
 */
export class EventLog {
  readonly #store: DocumentStore;
  readonly #bus: EventBus;
  readonly #logger: Logger | undefined;
  readonly #state: StoreState;

  constructor(store: DocumentStore, bus: EventBus, options: { logger?: Logger } = {}) {
    this.#store = store;
    this.#bus = bus;
    this.#logger = options.logger;
    let state = states.get(store);
    if (!state) {
      state = { indexes: EventLog.ensureIndexes(store), tails: new Map(), hints: new Map() };
      // a failed index creation is retried by the next EventLog of this store
      state.indexes.catch(() => states.delete(store));
      states.set(store, state);
    }
    this.#state = state;
  }

  static async ensureIndexes(store: DocumentStore): Promise<void> {
    await store.ensureIndexes(Collections.events, [{ fields: ['stream', 'event_id'], unique: true }]);
  }

  /**
   * Stores the event with the next `event_id` of its stream, then publishes it. Refuses
   * (ServiceError 'internal') a type or `data` the catalogue does not describe, and
   * `stream.end`, which only {@link end} writes.
   */
  async append(input: EventInput): Promise<ServiceEvent> {
    return (await this.appendMany([input]))[0]!;
  }

  /**
   * Stores several events of one stream with consecutive `event_id`s in one write (in
   * order), then publishes them; the same checks and promises as {@link append}. Where
   * another writer took an id midway, the events before it are stored and the rest go on
   * after the other writer's.
   */
  async appendMany(inputs: EventInput[]): Promise<ServiceEvent[]> {
    if (inputs.length === 0) return [];
    const stream = inputs[0]!.stream;
    for (const input of inputs) {
      if (input.stream !== stream) throw new ServiceError('internal', 'appendMany takes the events of one stream');
      if (input.type === 'stream.end')
        throw new ServiceError(
          'internal',
          'stream.end is written by EventLog.end once the job or run has ended, never by append',
        );
      checkEventData(input.type, input.data ?? {});
    }
    return this.#queue(stream, async () => {
      await this.#state.indexes;
      const stored: ServiceEvent[] = [];
      let next = (this.#state.hints.get(stream) ?? (await this.#retrying(() => this.lastEventId(stream)))) + 1;
      for (let attempt = 0; stored.length < inputs.length; attempt++) {
        if (attempt >= MAX_ATTEMPTS) throw contention(stream);
        const batch = inputs.slice(stored.length).map((input, i) => ({ input, event: this.#event(input, next + i) }));
        const n = await this.#insertSurely(
          batch.map(({ input, event }) => ({
            _id: `${stream}:${event.event_id}`,
            project_id: input.project_id,
            ...event,
          })),
        );
        stored.push(...batch.slice(0, n).map((b) => b.event));
        if (n > 0) this.#hint(stream, next + n - 1);
        if (stored.length < inputs.length) {
          await backoff(attempt);
          next = (await this.#retrying(() => this.lastEventId(stream))) + 1;
        }
      }
      for (const event of stored) await this.#publish(event);
      return stored;
    });
  }

  /**
   * Writes the `stream.end` event of an ended job or run, once: when the stream's last
   * stored event already is a `stream.end` it is returned instead, so gateways that see
   * the end at the same moment all answer with the same event. A stream that continues
   * afterwards (a retried job) gets a new `stream.end` when it ends again.
   */
  async end(input: { stream: string; project_id: string; status: string; kind: 'job' | 'run' }): Promise<ServiceEvent> {
    const { stream, project_id, status, kind } = input;
    const event: EventInput = {
      stream,
      project_id,
      type: 'stream.end',
      summary: `${kind} ${stream} ended: ${status}`,
      data: { status, kind },
    };
    checkEventData(event.type, event.data!);
    return this.#queue(stream, async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const last = await this.lastEvent(stream);
        if (last?.type === 'stream.end') return last;
        const stored = await this.#tryInsert(event, event.data!, (last?.event_id ?? 0) + 1);
        if (stored) return this.#publish(stored);
        await backoff(attempt);
      }
      throw contention(stream);
    });
  }

  /** Events of a stream with `event_id` > cursor, oldest first; only the project's when `projectId` is given. */
  async page(stream: string, cursor: number, limit: number, projectId?: string): Promise<ServiceEvent[]> {
    await this.#state.indexes;
    const filter: Filter = { stream, event_id: { $gt: cursor } };
    if (projectId !== undefined) filter.project_id = projectId;
    const docs = await this.#store.find<EventDoc>(Collections.events, filter, {
      sort: { field: 'event_id', direction: 'asc' },
      limit,
    });
    return docs.map(toServiceEvent);
  }

  /** The last stored event of a stream, or null. */
  async lastEvent(stream: string): Promise<ServiceEvent | null> {
    await this.#state.indexes;
    const [doc] = await this.#store.find<EventDoc>(
      Collections.events,
      { stream },
      { sort: { field: 'event_id', direction: 'desc' }, limit: 1 },
    );
    return doc ? toServiceEvent(doc) : null;
  }

  /** The highest stored `event_id` of a stream, 0 when it has none. */
  async lastEventId(stream: string): Promise<number> {
    return (await this.lastEvent(stream))?.event_id ?? 0;
  }

  /** Live events of a stream, from the moment the returned promise resolves. */
  subscribe(stream: string, handler: (e: ServiceEvent) => void): Promise<BusSubscription> {
    return this.#bus.subscribe(eventSubject(stream), (m) => handler(m.data as ServiceEvent));
  }

  /** Inserts at `event_id`; null when that id is taken (another writer won it). */
  /**
   * `insertMany` that survives a store failing for a while (STORE_RETRIES attempts over
   * about 30 s): the documents carry a write token, so after a failure whose outcome is
   * unknown (the write may have landed, the answer got lost) the ones that did land are
   * found by id and counted instead of being written twice under new ids.
   * @returns how many of `docs`, from the first, are stored.
   */
  async #insertSurely(docs: Doc[]): Promise<number> {
    const write = randomUUID();
    const marked = docs.map((d) => ({ ...d, write }));
    let failure: unknown;
    for (let attempt = 0; attempt < STORE_RETRIES; attempt++) {
      if (attempt > 0) {
        await new Promise((r) => setTimeout(r, Math.min(5_000, 100 * 2 ** (attempt - 1))));
        try {
          const landed = await this.#landed(marked, write);
          if (landed > 0) return landed;
        } catch (err) {
          failure = err; // the store still fails: try again later
          continue;
        }
      }
      try {
        return await this.#store.insertMany(Collections.events, marked);
      } catch (err) {
        failure = err;
        this.#logger?.warn({ err, attempt }, 'storing events failed; trying again');
      }
    }
    throw failure;
  }

  /** A read retried like {@link #insertSurely}'s writes while the store fails. */
  async #retrying<T>(read: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await read();
      } catch (err) {
        if (attempt + 1 >= STORE_RETRIES) throw err;
        await new Promise((r) => setTimeout(r, Math.min(5_000, 100 * 2 ** attempt)));
      }
    }
  }

  /** How many of `docs`, from the first, are stored with this write token. */
  async #landed(docs: Doc[], write: string): Promise<number> {
    let n = 0;
    for (const d of docs) {
      const found = await this.#store.get<EventDoc>(Collections.events, d._id);
      if (found?.write !== write) break;
      n++;
    }
    return n;
  }

  async #tryInsert(input: EventInput, data: Record<string, unknown>, event_id: number): Promise<ServiceEvent | null> {
    await this.#state.indexes;
    const event = this.#event({ ...input, data }, event_id);
    try {
      await this.#store.insert<EventDoc>(Collections.events, {
        _id: `${input.stream}:${event_id}`,
        project_id: input.project_id,
        ...event,
      });
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'conflict') return null;
      throw err;
    }
    this.#hint(input.stream, event_id);
    return event;
  }

  #event(input: EventInput, event_id: number): ServiceEvent {
    return {
      event_id,
      type: input.type,
      summary: input.summary,
      created_at: nowIso(),
      stream: input.stream,
      episode_id: input.episode_id ?? null,
      actor_id: input.actor_id ?? null,
      goal_version: input.goal_version ?? null,
      data: input.data ?? {},
    };
  }

  /** Remembers the last id this process wrote to a stream (the next append tries the one after). */
  #hint(stream: string, event_id: number): void {
    const hints = this.#state.hints;
    if (hints.size >= MAX_HINTS && !hints.has(stream)) hints.clear();
    hints.set(stream, event_id);
  }

  async #publish(event: ServiceEvent): Promise<ServiceEvent> {
    try {
      await this.#bus.publish(eventSubject(event.stream), event);
    } catch (err) {
      // Stored is what counts: live readers catch up from the log.
      this.#logger?.warn(
        { err, stream: event.stream, event_id: event.event_id },
        'event stored but not published; readers will replay it from the log',
      );
    }
    return event;
  }

  /** Runs `task` after every earlier append of `stream` in this process has settled. */
  #queue<T>(stream: string, task: () => Promise<T>): Promise<T> {
    const tails = this.#state.tails;
    const run = (tails.get(stream) ?? Promise.resolve()).then(task);
    const tail = run.catch(() => undefined);
    tails.set(stream, tail);
    void tail.then(() => {
      if (tails.get(stream) === tail) tails.delete(stream);
    });
    return run;
  }
}

/** After a few lost races, wait a little (with jitter) so competing writers spread out. */
async function backoff(attempt: number): Promise<void> {
  if (attempt < 3) return;
  const ms = Math.random() * Math.min(50, 2 ** (attempt - 3));
  await new Promise((resolve) => setTimeout(resolve, ms));
}

function contention(stream: string): ServiceError {
  return new ServiceError(
    'unavailable',
    `could not append to event stream ${stream}: ${MAX_ATTEMPTS} attempts lost to other writers`,
  );
}
