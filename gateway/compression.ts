import compression from 'compression';
import type { RequestHandler } from 'express';

/**
 * The event streams' paths under /v1 (stream_job_events, stream_run_events): never compressed
 * (see compressAnswers), so they skip the compressor's wrapping too, which every one of a stream's writes
 * went through (a fifth of the gateway's work per event in a burst to 100 clients: bench/events).
 */
const EVENT_STREAM = /^\/(jobs|runs)\/[^/]+\/events\/?$/;
/** get_observation's path: it compresses its shared answer itself, once per turn (gateway/shared-answer.ts). */
const OBSERVATION = /^\/episodes\/[^/]+\/observation\/?$/;

/**
 * Compresses the API's answers (brotli at quality 4 or gzip, whichever the client accepts;
 * answers under 1 KB and types that do not compress are sent as they are). A run's
 * episodes are ~1.8 KB of JSON each, so a page of 1,000 goes from ~1.8 MB to a tenth of
 * that. Event streams (text/event-stream) are never compressed: a compressor holds bytes
 * back until its block fills, and an event must reach the client when it is written (their
 * `Cache-Control: no-transform` says so too; the filter does not rely on that header).
 * Request bodies are untouched: their Content-Encoding is express.json's business.
 */
export function compressAnswers(): RequestHandler {
  const compress = compression({
    filter: (req, res) =>
      !/^text\/event-stream/i.test(String(res.getHeader('content-type') ?? '')) && compression.filter(req, res),
  });
  // A client that accepts no encoding gets the answer as it is: the compressor's wrapping of the
  // response (its write, end and header hooks) is skipped, which was a measurable part of a small
  // answer's cost (BENCHMARKS.md, bench/gateway). Vary still says the answer depends on the header.
  // The same for an event stream, which is never compressed, and for an observation, which
  // compresses itself.
  return (req, res, next) => {
    if (req.headers['accept-encoding'] && !EVENT_STREAM.test(req.path) && !OBSERVATION.test(req.path))
      return compress(req, res, next);
    res.vary('Accept-Encoding');
    next();
  };
}
