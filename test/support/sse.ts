import { performance } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import type { ServiceEvent } from '../../core/event-log.js';

/** One event of a stream, as a client received it. */
export interface SseItem {
  /** The SSE `id:` field. */
  id: string | undefined;
  /** The SSE `event:` field: undefined for an event of the stream, `unauthenticated` for the final frame of an ended credential. */
  name?: string;
  /** The JSON object of the `data:` line. */
  event: ServiceEvent;
  /** performance.now() when it was parsed (for latency measurements). */
  at: number;
}

/** An open server-sent event connection: iterate it, or `next()` one event at a time. */
export interface SseConnection extends AsyncIterable<SseItem> {
  status: number;
  headers: Headers;
  /** The JSON body when the answer was not 200. */
  error: unknown;
  /** Every comment line received (heartbeats), in order. */
  comments: string[];
  /** Resolves when `n` comments have arrived. */
  commentCount(n: number): Promise<void>;
  /** The next event, or null once the stream has closed. */
  next(): Promise<SseItem | null>;
  /** Events until (and including) `stream.end`, or until `n` more events when `n` is given. */
  collect(n?: number): Promise<SseItem[]>;
  close(): void;
}

/**
 * Opens `url` as a server-sent event stream with `Authorization: Bearer <key>` (none when
 * `key` is empty; `options.headers` adds others, e.g. a session cookie), resuming
 * after `cursor` (query) and/or `lastEventId` (the `Last-Event-ID` header). Parsing is
 * done by eventsource-parser over the real HTTP body, so tests see exactly what a client
 * sees. Resolves once the answer's headers arrived.
 */
export async function connect(
  url: string,
  key: string,
  options: { cursor?: number; lastEventId?: number | string; headers?: Record<string, string> } = {},
): Promise<SseConnection> {
  const target = new URL(url);
  if (options.cursor !== undefined) target.searchParams.set('cursor', String(options.cursor));
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (key) headers.authorization = `Bearer ${key}`;
  if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
  const abort = new AbortController();
  const res = await fetch(target, { headers, signal: abort.signal });

  const items: SseItem[] = [];
  const comments: string[] = [];
  let done = false;
  let waiters: Array<() => void> = [];
  const notify = () => {
    const woken = waiters;
    waiters = [];
    for (const w of woken) w();
  };
  const waitForChange = () => new Promise<void>((resolve) => waiters.push(resolve));

  let error: unknown = null;
  if (res.status !== 200) {
    error = await res.json().catch(() => null);
    done = true;
  } else {
    const parser = createParser({
      onEvent: (m) => {
        items.push({ id: m.id, name: m.event, event: JSON.parse(m.data) as ServiceEvent, at: performance.now() });
        notify();
      },
      onComment: (c) => {
        comments.push(c.trim());
        notify();
      },
    });
    void (async () => {
      try {
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
          parser.feed(decoder.decode(chunk, { stream: true }));
      } catch {
        // aborted by close(), or the server went away: the stream is over either way
      } finally {
        done = true;
        notify();
      }
    })();
  }

  let read = 0;
  const next = async (): Promise<SseItem | null> => {
    while (read >= items.length && !done) await waitForChange();
    return read < items.length ? items[read++]! : null;
  };

  return {
    status: res.status,
    headers: res.headers,
    error,
    comments,
    async commentCount(n) {
      while (comments.length < n && !done) await waitForChange();
    },
    next,
    async collect(n) {
      const out: SseItem[] = [];
      while (n === undefined || out.length < n) {
        const item = await next();
        if (!item) break;
        out.push(item);
        if (n === undefined && item.event.type === 'stream.end') break;
      }
      return out;
    },
    close() {
      done = true;
      abort.abort();
      notify();
    },
    async *[Symbol.asyncIterator]() {
      for (let item = await next(); item; item = await next()) yield item;
    },
  };
}
