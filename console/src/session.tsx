import { createContext, startTransition, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { api, ApiError } from './api';
import type { Identity } from './api-types';

/** Who is signed in (GET /v1/me), or null when nobody is. */
export type Me = Identity;

interface SessionState {
  me: Me | null;
  /** True until the first answer of /v1/me. */
  checking: boolean;
  refresh: () => Promise<Me | null>;
}

const SessionContext = createContext<SessionState>({ me: null, checking: true, refresh: async () => null });

/** Holds the signed-in identity; any 401 from the API signs the page out. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [checking, setChecking] = useState(true);
  const refresh = useCallback(async () => {
    const m = await whoAmI();
    if (m !== undefined) setMe(m);
    setChecking(false);
    return m ?? null;
  }, []);
  useEffect(() => {
    // The first answer reveals the page opened, whose chunk (app.tsx) is fetched meanwhile. As a transition the
    // loading screen stays until that page can render, instead of a Suspense fallback, which React keeps on
    // screen at least 300 ms once shown (its throttle of reveals): that delayed every page load by as much.
    void whoAmI().then((m) =>
      startTransition(() => {
        if (m !== undefined) setMe(m);
        setChecking(false);
      }),
    );
    const off = () => setMe(null);
    window.addEventListener('crucible:unauthenticated', off);
    return () => window.removeEventListener('crucible:unauthenticated', off);
  }, [refresh]);
  return <SessionContext.Provider value={{ me, checking, refresh }}>{children}</SessionContext.Provider>;
}

/** Who is signed in: null when nobody is (401), undefined when the server could not say. */
async function whoAmI(): Promise<Me | null | undefined> {
  try {
    return await api<Me>('GET', '/v1/me');
  } catch (e) {
    return !(e instanceof ApiError) || e.status === 401 ? null : undefined;
  }
}

export function useSession(): SessionState {
  return useContext(SessionContext);
}
