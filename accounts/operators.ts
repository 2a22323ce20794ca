import { Collections } from '../core/index.js';
import { nowIso } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import { findUserByEmail, type AccountUserDoc } from './users.js';

/**
 * Operators are named by user id, never by an e-mail address alone: anyone can sign up
 * with any address, and sign-up does not prove that the address is theirs. The server's
 * owner names them with `crucible admin operators add|remove|list` (written here, into the
 * user document as `operator: true`), or by a verified identity-provider subject in
 * SERVICE_OPERATOR_SUBJECTS (`issuer|subject`, see isOperatorUser).
 */
export interface OperatorView {
  id: string;
  email: string;
  name: string;
  /** When `crucible admin operators add` named the user. */
  since: string | null;
}

/** Finds the user an operator command names: a user id (`usr_...`) or an account's e-mail address. */
export async function userByIdOrEmail(store: DocumentStore, who: string): Promise<AccountUserDoc | null> {
  const text = who.trim();
  if (/^usr_[0-9A-Za-z_-]+$/.test(text)) return store.get<AccountUserDoc>(Collections.users, text);
  return findUserByEmail(store, text);
}

const view = (u: AccountUserDoc): OperatorView => ({
  id: u._id,
  email: u.email,
  name: u.name,
  since: u.operator_since ?? null,
});

/** Makes the user an operator; returns null when no such user exists. Idempotent. */
export async function addOperator(store: DocumentStore, who: string): Promise<OperatorView | null> {
  const user = await userByIdOrEmail(store, who);
  if (!user) return null;
  if (user.operator === true) return view(user);
  const updated = await store.update<AccountUserDoc>(Collections.users, user._id, {
    operator: true,
    operator_since: nowIso(),
  });
  return updated ? view(updated) : null;
}

/** Takes operator power away; returns null when no such user exists. Idempotent. */
export async function removeOperator(store: DocumentStore, who: string): Promise<OperatorView | null> {
  const user = await userByIdOrEmail(store, who);
  if (!user) return null;
  const updated = await store.update<AccountUserDoc>(Collections.users, user._id, {
    operator: false,
    operator_since: null,
  });
  return updated ? view(updated) : null;
}

/** The users named operators in the store, oldest account first. */
export async function listOperators(store: DocumentStore): Promise<OperatorView[]> {
  const users = await store.find<AccountUserDoc>(
    Collections.users,
    { operator: true },
    { sort: { field: 'created_at', direction: 'asc' } },
  );
  return users.map(view);
}

/** `issuer|subject` of a linked identity-provider account, the form SERVICE_OPERATOR_SUBJECTS lists. */
export const subjectKey = (issuer: string, subject: string): string => `${issuer}|${subject}`;

/**
 * Whether a user is an operator: named in the store, or linked to a verified
 * identity-provider account listed in SERVICE_OPERATOR_SUBJECTS. The link is only made by
 * a sign-in with a verified ID token (accounts/idp.ts), so it is proof of that subject.
 */
export function isOperatorUser(
  user: { operator?: boolean; idp_issuer?: string | null; idp_subject?: string | null },
  subjects: ReadonlySet<string>,
): boolean {
  if (user.operator === true) return true;
  return !!user.idp_issuer && !!user.idp_subject && subjects.has(subjectKey(user.idp_issuer, user.idp_subject));
}
