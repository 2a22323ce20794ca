import { useState, type FormEvent } from 'react';
import { api } from '../api';
import type { Schema } from '../api-types';
import { useAction, useList, useTitle } from '../hooks';
import { DataTable } from '../table';
import { ErrorBox, PageHead, ShownOnce, when } from '../ui';

type Key = Schema<'ApiKey'>;

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
  const keys = useList<Key>('/v1/api-keys');
  const [name, setName] = useState('');
  const [choice, setChoice] = useState(1);
  const [created, setCreated] = useState<Schema<'ApiKeyCreated'> | null>(null);
  const act = useAction();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    const r = await act.run(() =>
      api<Schema<'ApiKeyCreated'>>('POST', '/v1/api-keys', { name, scopes: SCOPE_CHOICES[choice]!.scopes }),
    );
    if (r) {
      setCreated(r);
      setName('');
      keys.reload();
    }
  };
  const revoke = async (k: Key) => {
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
        <ShownOnce value={created.api_key} testId="new-key" copyLabel="Copy key" onDone={() => setCreated(null)}>
          <strong>Copy this key now: it is shown only once.</strong> {created.note}
        </ShownOnce>
      ) : null}
      <DataTable
        rows={keys.data}
        rowKey={(k) => k.id ?? k.prefix}
        columns={[
          { head: 'Name', cell: (k) => k.name },
          { head: 'Prefix', cell: (k) => k.prefix, className: 'mono' },
          { head: 'Access', cell: (k) => scopeName(k.scopes ?? []) },
          { head: 'Created', cell: (k) => when(k.created_at) },
          { head: 'Last used', cell: (k) => when(k.last_used_at) },
          {
            head: 'Actions',
            cell: (k) => (
              <button type="button" className="danger" onClick={() => void revoke(k)} aria-label={`Revoke ${k.name}`}>
                Revoke
              </button>
            ),
          },
        ]}
      />
    </>
  );
}
