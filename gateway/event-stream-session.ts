import type { Request, Response } from 'express';
import type { EventLog, ServiceEvent } from '../core/index.js';
import { ENDED_STATUSES } from '../core/index.js';
import type { Logger } from '../core/index.js';
import type { EventStreamHub } from './event-stream-hub.js';

/** The job or run a connection watches; its project was checked before. */
export interface StreamTarget {
  kind: 'job' | 'run';
  stream: string;
  projectId: string;
  /** The job's or run's status now; null once it no longer exists. */
  readStatus(): Promise<string | null>;
}

export interface SessionOptions {
  log: EventLog;
  hub: EventStreamHub;
  logger: Logger;
  heartbeatMs: number;
}

/** Events read from the log per query while catching up. */
const PAGE = 500;
/** A client this far behind is cut off; it resumes from its Last-Event-ID. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** First re-check after a terminal event when the document does not show the end yet. */
const FIRST_RECHECK_MS = 100;

/**
 * One server-sent event connection.
 *
 * Order of work: subscribe to live events first (buffering them), then replay the log after
 * the cursor, then forward live events. Every event goes out in `event_id` order, once:
 * ids at or below the last one sent are dropped, and an id beyond the next one means the
 * missing ones are in the log (the log stores N before N+1, see core/event-log.ts), so the
 * log is read to fill the gap. All of this runs on one queue, never interleaved.
 *
 * Ending: a terminal event (`job.status_changed` to an ended status, `run.finished`, or a
 * `stream.end` another gateway wrote) triggers a check of the job's or run's document; an
 * ended document then ends the stream. The heartbeat (a comment line every `heartbeatMs`)
 * also re-reads the log, repairing a lost publish, and re-checks the document; without a
 * terminal event the end is taken when two heartbeats in a row see it, which gives a
 * producer that updates the document before appending its last event time to do so.
 * The end: remaining events, then the stream's `stream.end` (EventLog.end), then close.
 */
export class EventStreamSession {
  readonly #target: StreamTarget;
  readonly #opts: SessionOptions;
  readonly #res: Response;
  readonly #logger: Logger;
  #last: number;
  readonly #pending = new Map<number, ServiceEvent>();
  #chain: Promise<void> = Promise.resolve();
  #drainQueued = false;
  #closed = false;
  /** The last end signal delivered said the work ended (a retried job clears it). */
  #terminalSeen = false;
  #endedAtLastTick = false;
  #heartbeat: NodeJS.Timeout | undefined;
  #recheck: NodeJS.Timeout | undefined;
  #recheckMs = FIRST_RECHECK_MS;
  #leave: (() => void) | undefined;

  constructor(target: StreamTarget, opts: SessionOptions, res: Response, cursor: number) {
    this.#target = target;
    this.#opts = opts;
    this.#res = res;
    this.#last = cursor;
    this.#logger = opts.logger.child({ stream: target.stream });
  }

  /** Subscribes, answers 200 and starts the replay; rejects (before any byte is sent) when the bus refuses. */
  async open(req: Request): Promise<void> {
    // the response's 'close' is the connection going away (the request's fires once its body is read)
    this.#res.once('close', () => this.#close());
    const leave = await this.#opts.hub.listen(this.#target.stream, (event) => this.#onLive(event));
    if (this.#closed || req.destroyed) {
      // the client left while we subscribed: #close already ran without a subscription to drop
      this.#closed = true;
      return leave();
    }
    this.#leave = leave;
    this.#res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // Tell EventSource clients to reconnect quickly; the comment marks the live subscription as active.
    this.#res.write('retry: 2000\n\n: connected\n\n');
    this.#heartbeat = setInterval(() => this.#tick(), this.#opts.heartbeatMs);
    this.#enqueue(async () => {
      await this.#catchUp();
      await this.#checkEnd('open');
    });
  }

  #onLive(event: ServiceEvent): void {
    if (this.#closed || event.event_id <= this.#last) return;
    this.#pending.set(event.event_id, event);
    if (this.#drainQueued) return;
    this.#drainQueued = true;
    this.#enqueue(async () => {
      this.#drainQueued = false;
      await this.#drain();
    });
  }

  async #drain(): Promise<void> {
    // one write to the socket for everything ready, not one per event
    const ready: ServiceEvent[] = [];
    for (let next = this.#pending.get(this.#last + 1); next; next = this.#pending.get(this.#last + 1)) {
      this.#pending.delete(next.event_id);
      this.#take(next, ready);
    }
    this.#send(ready);
    // Anything still waiting lies beyond a gap that only the log can fill.
    if (this.#pending.size > 0) await this.#catchUp();
  }

  /** Sends every stored event after the last one sent and below `before`. */
  async #catchUp(before = Number.POSITIVE_INFINITY): Promise<void> {
    for (;;) {
      const page = await this.#opts.log.page(this.#target.stream, this.#last, PAGE);
      const ready: ServiceEvent[] = [];
      for (const event of page) {
        if (this.#closed || event.event_id >= before) break;
        this.#take(event, ready);
      }
      this.#send(ready);
      if (this.#closed || page.length < PAGE || page[page.length - 1]!.event_id >= before) break;
    }
    for (const id of this.#pending.keys()) if (id <= this.#last) this.#pending.delete(id);
  }

  /** Takes the next event in order: counted as sent, added to `ready` (the frames to write), its end signal noted. */
  #take(event: ServiceEvent, ready: ServiceEvent[]): void {
    if (event.event_id <= this.#last) return;
    this.#last = event.event_id;
    const signal = this.#endSignal(event);
    if (signal !== null) this.#terminalSeen = signal;
    // A stored stream.end is only ever sent as the final event of a connection (see #finish).
    if (event.type !== 'stream.end') ready.push(event);
    if (signal) this.#checkSoon();
  }

  #send(ready: ServiceEvent[]): void {
    if (ready.length > 0) this.#write(this.#opts.hub.frames.batch(ready));
  }

  /** true: the event says the work ended; false: it runs again; null: neither. */
  #endSignal(event: ServiceEvent): boolean | null {
    if (event.type === 'stream.end') return true;
    if (this.#target.kind === 'job' && event.type === 'job.status_changed') {
      return (ENDED_STATUSES.job as readonly unknown[]).includes(event.data.status);
    }
    if (this.#target.kind === 'run' && event.type === 'run.finished') return true;
    if (this.#target.kind === 'run' && event.type === 'run.started') return false;
    return null;
  }

  #checkSoon(): void {
    this.#enqueue(() => this.#checkEnd('event'));
  }

  async #checkEnd(reason: 'open' | 'event' | 'tick'): Promise<void> {
    const status = await this.#target.readStatus();
    const ended = status === null || (ENDED_STATUSES[this.#target.kind] as readonly string[]).includes(status);
    if (ended && (reason === 'open' || status === null || this.#terminalSeen || this.#endedAtLastTick)) {
      return this.#finish(status ?? 'deleted');
    }
    if (reason === 'tick') this.#endedAtLastTick = ended;
    // The terminal event came before the document changed: look again shortly, backing off to the heartbeat.
    if (!ended && this.#terminalSeen && reason !== 'tick' && !this.#recheck) {
      this.#recheck = setTimeout(() => {
        this.#recheck = undefined;
        this.#checkSoon();
      }, this.#recheckMs);
      this.#recheckMs = Math.min(this.#recheckMs * 2, this.#opts.heartbeatMs);
    }
  }

  async #finish(status: string): Promise<void> {
    await this.#catchUp();
    const end = await this.#opts.log.end({
      stream: this.#target.stream,
      project_id: this.#target.projectId,
      status,
      kind: this.#target.kind,
    });
    // Events stored between our catch-up and the end event still go out before it.
    await this.#catchUp(end.event_id);
    if (this.#closed) return;
    this.#write(this.#opts.hub.frames.of(end));
    this.#res.end();
    this.#close();
  }

  /**
   * Ends the connection because the credential it was opened with stopped being valid
   * (docs/events.md): a final `event: unauthenticated` frame whose data is
   * `{"status":401,"detail":...}`, then close. It has no `id:`, so a client's Last-Event-ID
   * stays on the last real event; a reconnect with the same credential answers 401.
   */
  revoke(detail: string): void {
    if (this.#closed) return;
    this.#write(`event: unauthenticated\ndata: ${JSON.stringify({ status: 401, detail })}\n\n`);
    if (this.#closed) return;
    this.#res.end();
    this.#close();
  }

  /** Whether the connection has ended. */
  get closed(): boolean {
    return this.#closed;
  }

  #tick(): void {
    if (this.#closed) return;
    this.#write(': heartbeat\n\n');
    this.#enqueue(async () => {
      await this.#catchUp();
      await this.#checkEnd('tick');
    });
  }

  #write(chunk: string | Buffer): void {
    if (this.#closed) return;
    this.#res.write(chunk);
    if (this.#res.writableLength > MAX_BUFFERED_BYTES) {
      this.#logger.warn(
        { buffered: this.#res.writableLength },
        'event stream client too slow; closing it so it resumes from its last event',
      );
      this.#res.destroy();
      this.#close();
    }
  }

  #enqueue(task: () => Promise<void>): void {
    this.#chain = this.#chain
      .then(() => (this.#closed ? undefined : task()))
      .catch((err: unknown) => {
        // The client reconnects with Last-Event-ID and resumes; nothing is lost by closing.
        this.#logger.warn({ err }, 'event stream failed; closing it');
        this.#res.end();
        this.#close();
      });
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    clearTimeout(this.#recheck);
    this.#pending.clear();
    this.#leave?.();
  }
}
