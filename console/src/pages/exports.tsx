import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../api';
import { useAction, useList, useTitle } from '../hooks';
import { ErrorBox, Loading, PageHead, when } from '../ui';

/** Dataset exports and world bundles: create, list, download. */
export default function Exports() {
  useTitle('Exports and artifacts');
  const artifacts = useList<any>('/v1/artifacts');
  const runs = useList<any>('/v1/runs');
  const worlds = useList<any>('/v1/worlds');
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
      api('POST', '/v1/dataset-exports', { run_ids: runIds, splits, verified_only: verified }),
    );
    if (r) setJob(r.job_id ?? null);
    artifacts.reload();
  };
  const bundle = async (e: FormEvent) => {
    e.preventDefault();
    const r = await act.run(() => api('POST', `/v1/world-versions/${wv}/bundle`, {}));
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
                (w.versions ?? []).map((v: any) => (
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
      {!artifacts.data ? (
        <Loading />
      ) : artifacts.data.length === 0 ? (
        <p className="muted">No artifacts yet.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Artifact</th>
                <th scope="col">Kind</th>
                <th scope="col">Size</th>
                <th scope="col">Created</th>
                <th scope="col">Download</th>
              </tr>
            </thead>
            <tbody>
              {artifacts.data.map((a) => (
                <tr key={a.id}>
                  <td className="mono">{a.name ?? a.id}</td>
                  <td>{a.kind}</td>
                  <td>{a.bytes ?? a.size_bytes ?? '—'}</td>
                  <td>{when(a.created_at)}</td>
                  <td>
                    <a href={`/v1/artifacts/${a.id}/download`} download>
                      Download <span className="mono">{a.id.slice(0, 12)}</span>
                    </a>
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
