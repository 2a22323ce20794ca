import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';

/** Answers under this size go as they are (compressAnswers' threshold). */
const THRESHOLD = 1024;

/** An answer's bytes, as JSON text and compressed, each made the first time a client needs it. */
interface Bodies {
  json: Buffer;
  br?: Buffer;
  gzip?: Buffer;
  deflate?: Buffer;
}

const ENCODE: Record<'br' | 'gzip' | 'deflate', (b: Buffer) => Buffer> = {
  // the compressor's settings (brotli at quality 4, gzip and deflate at zlib's default)
  br: (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }),
  gzip: (b) => gzipSync(b),
  deflate: (b) => deflateSync(b),
};

const cache = new WeakMap<object, Bodies>();

/**
 * Sends `value` as JSON like `res.json` behind compressAnswers would (the same encodings,
 * threshold and `Vary`), but turns each object into text and compresses it once however
 * many requests it answers: an external agent's observation is one object per turn,
 * shared by every poll of it (EpisodeActor.observation), and two hundred agents polling
 * every 20 ms paid a JSON text and a compression per poll (bench/actions). `value` must not
 * change once sent. Its route skips the compressor (gateway/compression.ts).
 */
export function sendShared(req: Request, res: Response, value: object, status = 200): void {
  let bodies = cache.get(value);
  if (!bodies) cache.set(value, (bodies = { json: Buffer.from(JSON.stringify(value)) }));
  res.vary('Accept-Encoding');
  let body = bodies.json;
  if (body.length >= THRESHOLD && req.method !== 'HEAD' && req.headers['accept-encoding']) {
    const encoding = req.acceptsEncodings('br', 'gzip', 'deflate', 'identity');
    if (encoding === 'br' || encoding === 'gzip' || encoding === 'deflate') {
      body = bodies[encoding] ??= ENCODE[encoding](bodies.json);
      res.setHeader('content-encoding', encoding);
    }
  }
  res.status(status);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', body.length);
  res.end(req.method === 'HEAD' ? undefined : body);
}
