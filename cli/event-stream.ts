import { createParser } from 'eventsource-parser';
import type { Schema } from '../proto/index.js';
import type { ApiClient } from './api-client.js';
import { ApiError, refusal } from './api-error.js';

/** One event of a job or run stream (spec section 6), as the API sends it. */
export type StreamEvent = Schema<'Event'>;

/** No byte for this long (heartbeats come every 15 s) means the connection is lost. */
const IDLE_MS = 60_000;
/** Failed connections in a row, with no event in between, before giving up. */
const MAX_RECONNECTS = 8;
const MAX_PAUSE_MS = 10_000;

/**
 * Reads the server-sent event stream at `path` after `cursor`, yielding each event up to
 * and including `stream.end`. After a lost connection (an error, an idle minute, or a
 * close before `stream.end`) it connects again with `cursor=<last event_id>`, so nothing is
 * lost or repeated. A refused request (ApiError) ends it at once, and so does the server's
 * final `unauthenticated` frame (the key was revoked or the session ended while the stream
 * was open, docs/events.md): it throws ApiError 401 and never reconnects.
 */
export async function* followStream(
  api: ApiClient,
  path: string,
  cursor = 0,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  let last = cursor;
  let failures = 0;
  let pauseMs = 1000;
  for (;;) {
    if (signal?.aborted) return;
    const abort = new AbortController();
    const onOuterAbort = () => abort.abort();
    signal?.addEventListener('abort', onOuterAbort, { once: true });
    let idle: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => abort.abort(), IDLE_MS);
    };
    let progressed = false;
    let lastError: unknown;
    try {
      const headers = { ...api.headers(), accept: 'text/event-stream' };
      let res: Response;
      try {
        res = await fetch(api.url(path, { cursor: last }), { headers, signal: abort.signal });
      } catch (err) {
        throw Object.assign(new Error(`cannot reach ${api.baseUrl}`), { cause: err, network: true });
      }
      if (res.status >= 400) throw await refusal(res, 'GET', path); // a refusal is not a lost connection
      const queue: Array<StreamEvent | ApiError> = [];
      const parser = createParser({
        onEvent: (m) => {
          if (m.event === 'unauthenticated') {
            const ended = JSON.parse(m.data) as { status?: number; detail?: unknown };
            queue.push(new ApiError(ended.status ?? 401, ended.detail ?? 'the credential ended', 'GET', path));
          } else queue.push(JSON.parse(m.data) as StreamEvent);
        },
        onRetry: (ms) => {
          pauseMs = Math.min(ms, MAX_PAUSE_MS);
        },
      });
      const decoder = new TextDecoder();
      touch();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        touch();
        parser.feed(decoder.decode(chunk, { stream: true }));
        while (queue.length > 0) {
          const event = queue.shift()!;
          if (event instanceof ApiError) throw event; // the credential ended: reconnecting would answer 401
          if (typeof event.event_id === 'number') {
            if (event.event_id <= last && event.type !== 'stream.end') continue; // seen before the reconnect
            last = Math.max(last, event.event_id);
          }
          progressed = true;
          yield event;
          if (event.type === 'stream.end') return;
        }
      }
    } catch (err) {
      if (!(err as { network?: boolean }).network && !(err instanceof TypeError) && !(err instanceof DOMException))
        throw err;
      lastError = err;
    } finally {
      clearTimeout(idle);
      signal?.removeEventListener('abort', onOuterAbort);
      abort.abort();
    }
    if (signal?.aborted) return;
    failures = progressed ? 0 : failures + 1;
    if (failures > MAX_RECONNECTS) {
      throw new Error(`event stream ${path} lost ${failures} times in a row after event ${last}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(pauseMs * Math.max(1, failures), MAX_PAUSE_MS)));
  }
}
