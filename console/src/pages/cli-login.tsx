import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { api } from '../api';
import type { CliLoginRequest } from '../api-types';
import { useAction, useApi, useTitle } from '../hooks';
import { ErrorBox, Facts, Loading, PageHead, Status, when } from '../ui';

/**
 * The page `crucible login` sends people to (`/cli/login?code=XXXX-XXXX`): it shows which
 * terminal asks (its name, address and browser-less user agent) and for which workspace, and
 * lets an owner or admin approve or deny. Approval gives the terminal a "Build and evaluate" key.
 */
export default function CliLogin() {
  useTitle('Approve a terminal sign-in');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const code = params.get('code') ?? '';
  const [typed, setTyped] = useState(code);
  const req = useApi<CliLoginRequest>(code ? `/v1/cli/logins/${encodeURIComponent(code)}` : null);
  const act = useAction();
  const [decided, setDecided] = useState<CliLoginRequest | null>(null);
  const decide = async (d: 'approve' | 'deny') => {
    const r = await act.run(() => api<CliLoginRequest>('POST', `/v1/cli/logins/${encodeURIComponent(code)}/${d}`));
    if (r) setDecided(r);
  };
  const lookUp = (e: FormEvent) => {
    e.preventDefault();
    navigate(`/cli/login?code=${encodeURIComponent(typed.trim().toUpperCase())}`);
  };
  const r = decided ?? req.data;
  return (
    <>
      <PageHead title="Approve a terminal sign-in" />
      <form className="row" onSubmit={lookUp}>
        <label className="field">
          <span>Code shown in the terminal</span>
          <input value={typed} onChange={(e) => setTyped(e.target.value)} required placeholder="ABCD-EFGH" />
        </label>
        <button type="submit">Look up</button>
      </form>
      <ErrorBox error={act.error ?? req.error} />
      {code && !r && !req.error ? <Loading /> : null}
      {r ? (
        <section aria-labelledby="req-h">
          <h2 id="req-h">
            Request <span className="mono">{r.user_code}</span>
          </h2>
          <p>Check that the terminal shows this same code before you approve.</p>
          <Facts
            items={[
              ['Status', <Status value={r.status} />],
              ['Terminal', r.client || '(unnamed)'],
              ['From address', r.client_address],
              ['Program', r.user_agent],
              ['Workspace', `${r.workspace?.organization} / ${r.workspace?.project}`],
              ['Asked', when(r.created_at)],
              ['Expires', when(r.expires_at)],
            ]}
          />
          {r.status === 'pending' ? (
            r.can_decide ? (
              <div className="actions">
                <button className="primary" type="button" disabled={act.busy} onClick={() => void decide('approve')}>
                  Approve
                </button>
                <button className="danger" type="button" disabled={act.busy} onClick={() => void decide('deny')}>
                  Deny
                </button>
              </div>
            ) : (
              <p className="muted">Only an owner or admin of this workspace can approve it.</p>
            )
          ) : (
            <p role="status">
              {r.status === 'approved'
                ? 'Approved: the terminal now holds its key. You can close this page.'
                : `This request is ${r.status}.`}
            </p>
          )}
        </section>
      ) : null}
    </>
  );
}
