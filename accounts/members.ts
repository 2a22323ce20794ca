import { Collections } from '../core/index.js';
import { ServiceError, notFound } from '../core/index.js';
import { newId, nowIso } from '../core/index.js';
import type { Doc, DocumentStore, Principal } from '../core/index.js';
import { body, ok, param, requirePrincipal, type HandlerTable } from '../core/index.js';
import { okPage, pageOf, pageRequest } from '../core/index.js';
import type { AccountUserDoc } from './users.js';
import type { MembershipDoc } from './workspaces.js';

type Role = MembershipDoc['role'];

/**
 * Announced (by the scheduler that made the change) when a membership is removed or its role
 * changes: `{user_id, project_id, role}` (`role` null when removed). Every gateway ends the
 * open event streams that membership no longer allows (gateway/credential-watch.ts).
 */
export const MEMBERSHIP_CHANGED_SUBJECT = 'crucible.memberships.changed';

/** One change to a project's people, kept for its admins to read (`GET /v1/audit-events`). */
export interface AuditEventDoc extends Doc {
  /** `member.role_changed` or `member.removed`. */
  action: 'member.role_changed' | 'member.removed';
  organization_id: string;
  project_id: string;
  /** Who made the change: a console user, or an admin key. */
  actor_user_id: string | null;
  actor_key_id: string | null;
  target_user_id: string;
  target_email: string | null;
  role_before: Role;
  /** The new role; null when the member was removed. */
  role_after: Role | null;
  created_at: string;
}

export async function ensureMemberIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.auditEvents, [{ fields: ['project_id', 'created_at'] }]);
}

/** The role a caller acts with in its project: a console user's membership; an admin key acts as an admin. */
type ActorRole = Role | 'key';

/**
 * Whether `actor` may move `target` from `before` to `after` (null: remove). Owners may do
 * anything to anyone; admins (people and admin keys) may remove members and admins and move
 * them between `member` and `admin`, but neither make an owner nor touch one. A member never
 * gets here (the operations need the `admin` scope). Returns the refusal's detail, or null.
 * The last owner is checked apart (it needs the store).
 */
export function refusalOf(actor: ActorRole, before: Role, after: Role | null): string | null {
  if (actor === 'owner') return null;
  if (actor === 'member') return 'only owners and admins manage the project’s people';
  if (before === 'owner') return 'only an owner can remove an owner or change an owner’s role';
  if (after === 'owner') return 'only an owner can make someone an owner';
  return null;
}

function memberView(m: MembershipDoc, user: AccountUserDoc | null | undefined) {
  return {
    user_id: m.user_id,
    email: user?.email ?? null,
    name: user?.name ?? null,
    role: m.role,
    project_id: m.project_id,
    created_at: m.created_at,
  };
}

function auditView(e: AuditEventDoc) {
  return {
    id: e._id,
    action: e.action,
    project_id: e.project_id,
    actor_user_id: e.actor_user_id,
    actor_key_id: e.actor_key_id,
    target_user_id: e.target_user_id,
    target_email: e.target_email,
    role_before: e.role_before,
    role_after: e.role_after,
    created_at: e.created_at,
  };
}

/** The caller's role in its project; a console user no longer a member there is refused (403). */
async function actorRole(store: DocumentStore, p: Principal): Promise<ActorRole> {
  if (!p.userId) return 'key';
  const m = await store.findOne<MembershipDoc>(Collections.memberships, { user_id: p.userId, project_id: p.projectId });
  if (!m) throw new ServiceError('forbidden', 'you are no longer a member of this project');
  return m.role;
}

const owners = (store: DocumentStore, projectId: string) =>
  store.count(Collections.memberships, { project_id: projectId, role: 'owner' });

const LAST_OWNER =
  'this is the project’s last owner: make someone else an owner first (a project always keeps one owner)';

/**
 * Applies a checked change to one membership, keeping an owner: after the write the owners
 * are counted again, and when two changes at once took the last two owners (each saw the
 * other still there), the change is undone and answers 409, so no project is ever left
 * without an owner.
 */
async function applyChange(store: DocumentStore, m: MembershipDoc, after: Role | null): Promise<void> {
  if (m.role === 'owner' && after !== 'owner' && (await owners(store, m.project_id)) <= 1) {
    throw new ServiceError('conflict', LAST_OWNER);
  }
  if (after === null) await store.delete(Collections.memberships, m._id);
  else await store.update<MembershipDoc>(Collections.memberships, m._id, { role: after });
  if (m.role === 'owner' && after !== 'owner' && (await owners(store, m.project_id)) === 0) {
    if (after === null) await store.insert<MembershipDoc>(Collections.memberships, m);
    else await store.update<MembershipDoc>(Collections.memberships, m._id, { role: 'owner' });
    throw new ServiceError('conflict', LAST_OWNER);
  }
}

/**
 * The project's people (additions to the spec's table, docs/accounts.md "Members and roles"):
 * list them, change a role, remove one, and read the record of those changes. Every change
 * is kept as an audit event, logged, and announced on the bus so that every gateway ends the
 * event streams the change no longer allows.
 */
export const memberHandlers: HandlerTable = {
  /** The project's members, oldest first, with their e-mail address, name and role. */
  async list_members(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const store = adapters.store;
    const page = await pageOf<MembershipDoc>(
      store,
      Collections.memberships,
      { project_id: p.projectId },
      [{ field: 'created_at', direction: 'asc' }],
      pageRequest(ctx.query),
    );
    const ids = page.items.map((m) => m.user_id);
    const users = new Map(
      (await store.find<AccountUserDoc>(Collections.users, { _id: { $in: ids } }, { limit: ids.length })).map((u) => [
        u._id,
        u,
      ]),
    );
    return okPage(
      page.items.map((m) => memberView(m, users.get(m.user_id))),
      page.next,
    );
  },

  /** Sets a member's role (owners and admins; see `refusalOf` and the last-owner rule). */
  async update_member(ctx, deps) {
    const { role } = body<{ role: Role }>(ctx);
    return ok(await change(ctx, deps, role));
  },

  /** Removes a member from the project (owners and admins; an admin may remove themself). */
  async delete_member(ctx, deps) {
    return ok(await change(ctx, deps, null));
  },

  /** The record of changes to the project's people, newest first. */
  async list_audit_events(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const page = await pageOf<AuditEventDoc>(
      adapters.store,
      Collections.auditEvents,
      { project_id: p.projectId },
      [{ field: 'created_at', direction: 'desc' }],
      pageRequest(ctx.query),
    );
    return okPage(page.items.map(auditView), page.next);
  },
};

async function change(
  ctx: Parameters<HandlerTable[string]>[0],
  { adapters, logger }: Parameters<HandlerTable[string]>[1],
  after: Role | null,
) {
  const p = requirePrincipal(ctx);
  const store = adapters.store;
  const userId = param(ctx, 'user_id');
  const m = await store.findOne<MembershipDoc>(Collections.memberships, { user_id: userId, project_id: p.projectId });
  if (!m) throw notFound('member');
  const refusal = refusalOf(await actorRole(store, p), m.role, after);
  if (refusal) throw new ServiceError('forbidden', refusal);
  const user = await store.get<AccountUserDoc>(Collections.users, userId);
  if (after === m.role) return { ...memberView(m, user), changed: false };
  await applyChange(store, m, after);
  const event = await store.insert<AuditEventDoc>(Collections.auditEvents, {
    _id: newId('aud'),
    action: after === null ? 'member.removed' : 'member.role_changed',
    organization_id: m.organization_id,
    project_id: m.project_id,
    actor_user_id: p.userId,
    actor_key_id: p.keyId,
    target_user_id: userId,
    target_email: user?.email ?? null,
    role_before: m.role,
    role_after: after,
    created_at: nowIso(),
  });
  logger.child({ component: 'members' }).info({ audit: auditView(event) }, event.action);
  await adapters.bus
    .publish(MEMBERSHIP_CHANGED_SUBJECT, { user_id: userId, project_id: m.project_id, role: after })
    .catch((err: unknown) =>
      logger.warn({ err }, 'cannot announce a membership change; gateways end its streams at their re-check'),
    );
  return after === null
    ? { ...memberView(m, user), role: null, removed: true }
    : { ...memberView({ ...m, role: after }, user), changed: true };
}

/** The memberships of these users (for the gateways' re-check of open streams). */
export async function readMemberships(store: DocumentStore, userIds: string[]): Promise<MembershipDoc[]> {
  const out: MembershipDoc[] = [];
  for (let i = 0; i < userIds.length; i += 200) {
    const chunk = userIds.slice(i, i + 200);
    out.push(
      ...(await store.find<MembershipDoc>(Collections.memberships, { user_id: { $in: chunk } }, { limit: 10_000 })),
    );
  }
  return out;
}
