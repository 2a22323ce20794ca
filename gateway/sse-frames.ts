import type { ServiceEvent } from '../core/index.js';

/**
 * The server-sent event frames of one gateway's event streams, as bytes, made once however
 * many connections send them. Its hub (`EventStreamHub.frames`) owns it, so two gateways in
 * one process (tests, benchmarks) share nothing.
 */
export class SseFrames {
  /** Each event's frame, kept as long as the event object is (the hub hands every listener the same one). */
  readonly #frames = new WeakMap<ServiceEvent, Buffer>();
  /** The last batch of frames joined, and the events it holds: connections that are level share it. */
  #lastBatch: { first: ServiceEvent; last: ServiceEvent; count: number; bytes: Buffer } | null = null;

  /** The SSE frame of an event. */
  of(event: ServiceEvent): Buffer {
    let frame = this.#frames.get(event);
    if (frame === undefined) {
      frame = Buffer.from(`id: ${event.event_id}\ndata: ${JSON.stringify(event)}\n\n`);
      this.#frames.set(event, frame);
    }
    return frame;
  }

  /**
   * The frames of `events` as one buffer, so a connection makes one socket write per batch
   * (not one chunk per event). Connections that are level with each other receive the same
   * events and share the joined buffer.
   */
  batch(events: ServiceEvent[]): Buffer {
    if (events.length === 1) return this.of(events[0]!);
    const first = events[0]!;
    const last = events[events.length - 1]!;
    const b = this.#lastBatch;
    if (b && b.first === first && b.last === last && b.count === events.length) return b.bytes;
    const bytes = Buffer.concat(events.map((e) => this.of(e)));
    this.#lastBatch = { first, last, count: events.length, bytes };
    return bytes;
  }
}
