import { createHash } from 'node:crypto';
import { Collections } from '../core/index.js';
import { newId, nowIso, randomToken } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import { ok, type HandlerTable, type Reply } from '../core/index.js';

/** The console's session cookie; the gateway reads it, the sign-in operations set it. */
export const SESSION_COOKIE = 'crucible_session';

/** A console session lasts 12 hours (spec section 8), then the user signs in again. */
export const SESSION_TTL_MS = 12 * 3600_000;

/**
 * A console session, stored server-side. The browser holds a 256-bit random token; only
 * its SHA-256 is stored, so a copy of the store cannot be replayed as a cookie. Signing
 * out sets `revoked_at`; the gateway reads the session on every request, so a revoked or
 * expired session is refused at once by every gateway.
 */
export interface SessionDoc extends Doc {
  token_hash: string;
  user_id: string;
  /** The workspace the session acts in; null until onboarding creates one. */
  project_id: string | null;
  method: 'password' | 'idp';
  client_address: string;
  user_agent: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export async function ensureSessionIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.sessions, [{ fields: ['token_hash'], unique: true }, { fields: ['user_id'] }]);
}

/** SHA-256 (hex) of a session token: the form in which tokens are stored and looked up. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The Set-Cookie value of a session: HttpOnly (no script reads it), SameSite=Lax (not sent
 * on cross-site subrequests and form posts), whole site, 12 hours. The gateway adds
 * `Secure` when the request arrived over https (directly or behind a trusted proxy).
 */
export function sessionCookie(token: string): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${SESSION_TTL_MS / 1000}; HttpOnly; SameSite=Lax`;
}

/** The Set-Cookie value that makes the browser drop the session cookie. */
export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`;
}

/**
 * Opens a session for a user and returns the reply that hands its cookie to the browser.
 * Expired sessions of the same user are purged on the way, so the collection does not grow
 * without bound.
 */
export async function startSession(
  store: DocumentStore,
  input: {
    userId: string;
    projectId: string | null;
    method: SessionDoc['method'];
    clientAddress: string;
    userAgent: string;
  },
  reply: { status: number; body: Record<string, unknown> },
): Promise<Reply> {
  const token = randomToken(256);
  const now = Date.now();
  await store.deleteMany(Collections.sessions, {
    user_id: input.userId,
    expires_at: { $lt: new Date(now).toISOString() },
  });
  const session = await store.insert<SessionDoc>(Collections.sessions, {
    _id: newId('ses'),
    token_hash: hashSessionToken(token),
    user_id: input.userId,
    project_id: input.projectId,
    method: input.method,
    client_address: input.clientAddress,
    user_agent: input.userAgent.slice(0, 500),
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + SESSION_TTL_MS).toISOString(),
    revoked_at: null,
  });
  return {
    status: reply.status,
    body: { ...reply.body, session: { id: session._id, expires_at: session.expires_at } },
    headers: { 'set-cookie': sessionCookie(token) },
  };
}

export const sessionHandlers: HandlerTable = {
  /**
   * Signs the browser out: the session is revoked in the store (refused from now on, on
   * every gateway) and the cookie cleared. Without a live session it still clears the
   * cookie and answers 200, so signing out is always safe to repeat.
   */
  async delete_session(ctx, { adapters }) {
    const sessionId = ctx.principal?.sessionId ?? null;
    let revoked = false;
    if (sessionId) {
      revoked =
        (await adapters.store.update(
          Collections.sessions,
          sessionId,
          { revoked_at: nowIso() },
          { revoked_at: null },
        )) !== null;
    }
    return { ...ok({ signed_out: true, session_revoked: revoked }), headers: { 'set-cookie': clearedSessionCookie() } };
  },
};
