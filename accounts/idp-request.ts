import { createHash, timingSafeEqual } from 'node:crypto';
import { randomToken, ServiceError } from '../core/index.js';
import type { Config, HandlerTable, LeaseStore } from '../core/index.js';

/**
 * The cookie of an identity-provider sign-in started from this browser. It holds the
 * start time and a 256-bit random secret; the `nonce` and `state` sent to the provider
 * are SHA-256 digests of it, so the server keeps nothing, a page's script never sees the
 * secret (HttpOnly), and nobody can make a token's nonce match a cookie they did not set.
 */
export const IDP_REQUEST_COOKIE = 'crucible_idp';

/** A started sign-in is finished within 15 minutes or not at all (the console's own limit). */
export const IDP_REQUEST_TTL_MS = 15 * 60_000;

/**
 * The body field under which the gateway hands the cookie to `auth_idp` (gateway/idp-request.ts).
 * A client cannot send it: the request schema allows no other field, and the gateway overwrites it.
 */
export const IDP_REQUEST_FIELD = 'idp_request_cookie';

/** Only the two identity-provider operations see the cookie. */
const COOKIE_PATH = '/v1/auth/idp';

/**
 * The Set-Cookie value of a started sign-in: HttpOnly, SameSite=Lax (the console posts the
 * token from its own page), 15 minutes. The gateway adds `Secure` over https.
 */
export function idpRequestCookie(value: string): string {
  return `${IDP_REQUEST_COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${IDP_REQUEST_TTL_MS / 1000}; HttpOnly; SameSite=Lax`;
}

/** The Set-Cookie value that makes the browser drop a started sign-in. */
export function clearedIdpRequestCookie(): string {
  return `${IDP_REQUEST_COOKIE}=; Path=${COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax`;
}

const digest = (purpose: 'nonce' | 'state', cookie: string) =>
  createHash('sha256').update(`crucible-idp-${purpose}:${cookie}`).digest('base64url');

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * 404 on a server without identity-provider sign-in (no SERVICE_IDP_CLIENT_ID): the sign-in
 * is not there to use, which no credential would change (403 would say one could).
 */
export function requireIdpSignIn(config: Config): void {
  if (!config.idpClientId) {
    throw new ServiceError(
      'not_found',
      'identity-provider sign-in is not enabled on this server (SERVICE_IDP_CLIENT_ID is empty)',
    );
  }
}

const refused = (why: string) => new ServiceError('unauthenticated', `the ID token is refused: ${why}`);

/** The `nonce` and `state` of a started sign-in, from its cookie. */
export function idpRequestValues(cookie: string): { nonce: string; state: string } {
  return { nonce: digest('nonce', cookie), state: digest('state', cookie) };
}

/**
 * The nonce an ID token must carry to sign in this browser, from the cookie of the sign-in
 * it started. Refuses (401) without such a cookie, with one older than 15 minutes, or when
 * the caller sends a `state` that is not the sign-in's (the console sends the one the
 * provider answered with).
 */
export function expectedIdpNonce(cookie: string | null, state: string | undefined, now = Date.now()): string {
  const started = cookie ? Number(cookie.split('.')[0]) : NaN;
  if (!cookie || !Number.isFinite(started) || now - started > IDP_REQUEST_TTL_MS || started > now + 60_000) {
    throw refused(
      'no identity-provider sign-in was started from this browser in the last 15 minutes ' +
        '(start one with POST /v1/auth/idp/start and ask the provider for a token with its nonce)',
    );
  }
  const expected = idpRequestValues(cookie);
  if (state !== undefined && !same(state, expected.state)) {
    throw refused('the "state" sent is not the one of the sign-in started from this browser; nothing was signed in');
  }
  return expected.nonce;
}

/**
 * Refuses (401) a token whose `nonce` claim is not the one of the sign-in this browser
 * started: a token issued for another sign-in (another browser's, another site's, one
 * copied from elsewhere) does not sign anybody in here.
 */
export function checkIdpNonce(claim: string | null, expected: string): void {
  if (claim === null || !same(claim, expected)) {
    throw refused(
      'its "nonce" claim does not match the sign-in started from this browser (it was issued for another sign-in); ' +
        'nothing was signed in',
    );
  }
}

/**
 * Marks the sign-in whose nonce is `nonce` as used once a token carrying it is verified:
 * the same cookie and token presented again (copied from a proxy log, a shared machine, a
 * browser extension) are refused for as long as the start could otherwise be finished.
 * Kept in the lease store, so every scheduler sees it (Redis when distributed; the embedded
 * server forgets on restart).
 */
export async function useIdpNonce(leases: LeaseStore, nonce: string): Promise<void> {
  if (!(await leases.setIfAbsent(`idp-used:${nonce}`, '1', IDP_REQUEST_TTL_MS + 60_000))) {
    throw refused('this sign-in has already been used to sign in; start a new one (POST /v1/auth/idp/start)');
  }
}

export const idpRequestHandlers: HandlerTable = {
  /**
   * Starts an identity-provider sign-in: sets the HttpOnly cookie and answers the `nonce`
   * and `state` to send to the provider's authorization endpoint (201). A new start
   * replaces the browser's previous one.
   */
  async auth_idp_start(_ctx, { config }) {
    requireIdpSignIn(config);
    const cookie = `${Date.now()}.${randomToken(256)}`;
    return {
      status: 201,
      body: { ...idpRequestValues(cookie), expires_in: IDP_REQUEST_TTL_MS / 1000 },
      headers: { 'set-cookie': idpRequestCookie(cookie) },
    };
  },
};
