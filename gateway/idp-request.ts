import type { Request, Response } from 'express';
import { clearedIdpRequestCookie, IDP_REQUEST_COOKIE, IDP_REQUEST_FIELD } from '../accounts/index.js';
import { readCookie } from './auth.js';

/**
 * Hands `auth_idp` (TRANSPORT in gateway/local-operations.ts) the cookie of the
 * identity-provider sign-in this browser started (`POST /v1/auth/idp/start`,
 * accounts/idp-request.ts), so the scheduler can hold the token's nonce against it: the
 * cookie goes with the body as IDP_REQUEST_FIELD (always set, so a value a client slipped
 * in never counts), and whatever the answer, the cookie is cleared with it, so one start
 * signs in at most once. Runs after the JSON body parser.
 */
export function bindIdpRequest(req: Request, res: Response): void {
  const cookie = readCookie(req, IDP_REQUEST_COOKIE);
  if (cookie !== null) res.append('set-cookie', secureOver(req, clearedIdpRequestCookie()));
  const b: unknown = req.body;
  if (b !== null && typeof b === 'object' && !Array.isArray(b))
    res.locals.dispatchBody = { ...(b as Record<string, unknown>), [IDP_REQUEST_FIELD]: cookie ?? '' };
}

/** A cookie set over https (directly or behind a trusted proxy) is marked Secure. */
export function secureOver(req: Request, cookie: string): string {
  return req.secure ? `${cookie}; Secure` : cookie;
}
