import { lazy, Suspense, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { Layout } from './layout';
import { useSession } from './session';
import { Loading } from './ui';

// Each screen is its own chunk: the first load carries the shell and the screen opened.
const load = {
  auth: () => import('./pages/auth'),
  overview: () => import('./pages/overview'),
  applications: () => import('./pages/applications'),
  job: () => import('./pages/job'),
  worlds: () => import('./pages/worlds'),
  worldVersion: () => import('./pages/world-version'),
  scenario: () => import('./pages/scenario'),
  profiles: () => import('./pages/profiles'),
  runs: () => import('./pages/runs'),
  newRun: () => import('./pages/new-run'),
  run: () => import('./pages/run'),
  episode: () => import('./pages/episode'),
  compare: () => import('./pages/compare'),
  exports: () => import('./pages/exports'),
  keys: () => import('./pages/keys'),
  credentials: () => import('./pages/credentials'),
  billing: () => import('./pages/billing'),
  cliLogin: () => import('./pages/cli-login'),
  admin: () => import('./pages/admin'),
  team: () => import('./pages/team'),
};
const SignIn = lazy(() => load.auth().then((m) => ({ default: m.SignIn })));
const SignUp = lazy(() => load.auth().then((m) => ({ default: m.SignUp })));
const IdpCallback = lazy(() => load.auth().then((m) => ({ default: m.IdpCallback })));
const Onboarding = lazy(() => load.auth().then((m) => ({ default: m.Onboarding })));
const SetPassword = lazy(() => load.auth().then((m) => ({ default: m.SetPassword })));
const AcceptInvitation = lazy(() => load.auth().then((m) => ({ default: m.AcceptInvitation })));
const Overview = lazy(load.overview);
const Applications = lazy(load.applications);
const JobPage = lazy(load.job);
const Worlds = lazy(load.worlds);
const WorldVersion = lazy(load.worldVersion);
const ScenarioPage = lazy(load.scenario);
const Profiles = lazy(load.profiles);
const Runs = lazy(load.runs);
const NewRun = lazy(load.newRun);
const RunPage = lazy(load.run);
const EpisodePage = lazy(load.episode);
const Compare = lazy(load.compare);
const Exports = lazy(load.exports);
const Keys = lazy(load.keys);
const Credentials = lazy(load.credentials);
const Billing = lazy(load.billing);
const CliLogin = lazy(load.cliLogin);
const Admin = lazy(load.admin);
const Team = lazy(load.team);

/** The chunk of the screen a link opens, fetched at once while the session is checked (no waterfall). */
const PRELOAD: Array<[RegExp, () => Promise<unknown>]> = [
  [/^\/(signin|signin\/idp|signup|onboarding|set-password|invite)$/, load.auth],
  [/^\/$/, load.overview],
  [/^\/runs\/new$/, load.newRun],
  [/^\/runs\/[^/]+$/, load.run],
  [/^\/runs$/, load.runs],
  [/^\/episodes\//, load.episode],
  [/^\/compare/, load.compare],
  [/^\/jobs\//, load.job],
  [/^\/world-versions\//, load.worldVersion],
  [/^\/cli\/login/, load.cliLogin],
];
for (const [re, f] of PRELOAD)
  if (re.test(window.location.pathname)) {
    void f().catch(() => {});
    break;
  }

/** Pages that need a signed-in user in a workspace; others are sent to sign in or onboarding first. */
function Private({ children }: { children: ReactNode }) {
  const { me, checking } = useSession();
  const loc = useLocation();
  if (checking) return <Loading />;
  const here = loc.pathname + loc.search;
  if (!me) return <Navigate to={`/signin?next=${encodeURIComponent(here)}`} replace />;
  if (me.needs_onboarding) return <Navigate to={`/onboarding?next=${encodeURIComponent(here)}`} replace />;
  return <>{children}</>;
}

/** The console's routes; every URL is shareable and opens the same screen after sign-in. */
export function App() {
  const p = (el: ReactNode) => <Private>{el}</Private>;
  return (
    <Layout>
      <Suspense fallback={<Loading />}>
        <Routes>
          <Route path="/signin" element={<SignIn />} />
          <Route path="/signin/idp" element={<IdpCallback />} />
          <Route path="/signup" element={<SignUp />} />
          <Route path="/onboarding" element={<Onboarding />} />
          <Route path="/set-password" element={<SetPassword />} />
          <Route path="/invite" element={<AcceptInvitation />} />
          <Route path="/" element={p(<Overview />)} />
          <Route path="/applications" element={p(<Applications />)} />
          <Route path="/jobs/:id" element={p(<JobPage />)} />
          <Route path="/worlds" element={p(<Worlds />)} />
          <Route path="/world-versions/:id" element={p(<WorldVersion />)} />
          <Route path="/scenarios/:id" element={p(<ScenarioPage />)} />
          <Route path="/profiles" element={p(<Profiles />)} />
          <Route path="/profiles/:name" element={p(<Profiles />)} />
          <Route path="/runs" element={p(<Runs />)} />
          <Route path="/runs/new" element={p(<NewRun />)} />
          <Route path="/runs/:id" element={p(<RunPage />)} />
          <Route path="/episodes/:id" element={p(<EpisodePage />)} />
          <Route path="/compare" element={p(<Compare />)} />
          <Route path="/exports" element={p(<Exports />)} />
          <Route path="/keys" element={p(<Keys />)} />
          <Route path="/credentials" element={p(<Credentials />)} />
          <Route path="/billing" element={p(<Billing />)} />
          <Route path="/cli/login" element={p(<CliLogin />)} />
          <Route path="/admin" element={p(<Admin />)} />
          <Route path="/team" element={p(<Team />)} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </Suspense>
    </Layout>
  );
}

function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <p>There is no console page at this address.</p>
    </>
  );
}
