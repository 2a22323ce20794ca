import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { Run } from '../api-types';
import { useList, useTitle } from '../hooks';
import { ErrorBox, Loading, PageHead, Status, usd, when } from '../ui';

/** Every run of the project, newest first, refreshed while any is live; pick two to compare. */
export default function Runs() {
  useTitle('Runs');
  const runs = useList<Run>('/v1/runs');
  const [picked, setPicked] = useState<string[]>([]);
  const navigate = useNavigate();
  const toggle = (id: string) =>
    setPicked((xs) => (xs.includes(id) ? xs.filter((x) => x !== id) : [...xs.slice(-1), id]));
  return (
    <>
      <PageHead title="Runs">
        <button
          type="button"
          disabled={picked.length !== 2}
          onClick={() => navigate(`/compare?run_a=${picked[0]}&run_b=${picked[1]}`)}
        >
          Compare the two chosen
        </button>
        <button type="button" onClick={runs.reload}>
          Refresh
        </button>
        <Link className="button primary" to="/runs/new">
          Start an evaluation
        </Link>
      </PageHead>
      <ErrorBox error={runs.error} />
      {!runs.data ? (
        <Loading />
      ) : runs.data.length === 0 ? (
        <p className="muted">
          No runs yet. <Link to="/runs/new">Start an evaluation</Link>.
        </p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Compare</th>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Profiles</th>
                <th scope="col">Episodes</th>
                <th scope="col">Cost</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.map((r) => {
                const id = r.run_id ?? r.id;
                return (
                  <tr key={id}>
                    <td>
                      <input
                        type="checkbox"
                        checked={picked.includes(id)}
                        onChange={() => toggle(id)}
                        aria-label={`Choose ${id} to compare`}
                      />
                    </td>
                    <td>
                      <Link className="mono" to={`/runs/${id}`}>
                        {id}
                      </Link>
                    </td>
                    <td>
                      <Status value={r.status} />
                    </td>
                    <td>{(r.profiles ?? []).map((p) => p.label).join(', ')}</td>
                    <td>
                      {r.summary?.episodes?.finished ?? 0} / {r.summary?.episodes?.planned ?? r.episodes}
                    </td>
                    <td>{usd(r.summary?.cost_usd ?? r.spent_usd)}</td>
                    <td>{when(r.created_at)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
