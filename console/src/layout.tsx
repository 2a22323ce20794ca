import type { ReactNode } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { api } from './api';
import { useSession } from './session';

const NAV: Array<[string, string]> = [
  ['/', 'Overview'],
  ['/applications', 'Applications'],
  ['/worlds', 'Worlds'],
  ['/profiles', 'Profiles'],
  ['/runs', 'Runs'],
  ['/compare', 'Compare'],
  ['/exports', 'Exports'],
  ['/keys', 'Keys'],
  ['/credentials', 'Credentials'],
  ['/billing', 'Billing'],
];

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
          {me?.organization ? (
            <span className="workspace">
              {me.organization} / {me.project}
            </span>
          ) : null}
        </div>
        {ready ? (
          <nav aria-label="Main">
            <ul>
              {NAV.map(([to, label]) => (
                <li key={to}>
                  <NavLink to={to} end={to === '/'}>
                    {label}
                  </NavLink>
                </li>
              ))}
              {me.is_operator ? (
                <li>
                  <NavLink to="/admin">Administration</NavLink>
                </li>
              ) : null}
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
