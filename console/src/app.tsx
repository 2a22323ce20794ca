import { Suspense, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation } from 'react-router';
import { Layout } from './layout';
import { PAGES, pageAt } from './routes';
import { useSession } from './session';
import { Loading } from './ui';

/** The chunk of the page a link opens, fetched at once while the session is checked (no waterfall). */
void pageAt(window.location.pathname)
  ?.load()
  .catch(() => {});

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

/** The console's routes, one per entry of the page table; every URL is shareable and opens the same screen after sign-in. */
export function App() {
  return (
    <Layout>
      <Suspense fallback={<Loading />}>
        <Routes>
          {PAGES.map(({ path, Component, access }) => (
            <Route
              key={path}
              path={path}
              element={
                access === 'public' ? (
                  <Component />
                ) : (
                  <Private>
                    <Component />
                  </Private>
                )
              }
            />
          ))}
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
