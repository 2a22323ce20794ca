import { C } from '../core/collections.js';
import { ok, type HandlerTable } from './context.js';
import { requirePrincipal } from './principal.js';
import { loadProject, planOf, type MembershipDoc, type UserDoc } from './workspaces.js';
import { clientWheelPath } from './downloads.js';

export const identityHandlers: HandlerTable = {
  async get_me(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const user = p.userId ? await adapters.store.get<UserDoc>(C.users, p.userId) : null;
    if (!p.projectId) {
      // A console user who signed up and has not made a workspace yet.
      return ok({
        project_id: null, project: null, organization: null, key_id: null, scopes: [], plan: null,
        user: user ? { id: user._id, email: user.email, name: user.name } : null,
        is_admin: false, is_operator: p.isOperator, needs_onboarding: true,
      });
    }
    const { project, organization } = await loadProject(adapters.store, p.projectId);
    let role: MembershipDoc['role'] | null = null;
    if (user) {
      role = (await adapters.store.findOne<MembershipDoc>(C.memberships, { user_id: user._id, project_id: project._id }))?.role ?? null;
    }
    return ok({
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
    });
  },

  async get_health(_ctx, { config, workers, adapters }) {
    const probed = await workers.probe();
    const up = probed.filter((w) => w.status === 'up').length;
    return ok({
      status: up > 0 ? 'ok' : 'degraded',
      signup: config.signup,
      idp_client_id: config.idpClientId || null,
      client_wheel: clientWheelPath(),
      version: '0.1.2',
      engines: adapters.engines,
      workers: probed.map((w) => ({ id: w.id, status: w.status, capacity: w.capacity, active: w.active })),
    });
  },
};
