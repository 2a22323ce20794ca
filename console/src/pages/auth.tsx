import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { ApiError, api } from '../api';
import { useAction, useApi, useTitle } from '../hooks';
import { useSession } from '../session';
import { ErrorBox } from '../ui';
import { IdpButton } from './idp';

export { IdpCallback } from './idp';

/** Where to go after signing in: the `next` of the address when it is a console path. */
function useNext(): string {
  const [params] = useSearchParams();
  const next = params.get('next') ?? '/';
  return next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

function Field(props: {
  label: string;
  name: string;
  type?: string;
  value: string;
  onChange: (v: string) => void;
  autoComplete?: string;
  minLength?: number;
}) {
  return (
    <label className="field">
      <span>{props.label}</span>
      <input
        name={props.name}
        type={props.type ?? 'text'}
        required
        value={props.value}
        minLength={props.minLength}
        autoComplete={props.autoComplete}
        onChange={(e) => props.onChange(e.target.value)}
      />
    </label>
  );
}

/** Sign in with e-mail and password (and the identity provider's button when the server has one). */
export function SignIn() {
  useTitle('Sign in');
  const next = useNext();
  const navigate = useNavigate();
  const { refresh } = useSession();
  const health = useApi<{ signup: string; idp_client_id: string | null; idp_authorization_url?: string | null }>(
    '/v1/health',
  );
  const clientId = health.data?.idp_client_id;
  const authorizationUrl = health.data?.idp_authorization_url;
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const act = useAction();
  const done = async () => {
    await refresh();
    navigate(next, { replace: true });
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (await act.run(() => api('POST', '/v1/auth/login', { email, password }))) await done();
  };
  return (
    <section className="stack">
      <h1>Sign in</h1>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <Field label="E-mail" name="email" type="email" value={email} onChange={setEmail} autoComplete="username" />
        <Field
          label="Password"
          name="password"
          type="password"
          value={password}
          onChange={setPassword}
          autoComplete="current-password"
        />
        <ErrorBox error={act.error} />
        <div>
          <button className="primary" type="submit" disabled={act.busy}>
            Sign in
          </button>
        </div>
      </form>
      {clientId && authorizationUrl ? (
        <IdpButton authorizationUrl={authorizationUrl} clientId={clientId} next={next} />
      ) : null}
      {health.data?.signup !== 'closed' ? (
        <p>
          New here? <Link to={`/signup?next=${encodeURIComponent(next)}`}>Create an account</Link>
        </p>
      ) : null}
    </section>
  );
}

/** Create an account (name, e-mail, password of at least 10 characters); onboarding follows. */
export function SignUp() {
  useTitle('Sign up');
  const next = useNext();
  const navigate = useNavigate();
  const { refresh } = useSession();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const act = useAction();
  const [taken, setTaken] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTaken(false);
    // Sign-up signs the browser in (201 with the session cookie); an address with an account answers 409.
    const session = await act.run(async () => {
      try {
        return await api<{ needs_onboarding: boolean }>('POST', '/v1/auth/signup', { name, email, password });
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) setTaken(true);
        throw err;
      }
    });
    if (!session) return;
    await refresh();
    // Someone who came to accept an invitation joins that workspace instead of making one.
    const onboard = session.needs_onboarding && !next.startsWith('/invite');
    navigate(onboard ? `/onboarding?next=${encodeURIComponent(next)}` : next, { replace: true });
  };
  return (
    <section className="stack">
      <h1>Create an account</h1>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <Field label="Your name" name="name" value={name} onChange={setName} autoComplete="name" />
        <Field label="E-mail" name="email" type="email" value={email} onChange={setEmail} autoComplete="username" />
        <Field
          label="Password (at least 10 characters)"
          name="password"
          type="password"
          value={password}
          onChange={setPassword}
          autoComplete="new-password"
          minLength={10}
        />
        {taken ? (
          <div className="error" role="alert">
            This address already has an account.{' '}
            <Link to={`/signin?next=${encodeURIComponent(next)}`}>Sign in with its password</Link>, or use another
            address. An account made with <code>crucible admin create-workspace</code> has no password until you open
            the link that command printed (or ask the server's operator for a new one).
          </div>
        ) : (
          <ErrorBox error={act.error} />
        )}
        <div>
          <button className="primary" type="submit" disabled={act.busy}>
            Create account
          </button>
        </div>
      </form>
      <p>
        Have an account? <Link to={`/signin?next=${encodeURIComponent(next)}`}>Sign in</Link>
      </p>
    </section>
  );
}

/** First steps after sign-up: name the organization and its first project. */
export function Onboarding() {
  useTitle('Set up your workspace');
  const next = useNext();
  const navigate = useNavigate();
  const { me, checking, refresh } = useSession();
  const [organization, setOrganization] = useState('');
  const [project, setProject] = useState('default');
  const act = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!(await act.run(() => api('POST', '/v1/onboarding/workspace', { organization, project })))) return;
    await refresh();
    navigate(next === '/onboarding' ? '/' : next, { replace: true });
  };
  if (!me && !checking) return <Navigate to={`/signin?next=${encodeURIComponent(next)}`} replace />;
  if (me && !me.needs_onboarding)
    return (
      <p>
        Your workspace is ready. <Link to={next}>Continue</Link>
      </p>
    );
  return (
    <section className="stack">
      <h1>Set up your workspace</h1>
      <p>Everything you build and run lives in a project of an organization.</p>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <Field label="Organization" name="organization" value={organization} onChange={setOrganization} />
        <Field label="First project" name="project" value={project} onChange={setProject} />
        <ErrorBox error={act.error} />
        <div>
          <button className="primary" type="submit" disabled={act.busy}>
            Create workspace
          </button>
        </div>
      </form>
    </section>
  );
}

/**
 * The token of a one-time link, from the address's fragment (`#token=…`), which the
 * browser never sends to a server. It is kept in this tab's storage under `key` and taken
 * off the address bar, so it survives a detour through sign-in and is not left in history.
 */
function useLinkToken(key: string): string | null {
  const [token] = useState<string | null>(() => {
    const m = /(?:^#|&)token=([0-9A-Za-z]+)/.exec(window.location.hash);
    if (m) {
      sessionStorage.setItem(key, m[1]!);
      window.history.replaceState(null, '', window.location.pathname + window.location.search);
      return m[1]!;
    }
    return sessionStorage.getItem(key);
  });
  return token;
}

/** Sets the password of an account made by the operator, with the link `crucible admin` printed, and signs in. */
export function SetPassword() {
  useTitle('Set your password');
  const navigate = useNavigate();
  const { refresh } = useSession();
  const token = useLinkToken('crucible:password-link');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const act = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setMismatch(password !== again);
    if (password !== again || !token) return;
    const r = await act.run(() => api<{ needs_onboarding: boolean }>('POST', '/v1/auth/password', { token, password }));
    if (!r) return;
    sessionStorage.removeItem('crucible:password-link');
    await refresh();
    navigate(r.needs_onboarding ? '/onboarding' : '/', { replace: true });
  };
  if (!token)
    return (
      <section className="stack">
        <h1>Set your password</h1>
        <p className="error" role="alert">
          This page needs the whole link the operator gave you (it ends with <code>#token=…</code>).
        </p>
      </section>
    );
  return (
    <section className="stack">
      <h1>Set your password</h1>
      <p>Choose the password of your account. The link works once; then you sign in with the password.</p>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <Field
          label="New password (at least 10 characters)"
          name="password"
          type="password"
          value={password}
          onChange={setPassword}
          autoComplete="new-password"
          minLength={10}
        />
        <Field
          label="Repeat the password"
          name="again"
          type="password"
          value={again}
          onChange={setAgain}
          autoComplete="new-password"
          minLength={10}
        />
        <ErrorBox error={mismatch ? 'The two passwords differ.' : act.error} />
        <div>
          <button className="primary" type="submit" disabled={act.busy}>
            Set password and sign in
          </button>
        </div>
      </form>
    </section>
  );
}

/** Accepts an invitation into a project: sign in (or up) with the invited address, then join. */
export function AcceptInvitation() {
  useTitle('Join a workspace');
  const navigate = useNavigate();
  const { me, checking, refresh } = useSession();
  const token = useLinkToken('crucible:invitation');
  const act = useAction();
  const accept = async () => {
    if (!token) return;
    if (!(await act.run(() => api('POST', '/v1/invitations/accept', { token })))) return;
    sessionStorage.removeItem('crucible:invitation');
    await refresh();
    navigate('/', { replace: true });
  };
  if (!token)
    return (
      <section className="stack">
        <h1>Join a workspace</h1>
        <p className="error" role="alert">
          This page needs the whole invitation link (it ends with <code>#token=…</code>).
        </p>
      </section>
    );
  if (checking) return null;
  if (!me)
    return (
      <section className="stack">
        <h1>Join a workspace</h1>
        <p>
          You were invited into a project. Sign in with the e-mail address the invitation was sent to, or create an
          account with it, then come back here.
        </p>
        <p className="row">
          <Link className="button primary" to="/signin?next=%2Finvite">
            Sign in
          </Link>
          <Link className="button" to="/signup?next=%2Finvite">
            Create an account
          </Link>
        </p>
      </section>
    );
  return (
    <section className="stack">
      <h1>Join a workspace</h1>
      <p>
        You are signed in as <strong>{me.user?.email}</strong>. The invitation must be for this address.
      </p>
      <ErrorBox error={act.error} />
      <div>
        <button className="primary" type="button" disabled={act.busy} onClick={() => void accept()}>
          Join the project
        </button>
      </div>
    </section>
  );
}
