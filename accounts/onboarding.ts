import { Collections } from '../core/index.js';
import { ServiceError, invalid } from '../core/index.js';
import { created, type HandlerTable } from '../core/index.js';
import { body, requirePrincipal } from '../core/index.js';
import { createWorkspace, planOf } from './workspaces.js';
import { userView, type AccountUserDoc } from './users.js';

/** How long one account's onboarding may hold its lock; creating a workspace takes milliseconds. */
const ONBOARDING_LOCK_MS = 30_000;

export const onboardingHandlers: HandlerTable = {
  /**
   * Creates the workspace of a new account: a new organization (on the default plan) with
   * one project, the user as its owner, and moves the console session into it, so the
   * next request already acts there with owner rights. Only for a console session that has
   * no workspace yet: a key, or a session that already has one, answers 409. A lock per
   * account (LeaseStore) keeps two concurrent calls from creating two organizations.
   */
  async onboarding_workspace(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    if (p.projectId || !p.userId || !p.sessionId) {
      throw new ServiceError('conflict', 'onboarding is done: this sign-in already has a workspace');
    }
    const user = await adapters.store.get<AccountUserDoc>(Collections.users, p.userId);
    if (!user) throw new ServiceError('unauthenticated', 'the account of this session no longer exists; sign in again');
    const lock = `onboarding:${user._id}`;
    if (!(await adapters.leases.acquire(lock, p.sessionId, ONBOARDING_LOCK_MS))) {
      throw new ServiceError('conflict', 'a workspace is being created for this account right now');
    }
    try {
      if ((await adapters.store.count(Collections.memberships, { user_id: user._id })) > 0) {
        throw new ServiceError(
          'conflict',
          'onboarding is done: this account already belongs to a workspace; sign in again to use it',
        );
      }
      const b = body<{ organization: string; project?: string }>(ctx);
      const organization = b.organization.trim();
      const project = (b.project ?? 'default').trim();
      if (!organization) throw invalid('organization', 'must not be blank');
      if (!project) throw invalid('project', 'must not be blank');
      const ws = await createWorkspace(adapters.store, {
        organization,
        project,
        owner: { email: user.email, userId: user._id },
      });
      await adapters.store.update(Collections.sessions, p.sessionId, { project_id: ws.project._id });
      return created({
        organization_id: ws.organization._id,
        organization: ws.organization.name,
        project_id: ws.project._id,
        project: ws.project.name,
        plan: planOf(ws.organization),
        role: 'owner',
        user: userView(user),
        needs_onboarding: false,
      });
    } finally {
      await adapters.leases.release(lock, p.sessionId);
    }
  },
};
