import type { Request } from 'express';
import type { Config } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import { SESSION_COOKIE } from '../accounts/index.js';
import { readCookie } from './auth.js';

/** Methods that change nothing; browsers may send them cross-site freely. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `host[:port]` as the URL standard writes it (default ports dropped), or null. */
function hostOf(origin: string): string | null {
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.host : null;
  } catch {
    return null;
  }
}

/** The hosts this gateway answers as: the request's own (X-Forwarded-Host behind a trusted proxy) and SERVICE_PUBLIC_URL's. */
function ownHosts(req: Request, config: Config): Set<string> {
  const hosts = new Set<string>();
  const own = req.host ? hostOf(`${req.protocol}://${req.host}`) : null;
  if (own) hosts.add(own);
  const pub = config.publicUrl ? hostOf(config.publicUrl) : null;
  if (pub) hosts.add(pub);
  return hosts;
}

/**
 * Refuses cross-site writes made with the console's cookie (403). A write (any method but
 * GET, HEAD, OPTIONS) that would be authenticated by the session cookie, or that signs in
 * or out, must come from a page of this service: its `Origin` header (or, from browsers
 * that send none, the origin of its `Referer`) must name this gateway's host. Browsers
 * set `Origin` on every such request and a page cannot forge it. Requests with an
 * `Authorization` header are exempt: a browser never adds one on its own, so a key cannot
 * be ridden by another site. Complements SameSite=Lax on the cookie. `setsCookies`: the
 * operation sets or clears the console's cookies (TRANSPORT in gateway/local-operations.ts), so
 * it gets the check even without a cookie: another site cannot sign a visitor in to an
 * account of its choosing (login cross-site request forgery) or sign them out.
 */
export function refuseCrossSite(req: Request, setsCookies: boolean, config: Config): void {
  if (SAFE_METHODS.has(req.method)) return;
  if (req.headers.authorization !== undefined) return;
  if (!setsCookies && readCookie(req, SESSION_COOKIE) === null) return;
  refuseForeignOrigin(req, config);
}

/**
 * The Origin check of refuseCrossSite on its own, for pages outside /v1 that take a form
 * post (the local payment provider's checkout): 403 unless the request's `Origin` (or
 * `Referer`) names this gateway.
 */
export function refuseForeignOrigin(req: Request, config: Config): void {
  const origin = req.get('origin') ?? req.get('referer');
  if (!origin) {
    throw new ServiceError(
      'forbidden',
      'a console request that changes something must carry an Origin header naming this server',
    );
  }
  const host = hostOf(origin);
  if (!host || !ownHosts(req, config).has(host)) {
    throw new ServiceError('forbidden', `cross-site request refused: Origin ${origin} is not this server`);
  }
}
