import { Collections } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import type { Principal } from '../core/index.js';
import { loadProject, planOf, type MembershipDoc, type UserDoc } from './workspaces.js';

/**
 * The identity fields of spec section 2 (GET /v1/me) for a principal. The gateway answers
 * /v1/me with this directly (no scheduler handler exists for it): it has just authenticated the caller, and a gRPC hop for a
 * read of three small documents would triple the cost of the most frequent request.
 */
export async function identityOf(store: DocumentStore, p: Principal): Promise<Record<string, unknown>> {
  const user = p.userId ? await store.get<UserDoc>(Collections.users, p.userId) : null;
  if (!p.projectId) {
    // A console user who signed up and has not made a workspace yet.
    return {
      project_id: null,
      project: null,
      organization: null,
      key_id: null,
      scopes: [],
      plan: null,
      user: user ? { id: user._id, email: user.email, name: user.name } : null,
      is_admin: false,
      is_operator: p.isOperator,
      needs_onboarding: true,
    };
  }
  const { project, organization } = await loadProject(store, p.projectId);
  let role: MembershipDoc['role'] | null = null;
  if (user) {
    role =
      (await store.findOne<MembershipDoc>(Collections.memberships, { user_id: user._id, project_id: project._id }))
        ?.role ?? null;
  }
  return {
    project_id: project._id,
    project: project.name,
    organization: organization.name,
    organization_id: organization._id,
    key_id: p.keyId,
    scopes: p.scopes,
    plan: planOf(organization),
    user: user ? { id: user._id, email: user.email, name: user.name, role } : null,
    is_admin: p.scopes.includes('admin'),
    is_operator: p.isOperator,
    needs_onboarding: false,
  };
}
