import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../api';
import type { Membership } from '../api-types';
import { useAction } from '../hooks';
import { useSession } from '../session';
import { ErrorBox } from '../ui';

/**
 * An owner makes another project of the organization (`POST /v1/projects`, docs/accounts.md
 * "Several projects"), becomes its one member, and the console moves there; the header's
 * Project menu then switches between the projects.
 */
export function NewProject() {
  const { me, refresh } = useSession();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const act = useAction();
  if (me?.user?.role !== 'owner') return null;
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const made = await act.run(async () => {
      const p = await api<Membership>('POST', '/v1/projects', { name });
      await api('PUT', '/v1/session', { project_id: p.project_id });
      return p;
    });
    if (!made) return;
    setName('');
    await refresh();
    navigate('/');
  };
  return (
    <>
      <h2>Projects</h2>
      <p>
        Make another project in {me.organization}, on its plan. You are its owner and only member: invite others from
        its Team page. The Project menu at the top switches between your projects.
      </p>
      <form className="row" onSubmit={(e) => void create(e)}>
        <label className="field">
          <span>New project name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
        </label>
        <button className="primary" type="submit" disabled={act.busy}>
          Create project
        </button>
      </form>
      <ErrorBox error={act.error} />
    </>
  );
}
