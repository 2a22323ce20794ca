import { Collections, mergeHandlerTables } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import type { HandlerTable } from '../core/index.js';
import type { BillingDeps } from '../billing/index.js';
import { cliLoginHandlers, ensureCliLoginIndexes } from './cli-logins.js';
import { credentialHandlers, ensureCredentialIndexes } from './credentials.js';
import { idpHandlers } from './idp.js';
import { idpRequestHandlers } from './idp-request.js';
import { ensureInvitationIndexes, membershipHandlers } from './memberships.js';
import { ensureMemberIndexes, memberHandlers } from './members.js';
import { onboardingHandlers } from './onboarding.js';
import { operatorAdminHandlers } from './operator-admin.js';
import { ensurePasswordLinkIndexes, passwordLinkHandlers } from './password-links.js';
import { ensureSessionIndexes, sessionHandlers } from './sessions.js';
import { signupLoginHandlers } from './signup-login.js';

export { hashPassword } from './passwords.js';
export { resolveModelApiKey } from './credentials.js';
export { identityFrom, identityRecordsOf, type IdentityRecords } from './identity.js';
export { SESSION_COOKIE } from './sessions.js';
export { IDP_REQUEST_COOKIE, IDP_REQUEST_FIELD, clearedIdpRequestCookie } from './idp-request.js';
export { sessionResolver, type SessionResolver } from './session-resolver.js';
export { lookUpApiKey, prefixOfKey, readApiKeys, readSessions, recordKeyUse } from './key-resolver.js';
export { createUser, findUserByEmail, normalizeEmail } from './users.js';
export { addOperator, listOperators, removeOperator, type OperatorView } from './operators.js';
export { createPasswordLink } from './password-links.js';
export { MEMBERSHIP_CHANGED_SUBJECT, readMemberships } from './members.js';
export { scopesOfRole } from './session-resolver.js';

/**
 * Accounts: sign-up and sign-in (password and identity provider), console sessions,
 * onboarding, terminal sign-in, credential references and operator administration (which
 * reads the month's use through billing's ports, so the table runs with billing's deps).
 */
export const accountHandlers: HandlerTable<BillingDeps> = mergeHandlerTables<BillingDeps>(
  signupLoginHandlers,
  idpHandlers,
  idpRequestHandlers,
  sessionHandlers,
  onboardingHandlers,
  cliLoginHandlers,
  credentialHandlers,
  operatorAdminHandlers,
  passwordLinkHandlers,
  membershipHandlers,
  memberHandlers,
);

/** Indexes of the account collections; idempotent, run at scheduler start. */
export async function ensureAccountIndexes(store: DocumentStore): Promise<void> {
  await ensureSessionIndexes(store);
  await ensureCliLoginIndexes(store);
  await ensureCredentialIndexes(store);
  await ensurePasswordLinkIndexes(store);
  await ensureInvitationIndexes(store);
  await ensureMemberIndexes(store);
  await store.ensureIndexes(Collections.users, [{ fields: ['idp_subject'] }]);
  await store.ensureIndexes(Collections.credits, [{ fields: ['organization_id', 'month'] }]);
}

export { apiKeyHandlers, createApiKey, ensureApiKeyIndexes } from './api-keys.js';
export {
  billedAccounts,
  createWorkspace,
  ensureWorkspaceIndexes,
  limitsOf,
  loadProject,
  planOf,
} from './workspaces.js';
export type { MembershipDoc, ProjectDoc } from './workspaces.js';
