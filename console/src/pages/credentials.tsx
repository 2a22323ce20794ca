import { useState, type FormEvent } from 'react';
import { api } from '../api';
import type { Credential } from '../api-types';
import { useAction, useList, useTitle } from '../hooks';
import { ErrorBox, Loading, PageHead } from '../ui';

/** Credentials: names of secrets the server reads from its environment (model providers, applications, training). */
export default function Credentials() {
  useTitle('Credentials');
  const creds = useList<Credential>('/v1/credentials');
  const [name, setName] = useState('');
  const [kind, setKind] = useState('model_provider');
  const [envVar, setEnvVar] = useState('');
  const act = useAction();
  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (await act.run(() => api('POST', '/v1/credentials', { name, kind, env_var: envVar }))) {
      setName('');
      setEnvVar('');
      creds.reload();
    }
  };
  const remove = async (c: Credential) => {
    if (await act.run(() => api('DELETE', `/v1/credentials/${c.id}`))) creds.reload();
  };
  return (
    <>
      <PageHead title="Credentials" />
      <p className="muted">
        A credential names an environment variable on the server; its value never passes through the console.
      </p>
      <form className="row" onSubmit={(e) => void create(e)}>
        <label className="field">
          <span>Name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <label className="field">
          <span>Kind</span>
          <select value={kind} onChange={(e) => setKind(e.target.value)}>
            <option value="model_provider">model provider</option>
            <option value="application">application</option>
            <option value="training">training</option>
          </select>
        </label>
        <label className="field">
          <span>Environment variable</span>
          <input value={envVar} onChange={(e) => setEnvVar(e.target.value)} required pattern="[A-Za-z_][A-Za-z0-9_]*" />
        </label>
        <button className="primary" type="submit" disabled={act.busy}>
          Add
        </button>
      </form>
      <ErrorBox error={act.error ?? creds.error} />
      {!creds.data ? (
        <Loading />
      ) : creds.data.length === 0 ? (
        <p className="muted">No credentials yet.</p>
      ) : (
        <ul>
          {creds.data.map((c) => (
            <li key={c.id}>
              <strong>{c.name}</strong> ({c.kind}) <code>{c.env_var}</code>{' '}
              <button type="button" className="danger" onClick={() => void remove(c)} aria-label={`Delete ${c.name}`}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
