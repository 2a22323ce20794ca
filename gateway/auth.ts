import type { Request } from 'express';
import { hashKeyText, hashesEqual, keyPrefix } from '../core/index.js';
import { Collections } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import { nowIso } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import type { Principal, Scope } from '../core/index.js';

import { SESSION_COOKIE, type SessionResolver } from '../accounts/index.js';

interface KeyRecord extends Doc {
  _id: string;
  project_id: string;
  organization_id: string;
  hash: string;
  scopes: Scope[];
  created_by: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** How often a key's `last_used_at` is written at most; the listing needs minutes, not requests. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Turns a request's credentials into a principal. API keys are checked against the store
 * on every request, so a revoked key is refused at once by every gateway.
 */
export class Authenticator {
  readonly #store: DocumentStore;
  readonly #lastUsedWritten = new Map<string, number>();
  #sessions: SessionResolver | null = null;

  constructor(store: DocumentStore) {
    this.#store = store;
  }

  useSessions(resolver: SessionResolver): void {
    this.#sessions = resolver;
  }

  /**
   * The principal of the request; null when it carries no credentials at all. A credential
   * that is present but invalid, unknown or revoked answers 401.
   */
  async authenticate(req: Request): Promise<Principal | null> {
    const header = req.headers.authorization;
    if (header !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!m) throw new ServiceError('unauthenticated', 'the Authorization header must be "Bearer <API key>"');
      return this.#fromKey(m[1]!);
    }
    const token = readCookie(req, SESSION_COOKIE);
    if (token && this.#sessions) {
      const p = await this.#sessions(token, req);
      if (!p) throw new ServiceError('unauthenticated', 'the console session has ended; sign in again');
      return p;
    }
    return null;
  }

  async #fromKey(text: string): Promise<Principal> {
    const prefix = keyPrefix(text);
    if (!prefix) throw new ServiceError('unauthenticated', 'invalid API key');
    const key = await this.#store.findOne<KeyRecord>(Collections.apiKeys, { prefix });
    if (!key || !hashesEqual(key.hash, hashKeyText(text))) throw new ServiceError('unauthenticated', 'invalid API key');
    if (key.revoked_at) throw new ServiceError('unauthenticated', 'this API key was revoked');
    this.#touch(key._id);
    return {
      projectId: key.project_id,
      organizationId: key.organization_id,
      keyId: key._id,
      userId: key.created_by?.startsWith('usr_') ? key.created_by : null,
      sessionId: null,
      scopes: key.scopes,
      isOperator: false,
    };
  }

  #touch(keyId: string): void {
    const now = Date.now();
    if (now - (this.#lastUsedWritten.get(keyId) ?? 0) < LAST_USED_RESOLUTION_MS) return;
    this.#lastUsedWritten.set(keyId, now);
    // Not awaited: recording use must not slow or fail the request.
    this.#store
      .update(Collections.apiKeys, keyId, { last_used_at: nowIso() })
      .catch(() => this.#lastUsedWritten.delete(keyId));
  }
}

/** One cookie's value from the Cookie header. */
export function readCookie(req: Request, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}
