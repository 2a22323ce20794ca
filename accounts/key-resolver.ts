import { Collections } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import { digestsEqual, keyDigest, keyPrefix } from '../core/index.js';
import { nowIso } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import type { Principal } from '../core/index.js';
import type { ApiKeyDoc } from './api-keys.js';
import type { SessionDoc } from './sessions.js';

/** A key that passed: its principal and the stored hash a later request's text must hash to. */
export interface CheckedKey {
  keyId: string;
  hash: string;
  principal: Principal;
}

/** The text's prefix, or 401 when it cannot be a key at all (no store read). */
export function prefixOfKey(text: string): string {
  const prefix = keyPrefix(text);
  if (!prefix) throw new ServiceError('unauthenticated', 'invalid API key');
  return prefix;
}

/**
 * Looks an API key up by its prefix and checks its text against the stored SHA-256 in
 * constant time: the principal it acts as, or 401 for an unknown, wrong or revoked key.
 * The gateway's authenticator calls it (and keeps what passed for a moment, gateway/auth.ts).
 */
export async function lookUpApiKey(store: DocumentStore, text: string): Promise<CheckedKey> {
  const prefix = prefixOfKey(text);
  const key = await store.findOne<ApiKeyDoc>(Collections.apiKeys, { prefix });
  if (!key || !digestsEqual(Buffer.from(key.hash, 'hex'), keyDigest(text)))
    throw new ServiceError('unauthenticated', 'invalid API key');
  if (key.revoked_at) throw new ServiceError('unauthenticated', 'this API key was revoked');
  return {
    keyId: key._id,
    hash: key.hash,
    principal: {
      projectId: key.project_id,
      organizationId: key.organization_id,
      keyId: key._id,
      userId: key.created_by?.startsWith('usr_') ? key.created_by : null,
      sessionId: null,
      scopes: [...key.scopes],
      isOperator: false,
    },
  };
}

/** Records that a key was used now (`last_used_at` of the listing). */
export async function recordKeyUse(store: DocumentStore, keyId: string): Promise<void> {
  await store.update(Collections.apiKeys, keyId, { last_used_at: nowIso() });
}

/** Ids per store query of `readByIds`. */
const CHUNK = 200;

async function readByIds<T extends Doc>(
  store: DocumentStore,
  collection: string,
  ids: string[],
): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    for (const doc of await store.find<T>(collection, { _id: { $in: chunk } }, { limit: chunk.length }))
      out.set(doc._id, doc);
  }
  return out;
}

/** The stored keys of these ids (a gone key is absent), a few queries for many ids. */
export function readApiKeys(store: DocumentStore, ids: string[]): Promise<Map<string, ApiKeyDoc>> {
  return readByIds<ApiKeyDoc>(store, Collections.apiKeys, ids);
}

/** The stored console sessions of these ids (a gone session is absent). */
export function readSessions(store: DocumentStore, ids: string[]): Promise<Map<string, SessionDoc>> {
  return readByIds<SessionDoc>(store, Collections.sessions, ids);
}
