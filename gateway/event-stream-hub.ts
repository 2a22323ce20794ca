import type { EventLog, ServiceEvent } from '../core/index.js';
import type { Logger } from '../core/index.js';
import type { BusSubscription } from '../core/index.js';
import { SseFrames } from './sse-frames.js';

/** Receives the live events of one stream. */
export type StreamListener = (event: ServiceEvent) => void;

interface Entry {
  listeners: Set<StreamListener>;
  ready: Promise<BusSubscription>;
}

/**
 * Shares one bus subscription per stream among every event-stream connection of this
 * gateway: a hundred clients watching one run cost one NATS consumer, not a hundred, and
 * each event is decoded once. Listeners receive the same event object and must not
 * change it. The subscription is dropped when its last listener leaves.
 */
export class EventStreamHub {
  readonly #log: EventLog;
  readonly #logger: Logger;
  readonly #entries = new Map<string, Entry>();
  /** The frames its connections send, made once per event however many connections send it. */
  readonly frames = new SseFrames();

  constructor(log: EventLog, logger: Logger) {
    this.#log = log;
    this.#logger = logger;
  }

  /**
   * Adds `listener` to the live events of `stream`; resolves once the bus subscription is
   * active, so every event published after that reaches the listener. The returned
   * function removes it (calling it twice is harmless). Rejects when the bus refuses.
   */
  async listen(stream: string, listener: StreamListener): Promise<() => void> {
    let entry = this.#entries.get(stream);
    if (!entry) {
      const listeners = new Set<StreamListener>();
      const created: Entry = {
        listeners,
        ready: this.#log.subscribe(stream, (event) => this.#fanOut(listeners, event)),
      };
      created.ready.catch(() => {
        if (this.#entries.get(stream) === created) this.#entries.delete(stream);
      });
      this.#entries.set(stream, created);
      entry = created;
    }
    entry.listeners.add(listener);
    try {
      await entry.ready;
    } catch (err) {
      entry.listeners.delete(listener);
      throw err;
    }
    const joined = entry;
    return () => this.#leave(stream, joined, listener);
  }

  /** Listeners across every stream: the SSE clients connected now (metrics). */
  get clients(): number {
    let n = 0;
    for (const e of this.#entries.values()) n += e.listeners.size;
    return n;
  }

  /** Streams with at least one listener (for tests and diagnostics). */
  get streams(): number {
    return this.#entries.size;
  }

  #fanOut(listeners: Set<StreamListener>, event: ServiceEvent): void {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (err) {
        // one broken connection must not starve the others
        this.#logger.error({ err, stream: event.stream }, 'event stream listener failed');
      }
    }
  }

  #leave(stream: string, entry: Entry, listener: StreamListener): void {
    if (!entry.listeners.delete(listener) || entry.listeners.size > 0) return;
    if (this.#entries.get(stream) === entry) this.#entries.delete(stream);
    entry.ready
      .then((subscription) => subscription.unsubscribe())
      .catch((err: unknown) => this.#logger.warn({ err, stream }, 'dropping an event stream subscription failed'));
  }
}
