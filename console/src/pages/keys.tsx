import { useState, type FormEvent } from 'react';
import { api } from '../api';
import { useAction, useList, useTitle } from '../hooks';
import { CopyButton, ErrorBox, Loading, PageHead, when } from '../ui';

/** The console's names for the key scopes (spec: "Read only", "Build and evaluate", "Full access"). */
export const SCOPE_CHOICES: Array<{ label: string; scopes: string[] }> = [
  { label: 'Read only', scopes: ['read'] },
  { label: 'Build and evaluate', scopes: ['write', 'evaluator'] },
  { label: 'Full access', scopes: ['admin'] },
];

function scopeName(scopes: string[]): string {
  const key = [...scopes].sort().join(',');
  return SCOPE_CHOICES.find((c) => [...c.scopes].sort().join(',') === key)?.label ?? scopes.join(', ');
}

/** API keys: create one with a console scope name (shown once, with a copy button), list and revoke. */
export default function Keys() {
  useTitle('API keys');
  const keys = useList<any>('/v1/api-keys');
  const [name, setName] = useState('');
  const [choice, setChoice] = useState(1);
  const [created, setCreated] = useState<any>(null);
  const act = useAction();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const r = await act.run(() => api('POST', '/v1/api-keys', { name, scopes: SCOPE_CHOICES[choice]!.scopes }));
    if (r) {
      setCreated(r);
      setName('');
      keys.reload();
    }
  };
  const revoke = async (k: any) => {
    if (!window.confirm(`Revoke the key ${k.name}? Anything using it stops working at once.`)) return;
    if (await act.run(() => api('DELETE', `/v1/api-keys/${k.id}`))) keys.reload();
  };
  return (
    <>
      <PageHead title="API keys" />
      <form className="row" onSubmit={(e) => void create(e)}>
        <label className="field">
          <span>Key name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <label className="field">
          <span>Access</span>
          <select value={choice} onChange={(e) => setChoice(Number(e.target.value))}>
            {SCOPE_CHOICES.map((c, i) => (
              <option key={c.label} value={i}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <button className="primary" type="submit" disabled={act.busy}>
          Create key
        </button>
      </form>
      <ErrorBox error={act.error ?? keys.error} />
      {created ? (
        <div className="notice" role="status">
          <p>
            <strong>Copy this key now: it is shown only once.</strong> {created.note}
          </p>
          <p className="row">
            <code data-testid="new-key" style={{ wordBreak: 'break-all' }}>
              {created.api_key}
            </code>
            <CopyButton text={created.api_key} label="Copy key" />
            <button type="button" onClick={() => setCreated(null)}>
              Done
            </button>
          </p>
        </div>
      ) : null}
      {!keys.data ? (
        <Loading />
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Access</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((k) => (
                <tr key={k.id ?? k.prefix}>
                  <td>{k.name}</td>
                  <td className="mono">{k.prefix}</td>
                  <td>{scopeName(k.scopes ?? [])}</td>
                  <td>{when(k.created_at)}</td>
                  <td>{when(k.last_used_at)}</td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => void revoke(k)}
                      aria-label={`Revoke ${k.name}`}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
