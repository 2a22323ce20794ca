import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api } from '../api';
import type { Application, JobView, Schema } from '../api-types';
import { useAction, useApi, useList, useTitle } from '../hooks';
import { DataTable } from '../table';
import { ErrorBox, PageHead, Status, when } from '../ui';

/** `POST /v1/applications/import-catalog`: what was registered and what was skipped, and why. */
interface CatalogImport {
  registered?: Application[];
  skipped?: Array<{ name: string; reason: string }>;
}

type Kind = 'git' | 'upload' | 'local_path';

/** Applications: list, register (git, upload, local path), import the catalog, delete, build a world. */
export default function Applications() {
  useTitle('Applications');
  const apps = useList<Application>('/v1/applications');
  const jobs = useApi<JobView[]>('/v1/jobs', 4000);
  const act = useAction();
  const navigate = useNavigate();
  const [imported, setImported] = useState<string | null>(null);
  const [target, setTarget] = useState(4);

  const importCatalog = async () => {
    const r = await act.run(() => api<CatalogImport>('POST', '/v1/applications/import-catalog'));
    if (r) {
      const skipped = (r.skipped ?? []).map((x) => `${x.name}: ${x.reason}`);
      setImported(
        `Imported ${(r.registered ?? []).length} application(s) from the catalog.` +
          (skipped.length ? ` Skipped ${skipped.join('; ')}.` : ''),
      );
      apps.reload();
    }
  };
  const build = async (appId: string) => {
    const r = await act.run(() =>
      api<Schema<'WorldBuildAccepted'>>('POST', '/v1/world-builds', { application_id: appId, scenario_target: target }),
    );
    if (r) navigate(`/jobs/${r.job_id}`);
  };
  const remove = async (app: Application) => {
    if (!window.confirm(`Delete the application ${app.name}?`)) return;
    if (await act.run(() => api('DELETE', `/v1/applications/${app.id}`))) apps.reload();
  };
  const builds = (jobs.data ?? []).filter((j) => j.kind === 'world_build');
  return (
    <>
      <PageHead title="Applications">
        <button type="button" onClick={() => void importCatalog()} disabled={act.busy}>
          Import the catalog
        </button>
      </PageHead>
      {imported ? (
        <div className="notice" role="status">
          {imported}
        </div>
      ) : null}
      <ErrorBox error={act.error ?? apps.error} />
      <label className="field" style={{ maxWidth: '16rem' }}>
        <span>Scenarios per build</span>
        <input type="number" min={1} max={30} value={target} onChange={(e) => setTarget(Number(e.target.value))} />
      </label>
      <DataTable
        rows={apps.data}
        rowKey={(a) => a.id}
        empty="No applications yet: import the catalog or register one below."
        columns={[
          {
            head: 'Name',
            cell: (a) => (
              <>
                <strong>{a.name}</strong>
                <div className="muted">{(a.notes ?? '').slice(0, 140)}</div>
              </>
            ),
          },
          {
            head: 'Source',
            cell: (a) =>
              `${a.source.kind ?? ''}${a.source.url ? ` ${a.source.url}` : ''}${a.source.path ? ` ${a.source.path}` : ''}`,
          },
          { head: 'Created', cell: (a) => when(a.created_at) },
          {
            head: 'Actions',
            cell: (a) => (
              <div className="actions">
                <button
                  type="button"
                  onClick={() => void build(a.id)}
                  disabled={act.busy}
                  aria-label={`Build world from ${a.name}`}
                >
                  Build world
                </button>
                <button type="button" className="danger" onClick={() => void remove(a)} aria-label={`Delete ${a.name}`}>
                  Delete
                </button>
              </div>
            ),
          },
        ]}
      />
      <h2>Builds</h2>
      {builds.length === 0 ? (
        <p className="muted">No builds yet.</p>
      ) : (
        <ul>
          {builds.map((j) => (
            <li key={j.id}>
              <Link className="mono" to={`/jobs/${j.id}`}>
                {j.id}
              </Link>{' '}
              <Status value={j.status} /> {(j.completed_phases ?? []).length} phases done, {when(j.created_at)}
            </li>
          ))}
        </ul>
      )}
      <Register onDone={apps.reload} />
    </>
  );
}

/** The registration form: a git commit, an uploaded archive, or a folder on the server. */
function Register({ onDone }: { onDone: () => void }) {
  const [kind, setKind] = useState<Kind>('git');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [commit, setCommit] = useState('');
  const [path, setPath] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [notes, setNotes] = useState('');
  const act = useAction();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const source = kind === 'git' ? { kind, url, commit } : kind === 'local_path' ? { kind, path } : { kind };
    const ok = await act.run(async () => {
      const app = await api<Application>('POST', '/v1/applications', { name, source, notes });
      if (kind === 'upload' && file) {
        const form = new FormData();
        form.append('file', file);
        await api('POST', `/v1/applications/${app.id}/source`, form);
      }
      return app;
    });
    if (ok) {
      setName('');
      onDone();
    }
  };
  return (
    <section aria-labelledby="reg-h">
      <h2 id="reg-h">Register an application</h2>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <label className="field">
          <span>Name</span>
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <label className="field">
          <span>Source</span>
          <select value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
            <option value="git">Git repository at a commit</option>
            <option value="upload">Upload an archive</option>
            <option value="local_path">Folder on the server</option>
          </select>
        </label>
        {kind === 'git' ? (
          <>
            <label className="field">
              <span>Repository URL</span>
              <input value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://…" />
            </label>
            <label className="field">
              <span>Commit (full id)</span>
              <input
                value={commit}
                onChange={(e) => setCommit(e.target.value)}
                required
                pattern="[0-9a-f]{40}|[0-9a-f]{64}"
              />
            </label>
          </>
        ) : kind === 'local_path' ? (
          <label className="field">
            <span>Path (inside the server's source roots)</span>
            <input value={path} onChange={(e) => setPath(e.target.value)} required />
          </label>
        ) : (
          <label className="field">
            <span>Archive (.tar.gz or .zip)</span>
            <input type="file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} required />
          </label>
        )}
        <label className="field">
          <span>Notes</span>
          <textarea value={notes} onChange={(e) => setNotes(e.target.value)} />
        </label>
        <ErrorBox error={act.error} />
        <div>
          <button className="primary" type="submit" disabled={act.busy}>
            Register
          </button>
        </div>
      </form>
    </section>
  );
}
