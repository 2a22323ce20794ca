import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../api';
import type { Artifact, JobStarted, RunListItem, WorldListItem } from '../api-types';
import { useAction, useList, useTitle } from '../hooks';
import { DataTable } from '../table';
import { ErrorBox, PageHead, when } from '../ui';

/** Dataset exports and world bundles: create, list, download. */
export default function Exports() {
  useTitle('Exports and artifacts');
  const artifacts = useList<Artifact>('/v1/artifacts');
  const runs = useList<RunListItem>('/v1/runs');
  const worlds = useList<WorldListItem>('/v1/worlds');
  const [runIds, setRunIds] = useState<string[]>([]);
  const [splits, setSplits] = useState<string[]>(['train']);
  const [verified, setVerified] = useState(true);
  const [wv, setWv] = useState('');
  const [job, setJob] = useState<string | null>(null);
  const act = useAction();
  const flip = (xs: string[], x: string) => (xs.includes(x) ? xs.filter((y) => y !== x) : [...xs, x]);
  const exportRuns = async (e: FormEvent) => {
    e.preventDefault();
    const r = await act.run(() =>
      api<JobStarted>('POST', '/v1/dataset-exports', { run_ids: runIds, splits, verified_only: verified }),
    );
    if (r) setJob(r.job_id ?? null);
    artifacts.reload();
  };
  const bundle = async (e: FormEvent) => {
    e.preventDefault();
    const r = await act.run(() => api<JobStarted>('POST', `/v1/world-versions/${wv}/bundle`, {}));
    if (r) setJob(r.job_id ?? null);
    artifacts.reload();
  };
  return (
    <>
      <PageHead title="Exports and artifacts">
        <button type="button" onClick={artifacts.reload}>
          Refresh
        </button>
      </PageHead>
      <ErrorBox error={act.error} />
      {job ? (
        <p className="notice" role="status">
          Started job <Link to={`/jobs/${job}`}>{job}</Link>; its artifact appears below when it ends.
        </p>
      ) : null}
      <div className="two">
        <form className="stack" onSubmit={(e) => void exportRuns(e)}>
          <h2>Export a training dataset</h2>
          <fieldset>
            <legend>Runs</legend>
            {(runs.data ?? []).slice(0, 50).map((r) => (
              <label key={r.run_id} style={{ display: 'block' }}>
                <input
                  type="checkbox"
                  checked={runIds.includes(r.run_id)}
                  onChange={() => setRunIds((xs) => flip(xs, r.run_id))}
                />{' '}
                <span className="mono">{r.run_id}</span> ({r.status})
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>Splits</legend>
            {['train', 'dev'].map((s) => (
              <label key={s} style={{ marginRight: '1rem' }}>
                <input type="checkbox" checked={splits.includes(s)} onChange={() => setSplits((xs) => flip(xs, s))} />{' '}
                {s}
              </label>
            ))}
          </fieldset>
          <label>
            <input type="checkbox" checked={verified} onChange={(e) => setVerified(e.target.checked)} /> Only verified
            (successful) episodes
          </label>
          <div>
            <button type="submit" className="primary" disabled={act.busy || runIds.length === 0}>
              Export
            </button>
          </div>
        </form>
        <form className="stack" onSubmit={(e) => void bundle(e)}>
          <h2>Bundle a world version</h2>
          <label className="field">
            <span>World version</span>
            <select value={wv} onChange={(e) => setWv(e.target.value)} required>
              <option value="">choose</option>
              {(worlds.data ?? []).flatMap((w) =>
                (w.versions ?? []).map((v) => (
                  <option key={v.id} value={v.id}>
                    {w.name} v{v.version}
                  </option>
                )),
              )}
            </select>
          </label>
          <div>
            <button type="submit" disabled={act.busy || !wv}>
              Create bundle
            </button>
          </div>
        </form>
      </div>
      <h2>Artifacts</h2>
      <ErrorBox error={artifacts.error} />
      <DataTable
        rows={artifacts.data}
        rowKey={(a) => a.id}
        empty="No artifacts yet."
        columns={[
          { head: 'Artifact', cell: (a) => a.name ?? a.id, className: 'mono' },
          { head: 'Kind', cell: (a) => a.kind },
          { head: 'Size', cell: (a) => a.bytes ?? a.size_bytes ?? '—' },
          { head: 'Created', cell: (a) => when(a.created_at) },
          {
            head: 'Download',
            cell: (a) => (
              <a href={`/v1/artifacts/${a.id}/download`} download>
                Download <span className="mono">{a.id.slice(0, 12)}</span>
              </a>
            ),
          },
        ]}
      />
    </>
  );
}
