import { lazy, Suspense, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { Layout } from './layout';
import { useSession } from './session';
import { Loading } from './ui';

// Each screen is its own chunk: the first load carries the shell and the screen opened.
const SignIn = lazy(() => import('./pages/auth').then((m) => ({ default: m.SignIn })));
const SignUp = lazy(() => import('./pages/auth').then((m) => ({ default: m.SignUp })));
const Onboarding = lazy(() => import('./pages/auth').then((m) => ({ default: m.Onboarding })));
const Overview = lazy(() => import('./pages/overview'));
const Applications = lazy(() => import('./pages/applications'));
const JobPage = lazy(() => import('./pages/job'));
const Worlds = lazy(() => import('./pages/worlds'));
const WorldVersion = lazy(() => import('./pages/world-version'));
const ScenarioPage = lazy(() => import('./pages/scenario'));
const Profiles = lazy(() => import('./pages/profiles'));
const Runs = lazy(() => import('./pages/runs'));
const NewRun = lazy(() => import('./pages/new-run'));
const RunPage = lazy(() => import('./pages/run'));
const EpisodePage = lazy(() => import('./pages/episode'));
const Compare = lazy(() => import('./pages/compare'));
const Exports = lazy(() => import('./pages/exports'));
const Keys = lazy(() => import('./pages/keys'));
const Credentials = lazy(() => import('./pages/credentials'));
const Billing = lazy(() => import('./pages/billing'));
const CliLogin = lazy(() => import('./pages/cli-login'));
const Admin = lazy(() => import('./pages/admin'));

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
          <Route path="/signup" element={<SignUp />} />
          <Route path="/onboarding" element={<Onboarding />} />
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
