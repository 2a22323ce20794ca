import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { matchPath } from 'react-router';
import type { Me } from './session';

/**
 * Who may open a page: anyone (`public`), a signed-in member of a workspace (`member`), and
 * two kinds of member whose pages only they see in the navigation: a workspace admin
 * (`admin`) and a server operator (`operator`). The server still decides every request.
 */
export type Access = 'public' | 'member' | 'admin' | 'operator';

export interface Page {
  path: string;
  /** Fetches the page's chunk; every page is its own chunk, so the first load carries only the shell and the page opened. */
  load: () => Promise<unknown>;
  Component: LazyExoticComponent<ComponentType>;
  access: Access;
  /** The navigation's label; pages without one are reached by links. */
  nav?: string;
}

/** A page whose component is the export `name` of the chunk `load` fetches. */
function page<M extends Record<K, ComponentType>, K extends keyof M & string>(
  path: string,
  load: () => Promise<M>,
  name: K,
  access: Access,
  nav?: string,
): Page {
  return { path, load, Component: lazy(() => load().then((m) => ({ default: m[name] }))), access, nav };
}

const auth = () => import('./pages/auth');
const profiles = () => import('./pages/profiles');

/**
 * Every console page, in navigation order. Routing, the navigation and the chunk fetched
 * ahead while the session is checked all read this table: adding a page is one line here.
 */
export const PAGES: readonly Page[] = [
  page('/signin', auth, 'SignIn', 'public'),
  page('/signin/idp', auth, 'IdpCallback', 'public'),
  page('/signup', auth, 'SignUp', 'public'),
  page('/onboarding', auth, 'Onboarding', 'public'),
  page('/set-password', auth, 'SetPassword', 'public'),
  page('/invite', auth, 'AcceptInvitation', 'public'),
  page('/', () => import('./pages/overview'), 'default', 'member', 'Overview'),
  page('/applications', () => import('./pages/applications'), 'default', 'member', 'Applications'),
  page('/jobs/:id', () => import('./pages/job'), 'default', 'member'),
  page('/worlds', () => import('./pages/worlds'), 'default', 'member', 'Worlds'),
  page('/world-versions/:id', () => import('./pages/world-version'), 'default', 'member'),
  page('/scenarios/:id', () => import('./pages/scenario'), 'default', 'member'),
  page('/profiles', profiles, 'default', 'member', 'Profiles'),
  page('/profiles/:name', profiles, 'default', 'member'),
  page('/runs', () => import('./pages/runs'), 'default', 'member', 'Runs'),
  page('/runs/new', () => import('./pages/new-run'), 'default', 'member'),
  page('/runs/:id', () => import('./pages/run'), 'default', 'member'),
  page('/episodes/:id', () => import('./pages/episode'), 'default', 'member'),
  page('/compare', () => import('./pages/compare'), 'default', 'member', 'Compare'),
  page('/exports', () => import('./pages/exports'), 'default', 'member', 'Exports'),
  page('/keys', () => import('./pages/keys'), 'default', 'member', 'Keys'),
  page('/credentials', () => import('./pages/credentials'), 'default', 'member', 'Credentials'),
  page('/billing', () => import('./pages/billing'), 'default', 'member', 'Billing'),
  page('/cli/login', () => import('./pages/cli-login'), 'default', 'member'),
  page('/team', () => import('./pages/team'), 'default', 'admin', 'Team'),
  page('/admin', () => import('./pages/admin'), 'default', 'operator', 'Administration'),
];

/** Whether `me` sees a page of this access in the navigation. */
export function shown(access: Access, me: Me): boolean {
  if (access === 'admin') return me.is_admin;
  if (access === 'operator') return me.is_operator === true;
  return true;
}

/** The page at `pathname` (a fixed path before a pattern, as the router ranks them). */
export function pageAt(pathname: string): Page | undefined {
  return (
    PAGES.find((p) => !p.path.includes(':') && matchPath(p.path, pathname)) ??
    PAGES.find((p) => matchPath(p.path, pathname))
  );
}
