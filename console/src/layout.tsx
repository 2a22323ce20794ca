import type { ReactNode } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { api } from './api';
import type { Membership } from './api-types';
import { useList } from './hooks';
import { PAGES, shown } from './routes';
import { useSession, type Me } from './session';

/** The frame of every page: a skip link, the navigation (when signed in), and the main region. */
export function Layout({ children }: { children: ReactNode }) {
  const { me, refresh } = useSession();
  const navigate = useNavigate();
  const signOut = async () => {
    try {
      await api('DELETE', '/v1/session');
    } finally {
      await refresh();
      navigate('/signin');
    }
  };
  const ready = me && !me.needs_onboarding;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <div className="brand">
          <NavLink to="/">Crucible</NavLink>
          {me?.organization ? <Workspace key={`${me.user?.id}:${me.project_id}`} me={me} /> : null}
        </div>
        {ready ? (
          <nav aria-label="Main">
            <ul>
              {PAGES.filter((p) => p.nav && shown(p.access, me)).map((p) => (
                <li key={p.path}>
                  <NavLink to={p.path} end={p.path === '/'}>
                    {p.nav}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
        {me ? (
          <div className="who">
            <span className="muted">{me.user?.email}</span>
            <button type="button" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        ) : null}
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}

/**
 * The workspace the session acts in; for someone in several projects, a menu that moves
 * the session to another (`PUT /v1/session`) and opens its overview.
 */
function Workspace({ me }: { me: Me }) {
  const { refresh } = useSession();
  const navigate = useNavigate();
  const memberships = useList<Membership>(me.user ? '/v1/memberships' : null);
  const label = `${me.organization} / ${me.project}`;
  if (!memberships.data || memberships.data.length < 2) return <span className="workspace">{label}</span>;
  const choose = async (projectId: string) => {
    await api('PUT', '/v1/session', { project_id: projectId });
    await refresh();
    navigate('/');
  };
  return (
    <span className="workspace">
      <select aria-label="Project" value={me.project_id ?? ''} onChange={(e) => void choose(e.target.value)}>
        {memberships.data.map((m) => (
          <option key={m.project_id} value={m.project_id}>
            {m.organization} / {m.project} ({m.role})
          </option>
        ))}
      </select>
    </span>
  );
}
