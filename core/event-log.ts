import { C } from './collections.js';
import { nowIso } from './ids.js';
import type { BusSubscription, Doc, DocumentStore, EventBus } from './ports.js';

/** What a producer says happened (spec section 6). */
export interface EventInput {
  /** Id of the server job or run the event belongs to. */
  stream: string;
  /** Project the stream belongs to; used to refuse other projects' readers. */
  project_id: string;
  type: string;
  /** One line of text. */
  summary: string;
  episode_id?: string | null;
  actor_id?: string | null;
  goal_version?: number | null;
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

interface EventDoc extends Doc, ServiceEvent {
  project_id: string;
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
 * The durable event log. `append` stores the event first (with the next `event_id` of its
 * stream, never reused) and only then publishes it on the bus, so an acknowledged event is
 * never lost: a reader that missed the live message replays it from the log.
 */
export class EventLog {
  readonly #store: DocumentStore;
  readonly #bus: EventBus;

  constructor(store: DocumentStore, bus: EventBus) {
    this.#store = store;
    this.#bus = bus;
  }

  static async ensureIndexes(store: DocumentStore): Promise<void> {
    await store.ensureIndexes(C.events, [{ fields: ['stream', 'event_id'], unique: true }]);
  }

  async append(input: EventInput): Promise<ServiceEvent> {
    const event_id = await this.#store.nextSequence(`events:${input.stream}`);
    const event: ServiceEvent = {
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
    await this.#store.insert<EventDoc>(C.events, { _id: `${input.stream}:${event_id}`, project_id: input.project_id, ...event });
    try {
      await this.#bus.publish(eventSubject(input.stream), event);
    } catch {
      // Stored is what counts: live readers catch up from the log.
    }
    return event;
  }

  /** Events of a stream with `event_id` > cursor, oldest first. */
  async page(stream: string, cursor: number, limit: number): Promise<ServiceEvent[]> {
    const docs = await this.#store.find<EventDoc>(C.events, { stream, event_id: { $gt: cursor } }, { sort: { field: 'event_id', direction: 'asc' }, limit });
    return docs.map(toServiceEvent);
  }

  /** Live events of a stream, from the moment the returned promise resolves. */
  subscribe(stream: string, handler: (e: ServiceEvent) => void): Promise<BusSubscription> {
    return this.#bus.subscribe(eventSubject(stream), (m) => handler(m.data as ServiceEvent));
  }
}
