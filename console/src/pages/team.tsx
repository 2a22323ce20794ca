import { useState, type FormEvent } from 'react';
import { api } from '../api';
import type { Invitation, InvitationCreated } from '../api-types';
import { useAction, useList, useTitle } from '../hooks';
import { useSession } from '../session';
import { DataTable } from '../table';
import { ErrorBox, PageHead, ShownOnce, when } from '../ui';

/**
 * The project's people: owners and admins invite an e-mail address (member or admin) and get
 * a link to hand over, shown once; open invitations can be withdrawn. The invited person
 * opens the link, signs in or up with that address, and joins (docs/accounts.md, "Invitations").
 */
export default function Team() {
  useTitle('Team');
  const { me } = useSession();
  const invitations = useList<Invitation>('/v1/invitations');
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
    </>
  );
}
