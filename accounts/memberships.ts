import { createHash } from 'node:crypto';
import { Collections } from '../core/index.js';
import { ServiceError, ValidationFailedError, notFound } from '../core/index.js';
import { newId, nowIso, randomToken } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import { body, created, ok, param, requirePrincipal, type HandlerTable, type OperationContext } from '../core/index.js';
import { okPage, pageOf, pageRequest } from '../core/index.js';
import { consoleBase } from './password-links.js';
import { normalizeEmail, userView, type AccountUserDoc } from './users.js';
import { loadProject, planOf, type MembershipDoc, type OrganizationDoc, type ProjectDoc } from './workspaces.js';

/** How long an invitation into a project can be accepted. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
/** Open invitations one project may have at a time: enough for a team, too few to fill the store with. */
export const MAX_OPEN_INVITATIONS = 100;
/** Projects one organization may have: enough for any team, too few to fill the store with. */
export const MAX_PROJECTS_PER_ORGANIZATION = 100;

/**
 * An invitation into a project, made by an owner or admin for an e-mail address. The link
 * carries 256 random bits; only their SHA-256 is stored. It is accepted once, by a signed-in
 * account with that address, within 7 days; its maker can withdraw it before.
 */
export interface InvitationDoc extends Doc {
  token_hash: string;
  email: string;
  role: 'member' | 'admin';
  organization_id: string;
  project_id: string;
  invited_by_user_id: string | null;
  invited_by_key_id: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by_user_id: string | null;
}

export async function ensureInvitationIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.invitations, [
    { fields: ['token_hash'], unique: true },
    { fields: ['project_id'] },
  ]);
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

function invitationView(inv: InvitationDoc): Record<string, unknown> {
  return {
    id: inv._id,
    email: inv.email,
    role: inv.role,
    project_id: inv.project_id,
    created_at: inv.created_at,
    expires_at: inv.expires_at,
    accepted_at: inv.accepted_at,
  };
}

/** Only a console session acts as a person; a key belongs to the one project it was made in. */
function requireSession(ctx: OperationContext, what: string) {
  const p = requirePrincipal(ctx);
  if (!p.sessionId || !p.userId) {
    throw new ServiceError(
      'conflict',
      `${what} is for a signed-in person (a console session); a key belongs to one project`,
    );
  }
  return p as typeof p & { sessionId: string; userId: string };
}

async function workspaceView(store: DocumentStore, m: MembershipDoc, current: string) {
  const project = await store.get<ProjectDoc>(Collections.projects, m.project_id);
  const organization = await store.get<OrganizationDoc>(Collections.organizations, m.organization_id);
  return {
    project_id: m.project_id,
    project: project?.name ?? null,
    organization_id: m.organization_id,
    organization: organization?.name ?? null,
    plan: organization ? planOf(organization) : null,
    role: m.role,
    current: m.project_id === current,
  };
}

export const membershipHandlers: HandlerTable = {
  /**
   * The workspaces (projects) the caller can act in, oldest membership first, with the
   * caller's role and which one this session acts in (`current`). For a key: its own project.
   */
  async list_memberships(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const store = adapters.store;
    if (!p.sessionId || !p.userId) {
      const { project, organization } = await loadProject(store, p.projectId);
      return ok([
        {
          project_id: project._id,
          project: project.name,
          organization_id: organization._id,
          organization: organization.name,
          plan: planOf(organization),
          role: null,
          current: true,
        },
      ]);
    }
    const page = await pageOf<MembershipDoc>(
      store,
      Collections.memberships,
      { user_id: p.userId },
      [{ field: 'created_at', direction: 'asc' }],
      pageRequest(ctx.query),
    );
    return okPage(await Promise.all(page.items.map((m) => workspaceView(store, m, p.projectId))), page.next);
  },

  /**
   * Moves this console session to another project the user is a member of; the next
   * request acts there, with the role held there. A project the user is not a member of
   * answers 404, like any other project's id.
   */
  async switch_session_project(ctx, { adapters }) {
    const p = requireSession(ctx, 'switching projects');
    const { project_id } = body<{ project_id: string }>(ctx);
    const store = adapters.store;
    const m = await store.findOne<MembershipDoc>(Collections.memberships, { user_id: p.userId, project_id });
    if (!m) throw notFound('project');
    await store.update(Collections.sessions, p.sessionId, { project_id });
    return ok(await workspaceView(store, m, project_id));
  },

  /**
   * Makes another project in the organization this session acts in (docs/accounts.md,
   * "Several projects"): owners only, since a project is the organization's and runs on its
   * plan. The caller is its one member, as owner; the session stays where it is. 201 with
   * the project as list_memberships shows it. A taken name or a full organization is 409.
   */
  async create_project(ctx, { adapters }) {
    const p = requireSession(ctx, 'creating a project');
    const name = body<{ name: string }>(ctx).name.trim();
    const store = adapters.store;
    const here = await store.findOne<MembershipDoc>(Collections.memberships, {
      user_id: p.userId,
      project_id: p.projectId,
    });
    if (here?.role !== 'owner') {
      throw new ServiceError(
        'forbidden',
        `only an owner of the organization creates its projects; you are ${here?.role ?? 'not a member'} in this one`,
      );
    }
    if (!name || /[\u0000-\u001f\u007f]/.test(name)) {
      throw new ValidationFailedError('name is not valid', [
        { field: 'name', message: 'must hold visible characters and no control characters' },
      ]);
    }
    const organizationId = here.organization_id;
    const taken = await store.findOne<ProjectDoc>(Collections.projects, { organization_id: organizationId, name });
    if (taken) throw new ServiceError('conflict', `the organization already has a project named "${name}"`);
    if ((await store.count(Collections.projects, { organization_id: organizationId })) >= MAX_PROJECTS_PER_ORGANIZATION)
      throw new ServiceError(
        'conflict',
        `the organization has ${MAX_PROJECTS_PER_ORGANIZATION} projects, the most it may have`,
      );
    const now = nowIso();
    // the unique (organization, name) index refuses a second project of the name made at the same moment (409)
    const project = await store.insert<ProjectDoc>(Collections.projects, {
      _id: newId('prj'),
      organization_id: organizationId,
      name,
      created_at: now,
    });
    const m = await store.insert<MembershipDoc>(Collections.memberships, {
      _id: newId('mem'),
      user_id: p.userId,
      organization_id: organizationId,
      project_id: project._id,
      role: 'owner',
      created_at: now,
    });
    return created(await workspaceView(store, m, p.projectId));
  },

  /**
   * Invites an e-mail address into the caller's project (owners and admins, or an admin
   * key): 201 with the link to hand to that person, shown once. The answer is the same
   * whether or not the address has an account here, so inviting tells nothing about
   * other people's accounts. Nothing changes until the person accepts. At most
   * MAX_OPEN_INVITATIONS open at once per project (then 409).
   */
  async create_invitation(ctx, { adapters, config }) {
    const p = requirePrincipal(ctx);
    const b = body<{ email: string; role?: 'member' | 'admin' }>(ctx);
    const store = adapters.store;
    await ensureInvitationIndexes(store);
    const email = normalizeEmail(b.email);
    const now = Date.now();
    const open = await store.count(Collections.invitations, {
      project_id: p.projectId,
      accepted_at: null,
      expires_at: { $gt: new Date(now).toISOString() },
    });
    if (open >= MAX_OPEN_INVITATIONS) {
      throw new ServiceError(
        'conflict',
        `this project has ${MAX_OPEN_INVITATIONS} open invitations, the most it may have; withdraw some or wait until they are accepted or expire`,
      );
    }
    const token = randomToken(256);
    const inv = await store.insert<InvitationDoc>(Collections.invitations, {
      _id: newId('inv'),
      token_hash: hashToken(token),
      email,
      role: b.role ?? 'member',
      organization_id: p.organizationId,
      project_id: p.projectId,
      invited_by_user_id: p.userId,
      invited_by_key_id: p.keyId,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + INVITATION_TTL_MS).toISOString(),
      accepted_at: null,
      accepted_by_user_id: null,
    });
    return created({ ...invitationView(inv), url: `${consoleBase(config)}/invite#token=${token}` });
  },

  /** The project's invitations not yet accepted, withdrawn or expired, newest first (never their links). */
  async list_invitations(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const page = await pageOf<InvitationDoc>(
      adapters.store,
      Collections.invitations,
      { project_id: p.projectId, accepted_at: null, expires_at: { $gt: nowIso() } },
      [{ field: 'created_at', direction: 'desc' }],
      pageRequest(ctx.query),
    );
    return okPage(page.items.map(invitationView), page.next);
  },

  /** Withdraws an invitation of the caller's project that is not accepted yet; its link stops working. */
  async delete_invitation(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const id = param(ctx, 'inv_id');
    const inv = await adapters.store.get<InvitationDoc>(Collections.invitations, id);
    if (!inv || inv.project_id !== p.projectId) throw notFound('invitation');
    if (inv.accepted_at) throw new ServiceError('conflict', 'this invitation was already accepted');
    await adapters.store.delete(Collections.invitations, id);
    return ok({ id, deleted: true });
  },

  /**
   * Accepts an invitation with the signed-in account: it must be the invited address (an
   * invitation forwarded to someone else is refused, 403). Adds the membership (an
   * existing one keeps its role), spends the invitation, and moves this session into the
   * project. Unknown links 404; used or expired ones 410.
   */
  async accept_invitation(ctx, { adapters }) {
    const p = requireSession(ctx, 'accepting an invitation');
    const { token } = body<{ token: string }>(ctx);
    const store = adapters.store;
    const inv = await store.findOne<InvitationDoc>(Collections.invitations, { token_hash: hashToken(token) });
    if (!inv)
      throw new ServiceError('not_found', 'this invitation is not valid: it was withdrawn, or not copied whole');
    if (inv.accepted_at) throw new ServiceError('gone', 'this invitation was already accepted');
    if (Date.parse(inv.expires_at) <= Date.now()) {
      throw new ServiceError('gone', `this invitation expired at ${inv.expires_at}; ask for a new one`);
    }
    const user = await store.get<AccountUserDoc>(Collections.users, p.userId);
    if (!user) throw new ServiceError('unauthenticated', 'the account of this session no longer exists; sign in again');
    if (user.email !== inv.email) {
      throw new ServiceError(
        'forbidden',
        `this invitation is for another e-mail address; sign in as the invited address to accept it (you are ${user.email})`,
      );
    }
    const spent = await store.update<InvitationDoc>(
      Collections.invitations,
      inv._id,
      { accepted_at: nowIso(), accepted_by_user_id: user._id },
      { accepted_at: null },
    );
    if (!spent) throw new ServiceError('gone', 'this invitation was already accepted');
    const { project, organization } = await loadProject(store, inv.project_id);
    let m = await store.findOne<MembershipDoc>(Collections.memberships, { user_id: user._id, project_id: project._id });
    if (!m) {
      try {
        m = await store.insert<MembershipDoc>(Collections.memberships, {
          _id: newId('mem'),
          user_id: user._id,
          organization_id: organization._id,
          project_id: project._id,
          role: inv.role,
          created_at: nowIso(),
        });
      } catch (err) {
        if (!(err instanceof ServiceError && err.code === 'conflict')) throw err;
        m = await store.findOne<MembershipDoc>(Collections.memberships, { user_id: user._id, project_id: project._id });
      }
    }
    await store.update(Collections.sessions, p.sessionId, { project_id: project._id });
    return ok({ ...(await workspaceView(store, m!, project._id)), user: userView(user) });
  },
};
