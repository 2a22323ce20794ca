import { Collections } from '../core/index.js';
import { ServiceError } from '../core/index.js';
import { newId, nowIso } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import type { MembershipDoc, UserDoc } from './workspaces.js';

/** A user as accounts see it: the workspace fields plus the identity provider link. */
export interface AccountUserDoc extends UserDoc {
  /** Issuer and subject of the identity provider account linked to this user, if any. */
  idp_issuer?: string | null;
  idp_subject?: string | null;
  /** Named an operator with `crucible admin operators add` (accounts/operators.ts). */
  operator?: boolean;
  operator_since?: string | null;
}

/** E-mail addresses are compared without surrounding spaces and case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function findUserByEmail(store: DocumentStore, email: string): Promise<AccountUserDoc | null> {
  return store.findOne<AccountUserDoc>(Collections.users, { email: normalizeEmail(email) });
}

/**
 * Creates a user. The unique index on `email` makes a second account with the same
 * address fail with 409, even when two sign-ups race.
 */
export async function createUser(
  store: DocumentStore,
  input: { email: string; name: string; passwordHash: string | null; idp?: { issuer: string; subject: string } },
): Promise<AccountUserDoc> {
  try {
    return await store.insert<AccountUserDoc>(Collections.users, {
      _id: newId('usr'),
      email: normalizeEmail(input.email),
      name: input.name,
      password_hash: input.passwordHash,
      idp_issuer: input.idp?.issuer ?? null,
      idp_subject: input.idp?.subject ?? null,
      created_at: nowIso(),
    });
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'conflict') {
      throw new ServiceError('conflict', 'an account with this e-mail address already exists; sign in instead');
    }
    throw err;
  }
}

/**
 * The workspace a new console session opens in: the user's oldest membership, or null
 * when the user has none yet (the session then needs onboarding).
 */
export async function defaultMembership(store: DocumentStore, userId: string): Promise<MembershipDoc | null> {
  const [first] = await store.find<MembershipDoc>(
    Collections.memberships,
    { user_id: userId },
    { sort: { field: 'created_at', direction: 'asc' }, limit: 1 },
  );
  return first ?? null;
}

/** The public view of a user in answers: never the password hash. */
export function userView(user: UserDoc): { id: string; email: string; name: string } {
  return { id: user._id, email: user.email, name: user.name };
}
