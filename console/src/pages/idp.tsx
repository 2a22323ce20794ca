import { decodeJwt } from 'jose';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ApiError } from '../api';
import { useTitle } from '../hooks';
import { useSession } from '../session';
import { ErrorBox, Loading } from '../ui';

/**
 * Identity-provider sign-in by the standard OpenID Connect redirect (implicit flow,
 * `response_type=id_token`): the button navigates this tab to the provider's authorization
 * endpoint with the `state` and `nonce` the server issued for this browser
 * (`POST /v1/auth/idp/start`, which sets an HttpOnly cookie they derive from); the provider
 * sends the browser back to `/signin/idp` with the ID token in the address's fragment; that
 * page checks the `state` it left in sessionStorage and hands the token and state to
 * `POST /v1/auth/idp`, which checks them again against the cookie. The console loads no
 * script from the provider and makes no request to it: leaving for the provider is a
 * navigation.
 */

/** Where the provider sends the browser back; must be registered with the provider as a redirect URI. */
export const CALLBACK_PATH = '/signin/idp';
const KEY = 'crucible.idp';
/** A sign-in left unfinished for longer than this is not resumed. */
const MAX_AGE_MS = 15 * 60_000;

interface Pending {
  state: string;
  nonce: string;
  next: string;
  at: number;
}

/** A name for the button: the provider's for the well-known ones, else the endpoint's host. */
export function providerName(authorizationUrl: string): string {
  const host = new URL(authorizationUrl).hostname;
  if (host === 'accounts.google.com') return 'Google';
  if (host === 'login.microsoftonline.com') return 'Microsoft';
  return host;
}

/** The address of the provider's authorization endpoint for one sign-in attempt. */
export function authorizationRequest(endpoint: string, clientId: string, p: Pending, origin: string): string {
  const u = new URL(endpoint);
  u.searchParams.set('response_type', 'id_token');
  u.searchParams.set('scope', 'openid email profile');
  u.searchParams.set('client_id', clientId);
  u.searchParams.set('redirect_uri', origin + CALLBACK_PATH);
  u.searchParams.set('state', p.state);
  u.searchParams.set('nonce', p.nonce);
  return u.href;
}

/**
 * "Sign in with <provider>": has the server start a sign-in (a fresh state and nonce, bound
 * to this browser by a cookie), keeps them for this tab, then leaves for the provider.
 */
export function IdpButton(props: { authorizationUrl: string; clientId: string; next: string }) {
  const [leaving, setLeaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const go = async () => {
    setLeaving(true);
    setError(null);
    try {
      const started = await api<{ state: string; nonce: string }>('POST', '/v1/auth/idp/start', {});
      const pending: Pending = { state: started.state, nonce: started.nonce, next: props.next, at: Date.now() };
      sessionStorage.setItem(KEY, JSON.stringify(pending));
      window.location.assign(authorizationRequest(props.authorizationUrl, props.clientId, pending, location.origin));
    } catch (e) {
      setLeaving(false);
      setError(e instanceof ApiError ? e.detail : String(e));
    }
  };
  return (
    <div className="stack">
      <p className="muted" style={{ margin: 0 }}>
        or
      </p>
      <ErrorBox error={error} />
      <div>
        <button type="button" onClick={() => void go()} disabled={leaving}>
          Sign in with {providerName(props.authorizationUrl)}
        </button>
      </div>
    </div>
  );
}

/** The pending sign-in of this tab, taken once (a reload or a second visit finds none). */
function takePending(): Pending | null {
  const raw = sessionStorage.getItem(KEY);
  sessionStorage.removeItem(KEY);
  if (!raw) return null;
  try {
    const p = JSON.parse(raw) as Pending;
    return typeof p.state === 'string' && typeof p.nonce === 'string' && Date.now() - p.at < MAX_AGE_MS ? p : null;
  } catch {
    return null;
  }
}

/** Why the answer in the fragment is not taken, or null when its token may go to the server. */
function problem(answer: URLSearchParams, pending: Pending | null): string | null {
  if (!pending)
    return 'No sign-in was started from this tab (or it was started more than 15 minutes ago); start again from the sign-in page.';
  if (answer.get('state') !== pending.state)
    return 'The answer from the identity provider does not belong to the sign-in started here (its state does not match); nothing was signed in.';
  const error = answer.get('error');
  if (error) return `The identity provider did not sign you in: ${answer.get('error_description') || error}.`;
  const token = answer.get('id_token');
  if (!token) return 'The identity provider answered without an ID token.';
  let nonce: unknown;
  try {
    nonce = decodeJwt(token).nonce;
  } catch {
    return 'The identity provider answered with something that is not an ID token.';
  }
  // The server checks the nonce too (against its cookie); checked here first, so the tab refuses without a request.
  if (nonce !== pending.nonce)
    return 'The ID token was not issued for the sign-in started here (its nonce does not match); nothing was signed in.';
  return null;
}

/** `/signin/idp`: where the provider returns; signs in with its ID token and continues. */
export function IdpCallback() {
  useTitle('Signing in');
  const navigate = useNavigate();
  const { refresh } = useSession();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const answer = new URLSearchParams(window.location.hash.slice(1));
    // the token leaves the address bar (and the history) at once
    window.history.replaceState(null, '', CALLBACK_PATH);
    const pending = takePending();
    const why = problem(answer, pending);
    if (why) {
      setError(why);
      return;
    }
    void (async () => {
      try {
        const r = await api<{ needs_onboarding: boolean }>('POST', '/v1/auth/idp', {
          credential: answer.get('id_token'),
          state: pending!.state,
        });
        await refresh();
        const next = pending!.next.startsWith('/') && !pending!.next.startsWith('//') ? pending!.next : '/';
        navigate(r.needs_onboarding ? `/onboarding?next=${encodeURIComponent(next)}` : next, { replace: true });
      } catch (e) {
        setError(e instanceof ApiError ? e.detail : String(e));
      }
    })();
  }, [navigate, refresh]);
  return (
    <section className="stack">
      <h1>{error ? 'Not signed in' : 'Signing in'}</h1>
      {error ? (
        <>
          <ErrorBox error={error} />
          <p>
            <Link to="/signin">Back to sign in</Link>
          </p>
        </>
      ) : (
        <Loading what="Signing you in" />
      )}
    </section>
  );
}
