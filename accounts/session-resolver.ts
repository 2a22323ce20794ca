import { Collections } from '../core/index.js';
import type { Config } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import type { Principal, Scope } from '../core/index.js';
import type { Request } from 'express';
import { isOperatorUser } from './operators.js';
import { hashSessionToken, type SessionDoc } from './sessions.js';
import type { AccountUserDoc } from './users.js';
import type { MembershipDoc } from './workspaces.js';

/** Resolves a console session cookie to a principal; null when unknown. */
export type SessionResolver = (sessionToken: string, req: Request) => Promise<Principal | null>;

/** Session tokens are 256 random bits in base62; anything else cannot be one and costs no look-up. */
const TOKEN_PATTERN = /^[0-9A-Za-z]{43,64}$/;

/**
 * What a console user may do in a workspace, by role: owners and admins have full access
 * (`admin`), members "Build and evaluate" (`write` with `evaluator`).
 */
export function scopesOfRole(role: MembershipDoc['role']): Scope[] {
  return role === 'member' ? ['write', 'evaluator'] : ['admin'];
}

/**
 * Resolves the console session cookie against the store on every request, like API keys,
 * so signing out, expiry and a changed role take effect at once on every gateway. The
 * principal acts in the session's workspace; when the user lost that membership it falls
 * back to their oldest one. Without any workspace the principal has no project, and the
 * access rules then let it reach only `any` operations (onboarding, /v1/me); `read` is
 * the scope that lets it through those. Operators are the users named with `crucible admin
 * operators add`, or linked to an identity-provider subject in SERVICE_OPERATOR_SUBJECTS
 * (accounts/operators.ts); never an e-mail address alone. Returns null for an unknown, expired or revoked session (401).
 */
export function sessionResolver(store: DocumentStore, config: Config): SessionResolver {
  const subjects = new Set(config.operatorSubjects);
  return async (token) => {
    if (!TOKEN_PATTERN.test(token)) return null;
    const session = await store.findOne<SessionDoc>(Collections.sessions, {
      token_hash: hashSessionToken(token),
    });
    if (!session || session.revoked_at || Date.parse(session.expires_at) <= Date.now()) return null;
    const user = await store.get<AccountUserDoc>(Collections.users, session.user_id);
    if (!user) return null;
    let membership = session.project_id
      ? await store.findOne<MembershipDoc>(Collections.memberships, {
          user_id: user._id,
          project_id: session.project_id,
        })
      : null;
    if (!membership && session.project_id) {
      [membership = null] = await store.find<MembershipDoc>(
        Collections.memberships,
        { user_id: user._id },
        { sort: { field: 'created_at', direction: 'asc' }, limit: 1 },
      );
    }
    const principal: Principal = {
      projectId: membership?.project_id ?? '',
      organizationId: membership?.organization_id ?? '',
      keyId: null,
      userId: user._id,
      sessionId: session._id,
      scopes: membership ? scopesOfRole(membership.role) : ['read'],
      isOperator: isOperatorUser(user, subjects),
    };
    return principal;
  };
}
