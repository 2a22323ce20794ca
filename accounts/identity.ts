import { Collections } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import type { Principal } from '../core/index.js';
import {
  loadProject,
  planOf,
  type MembershipDoc,
  type OrganizationDoc,
  type ProjectDoc,
  type UserDoc,
} from './workspaces.js';

/**
 * The records behind a principal's identity: its project and organization, and for a console
 * user the user and their role in the project. What GET /v1/me reads from the store; the
 * rest of its answer comes from the principal itself (key, scopes, operator).
 */
export interface IdentityRecords {
  readonly project: Pick<ProjectDoc, '_id' | 'name'> | null;
  readonly organization: OrganizationDoc | null;
  readonly user: Pick<UserDoc, '_id' | 'email' | 'name'> | null;
  readonly role: MembershipDoc['role'] | null;
}

/** Reads the records of `identityFrom` for a principal's project and user. */
export async function identityRecordsOf(
  store: DocumentStore,
  p: Pick<Principal, 'projectId' | 'userId'>,
): Promise<IdentityRecords> {
  const user = p.userId ? await store.get<UserDoc>(Collections.users, p.userId) : null;
  const named = user ? { _id: user._id, email: user.email, name: user.name } : null;
  if (!p.projectId) return { project: null, organization: null, user: named, role: null };
  const { project, organization } = await loadProject(store, p.projectId);
  const role = user
    ? ((await store.findOne<MembershipDoc>(Collections.memberships, { user_id: user._id, project_id: project._id }))
        ?.role ?? null)
    : null;
  return { project: { _id: project._id, name: project.name }, organization, user: named, role };
}

/**
 * The identity fields of spec section 2 (GET /v1/me) for a principal, from its records. A new
 * object each call: records may be kept and shared by many answers (gateway/identity-cache.ts).
 */
export function identityFrom(p: Principal, r: IdentityRecords): Record<string, unknown> {
  const user = r.user ? { id: r.user._id, email: r.user.email, name: r.user.name } : null;
  if (!r.project || !r.organization) {
    // A console user who signed up and has not made a workspace yet.
    return {
      project_id: null,
      project: null,
      organization: null,
      key_id: null,
      scopes: [],
      plan: null,
      user,
      is_admin: false,
      is_operator: p.isOperator,
      needs_onboarding: true,
    };
  }
  return {
    project_id: r.project._id,
    project: r.project.name,
    organization: r.organization.name,
    organization_id: r.organization._id,
    key_id: p.keyId,
    scopes: [...p.scopes],
    plan: planOf(r.organization),
    user: user ? { ...user, role: r.role } : null,
    is_admin: p.scopes.includes('admin'),
    is_operator: p.isOperator,
    needs_onboarding: false,
  };
}
