import { Collections } from '../core/index.js';
import { ServiceError, notFound } from '../core/index.js';
import { newId, nowIso } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import { DEFAULT_PLAN, type BilledAccounts, type BilledOrganization } from '../billing/index.js';

export interface OrganizationDoc extends BilledOrganization {
  owner_user_id: string | null;
  created_at: string;
}

export interface ProjectDoc extends Doc {
  organization_id: string;
  name: string;
  created_at: string;
}

export interface UserDoc extends Doc {
  email: string;
  name: string;
  password_hash: string | null;
  created_at: string;
}

/** A user's place in an organization: `owner`, `admin` or `member`. */
export interface MembershipDoc extends Doc {
  user_id: string;
  organization_id: string;
  project_id: string;
  role: 'owner' | 'admin' | 'member';
  created_at: string;
}

export async function ensureWorkspaceIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.users, [{ fields: ['email'], unique: true }]);
  await store.ensureIndexes(Collections.projects, [{ fields: ['organization_id', 'name'], unique: true }]);
  await store.ensureIndexes(Collections.memberships, [
    { fields: ['user_id', 'project_id'], unique: true },
    { fields: ['organization_id'] },
  ]);
}

export interface NewWorkspace {
  organization: string;
  project?: string;
  /** The owner; created when no user has this e-mail yet. */
  owner?: { email: string; name?: string; userId?: string };
}

/** Creates an organization (on the default plan) with one project and, optionally, its owner. */
export async function createWorkspace(
  store: DocumentStore,
  input: NewWorkspace,
): Promise<{ organization: OrganizationDoc; project: ProjectDoc; user: UserDoc | null }> {
  const now = nowIso();
  let user: UserDoc | null = null;
  if (input.owner) {
    const email = input.owner.email.trim().toLowerCase();
    user = input.owner.userId
      ? await store.get<UserDoc>(Collections.users, input.owner.userId)
      : await store.findOne<UserDoc>(Collections.users, { email });
    if (!user) {
      user = await store.insert<UserDoc>(Collections.users, {
        _id: newId('usr'),
        email,
        name: input.owner.name ?? email,
        password_hash: null,
        created_at: now,
      });
    }
  }
  const organization = await store.insert<OrganizationDoc>(Collections.organizations, {
    _id: newId('org'),
    name: input.organization,
    plan: DEFAULT_PLAN,
    plan_override: null,
    limits_override: null,
    owner_user_id: user?._id ?? null,
    created_at: now,
  });
  const project = await store.insert<ProjectDoc>(Collections.projects, {
    _id: newId('prj'),
    organization_id: organization._id,
    name: input.project ?? 'default',
    created_at: now,
  });
  if (user) {
    await store.insert<MembershipDoc>(Collections.memberships, {
      _id: newId('mem'),
      user_id: user._id,
      organization_id: organization._id,
      project_id: project._id,
      role: 'owner',
      created_at: now,
    });
  }
  return { organization, project, user };
}

export async function loadProject(
  store: DocumentStore,
  projectId: string,
): Promise<{ project: ProjectDoc; organization: OrganizationDoc }> {
  const project = await store.get<ProjectDoc>(Collections.projects, projectId);
  if (!project) throw notFound('project');
  const organization = await store.get<OrganizationDoc>(Collections.organizations, project.organization_id);
  if (!organization) throw new ServiceError('internal', `project ${projectId} has no organization`);
  return { project, organization };
}

/**
 * Billing's port onto the organizations and projects (billing/organizations.ts), answered
 * over accounts' own records: billing sits below accounts and cannot import them.
 */
export function billedAccounts(store: DocumentStore): BilledAccounts {
  return {
    organization: (id) => store.get<OrganizationDoc>(Collections.organizations, id),
    organizationOfProject: async (projectId) => (await loadProject(store, projectId)).organization,
    projectIds: async (organizationId) =>
      (await store.find<ProjectDoc>(Collections.projects, { organization_id: organizationId })).map((p) => p._id),
    setPlan: async (organizationId, plan) => {
      await store.update<OrganizationDoc>(Collections.organizations, organizationId, { plan });
    },
  };
}

export { limitsOf, planOf } from '../billing/index.js';
