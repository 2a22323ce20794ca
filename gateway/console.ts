import type { Request, RequestHandler, Response } from 'express';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Where `npm run build` puts the console (console/vite.config.ts): dist/console, beside the
 * compiled gateway (dist/gateway) or under dist/ when the gateway runs from source (tsx).
 */
export const CONSOLE_DIR =
  path.basename(path.dirname(here)) === 'dist'
    ? path.join(here, '..', 'console')
    : path.join(here, '..', 'dist', 'console');

/**
 * Paths the console never answers: the API, its docs, downloads, the local payment pages, and the
 * operator endpoints (served on OPS_PORT; on the API port /metrics and /readyz answer 404, never index.html).
 */
const NOT_CONSOLE = /^\/(v1|api|downloads)(\/|$)|^\/openapi\.json$|^\/billing\/local-|^\/(metrics|readyz|healthz)\/?$/;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** Pages may load and call only this origin: the console asks no other host for anything. */
const CSP =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'";

interface Prepared {
  type: string;
  raw: Buffer;
  br: Buffer | null;
  gz: Buffer | null;
}

/**
 * The web console: the files of dist/console, compressed once (brotli or gzip, whichever the
 * browser accepts) and kept in memory. Hashed files under /assets are cached for a year; the
 * page itself is revalidated on every load, so a new build shows at once. Any other GET that
 * is not the API's answers index.html, so deep links (/runs/<id>) open the right screen. A
 * client that does not ask for HTML at `/` keeps the JSON service description; without a
 * build, `/` says how to make one.
 */
export function consoleHandler(describe: () => unknown, dir = CONSOLE_DIR): RequestHandler {
  const cache = new Map<string, Promise<Prepared>>();

  /** A file read and compressed once (off the event loop's thread), or null when it is not a file. */
  function prepared(file: string): Promise<Prepared> | null {
    let st;
    try {
      st = statSync(file);
    } catch {
      return null;
    }
    if (!st.isFile()) return null;
    const key = `${file}:${st.mtimeMs}`;
    let hit = cache.get(key);
    if (!hit) {
      hit = (async () => {
        const raw = readFileSync(file);
        const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
        const squeezable = /^(text|application\/json|image\/svg)/.test(type) && raw.length > 512;
        return {
          type,
          raw,
          br: squeezable ? await brotli(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }) : null,
          gz: squeezable ? await gz(raw, { level: 9 }) : null,
        };
      })();
      cache.set(key, hit);
      hit.catch(() => cache.delete(key));
    }
    return hit;
  }

  // Compress the build's files now, so the first visitor does not wait for it.
  try {
    for (const name of readdirSync(path.join(dir, 'assets')))
      void prepared(path.join(dir, 'assets', name))?.catch(() => {});
    void prepared(path.join(dir, 'index.html'))?.catch(() => {});
  } catch {
    // not built (yet): `/` says how to build it
  }

  function send(req: Request, res: Response, p: Prepared, cacheControl: string): void {
    const accepts = String(req.headers['accept-encoding'] ?? '');
    let body = p.raw;
    if (p.br && /\bbr\b/.test(accepts)) {
      body = p.br;
      res.setHeader('Content-Encoding', 'br');
    } else if (p.gz && /\bgzip\b/.test(accepts)) {
      body = p.gz;
      res.setHeader('Content-Encoding', 'gzip');
    }
    res.setHeader('Vary', 'Accept-Encoding');
    res.setHeader('Content-Type', p.type);
    res.setHeader('Cache-Control', cacheControl);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('Content-Length', body.length);
    res.status(200).end(req.method === 'HEAD' ? undefined : body);
  }

  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || NOT_CONSOLE.test(req.path)) return next();
    if (req.path === '/' && req.accepts(['html', 'json']) !== 'html') {
      res.json(describe());
      return;
    }
    const index = path.join(dir, 'index.html');
    if (!existsSync(index)) {
      if (req.path !== '/') return next();
      res
        .status(503)
        .type('html')
        .send(
          '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Crucible console not built</title></head>' +
            '<body><h1>The web console is not built</h1><p>Run <code>npm run build</code> (or <code>npm start</code>, ' +
            'which builds first) in the Crucible folder, then reload. The API is at <a href="/v1/health">/v1</a> and its ' +
            'documentation at <a href="/api/docs">/api/docs</a>.</p></body></html>',
        );
      return;
    }
    let rel: string;
    try {
      rel = path.normalize(decodeURIComponent(req.path)).replace(/^(\.\.[/\\])+/, '');
    } catch {
      return next();
    }
    const file = path.join(dir, rel);
    const serve = (p: Promise<Prepared>, cacheControl: string) => p.then((x) => send(req, res, x, cacheControl), next);
    if (file.startsWith(dir + path.sep) && req.path !== '/') {
      const p = prepared(file);
      if (p) return void serve(p, req.path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      // A missing hashed file is a 404, not the page: an old page asking for a replaced chunk must fail visibly.
      if (req.path.startsWith('/assets/')) return next();
    }
    const page = prepared(index);
    if (!page) return next();
    void serve(page, 'no-cache');
  };
}
