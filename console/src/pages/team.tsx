import { useState, type FormEvent } from 'react';
import { api } from '../api';
import type { Invitation, InvitationCreated } from '../api-types';
import { useAction, useList, useTitle } from '../hooks';
import { useSession } from '../session';
import { DataTable } from '../table';
import { ErrorBox, PageHead, ShownOnce, when } from '../ui';
import { NewProject } from './new-project';

/** One person of the project (GET /v1/members, docs/accounts.md "Members and roles"). */
interface Member {
  user_id: string;
  email: string | null;
  name: string | null;
  role: 'owner' | 'admin' | 'member';
  created_at: string;
}

const ROLE_LABELS = { owner: 'Owner', admin: 'Admin', member: 'Member' } as const;

/**
 * The project's people: the members, whose role owners and admins change and whom they
 * remove (only owners make or touch an owner; the last owner stays); owners and admins invite an e-mail address (member or admin) and get
 * a link to hand over, shown once; open invitations can be withdrawn. The invited person
 * opens the link, signs in or up with that address, and joins (docs/accounts.md, "Invitations").
 * Owners also make another project of the organization here (new-project.tsx).
 */
export default function Team() {
  useTitle('Team');
  const { me } = useSession();
  const invitations = useList<Invitation>('/v1/invitations');
  const members = useList<Member>('/v1/members');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [created, setCreated] = useState<InvitationCreated | null>(null);
  const act = useAction();
  const invite = async (e: FormEvent) => {
    e.preventDefault();
    const r = await act.run(() => api<InvitationCreated>('POST', '/v1/invitations', { email, role }));
    if (r) {
      // The link on the address this console is open at (the server names SERVICE_PUBLIC_URL, or localhost when unset).
      const fragment = r.url.slice(r.url.indexOf('#'));
      setCreated({ ...r, url: `${window.location.origin}/invite${fragment}` });
      setEmail('');
      invitations.reload();
    }
  };
  const withdraw = async (inv: Invitation) => {
    if (!window.confirm(`Withdraw the invitation of ${inv.email}? Its link stops working.`)) return;
    if (await act.run(() => api('DELETE', `/v1/invitations/${inv.id}`))) invitations.reload();
  };
  const changeRole = async (m: Member, role: Member['role']) => {
    if (await act.run(() => api('PUT', `/v1/members/${encodeURIComponent(m.user_id)}`, { role }))) members.reload();
  };
  const remove = async (m: Member) => {
    const who = m.email ?? m.user_id;
    if (!window.confirm(`Remove ${who} from the project? Their open pages and event streams stop at once.`)) return;
    if (await act.run(() => api('DELETE', `/v1/members/${encodeURIComponent(m.user_id)}`))) members.reload();
  };
  return (
    <>
      <PageHead title="Team" />
      <p>
        Invite someone into {me?.organization} / {me?.project}. Members build and evaluate; admins also manage keys,
        credentials, billing and invitations.
      </p>
      <form className="row" onSubmit={(e) => void invite(e)}>
        <label className="field">
          <span>E-mail address to invite</span>
          <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
        </label>
        <label className="field">
          <span>Role</span>
          <select value={role} onChange={(e) => setRole(e.target.value as 'member' | 'admin')}>
            <option value="member">Member (build and evaluate)</option>
            <option value="admin">Admin (full access)</option>
          </select>
        </label>
        <button className="primary" type="submit" disabled={act.busy}>
          Invite
        </button>
      </form>
      <ErrorBox error={act.error ?? invitations.error} />
      {created ? (
        <ShownOnce value={created.url} testId="invitation-link" copyLabel="Copy link" onDone={() => setCreated(null)}>
          <strong>Send this link to {created.email}: it is shown only once.</strong> It works once, until{' '}
          {when(created.expires_at)}, for whoever signs in with that address.
        </ShownOnce>
      ) : null}
      <h2>Members</h2>
      <ErrorBox error={members.error} />
      <DataTable
        rows={members.data}
        rowKey={(m) => m.user_id}
        empty="No members."
        columns={[
          { head: 'E-mail', cell: (m) => m.email },
          { head: 'Name', cell: (m) => m.name },
          {
            head: 'Role',
            cell: (m) => (
              <select
                aria-label={`Role of ${m.email ?? m.user_id}`}
                value={m.role}
                disabled={act.busy}
                onChange={(e) => void changeRole(m, e.target.value as Member['role'])}
              >
                {(['owner', 'admin', 'member'] as const).map((r) => (
                  <option key={r} value={r}>
                    {ROLE_LABELS[r]}
                  </option>
                ))}
              </select>
            ),
          },
          { head: 'Since', cell: (m) => when(m.created_at) },
          {
            head: 'Actions',
            cell: (m) => (
              <button
                type="button"
                className="danger"
                onClick={() => void remove(m)}
                aria-label={`Remove ${m.email ?? m.user_id}`}
              >
                Remove
              </button>
            ),
          },
        ]}
      />
      <h2>Open invitations</h2>
      <DataTable
        rows={invitations.data}
        rowKey={(inv) => inv.id}
        empty="No open invitations."
        columns={[
          { head: 'E-mail', cell: (inv) => inv.email },
          { head: 'Role', cell: (inv) => inv.role },
          { head: 'Sent', cell: (inv) => when(inv.created_at) },
          { head: 'Expires', cell: (inv) => when(inv.expires_at) },
          {
            head: 'Actions',
            cell: (inv) => (
              <button
                type="button"
                className="danger"
                onClick={() => void withdraw(inv)}
                aria-label={`Withdraw the invitation of ${inv.email}`}
              >
                Withdraw
              </button>
            ),
          },
        ]}
      />
      <NewProject />
    </>
  );
}
