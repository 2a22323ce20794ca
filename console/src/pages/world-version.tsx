import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../api';
import type { JobStarted, ScenarioView, WorldVersion as WorldVersionRecord } from '../api-types';
import { useAction, useApi, useList, useTitle } from '../hooks';
import { ErrorBox, Facts, Json, Loading, PageHead, Status, when } from '../ui';

/** A world version: manifest (services, roles, tools), validation report, scenarios by split and status. */
export default function WorldVersion() {
  const { id = '' } = useParams();
  useTitle(`World version ${id}`);
  const wv = useApi<WorldVersionRecord>(`/v1/world-versions/${id}`);
  const scenarios = useList<ScenarioView>(`/v1/world-versions/${id}/scenarios`);
  const act = useAction();
  const navigate = useNavigate();
  const [split, setSplit] = useState('');
  const [status, setStatus] = useState('');
  if (!wv.data) return wv.error ? <ErrorBox error={wv.error} /> : <Loading />;
  const v = wv.data;
  const m = v.manifest ?? {};
  const validate = async () => {
    const r = await act.run(() => api<JobStarted>('POST', `/v1/world-versions/${id}/validate`, {}));
    if (r?.job_id) navigate(`/jobs/${r.job_id}`);
  };
  const shown = (scenarios.data ?? []).filter((s) => (!split || s.split === split) && (!status || s.status === status));
  const statuses = [...new Set((scenarios.data ?? []).map((s) => s.status))];
  return (
    <>
      <PageHead title={`${m.name ?? 'World'} version ${v.version}`}>
        <button type="button" onClick={() => void validate()} disabled={act.busy}>
          Validate
        </button>
        <Link className="button primary" to={`/runs/new?world_version_id=${id}`}>
          Evaluate on this version
        </Link>
      </PageHead>
      <ErrorBox error={act.error ?? v.error} />
      <Facts
        items={[
          ['Status', <Status value={v.status} />],
          ['Content hash', <code>{String(v.world_content_hash).slice(0, 16)}</code>],
          ['Build job', v.job_id ? <Link to={`/jobs/${v.job_id}`}>{v.job_id}</Link> : '—'],
          ['Published', when(v.published_at)],
        ]}
      />
      <p>{m.description}</p>
      <h2>Services</h2>
      <ul>
        {(m.services ?? []).map((s) => (
          <li key={s.name}>
            <strong>{s.name}</strong>{' '}
            <span className="muted">
              image {s.image}, health {s.health}
            </span>
          </li>
        ))}
      </ul>
      <h2>Roles</h2>
      {(m.roles ?? []).map((r) => (
        <details key={r.name}>
          <summary>
            <strong>{r.name}</strong>: {(r.tools ?? []).join(', ')}
          </summary>
          <p>{r.instructions}</p>
        </details>
      ))}
      <h2>Tools</h2>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Kind</th>
              <th scope="col">Call</th>
              <th scope="col">What it does</th>
            </tr>
          </thead>
          <tbody>
            {(m.tools ?? []).map((t) => (
              <tr key={t.name}>
                <td className="mono">{t.name}</td>
                <td>{t.kind}</td>
                <td className="mono">
                  {t.method} {t.path}
                </td>
                <td>{t.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Validation report</h2>
      <Json value={v.validation_report} label="Validation report" />
      <h2>Scenarios</h2>
      <div className="row">
        <label className="field">
          <span>Split</span>
          <select value={split} onChange={(e) => setSplit(e.target.value)}>
            <option value="">all</option>
            <option>train</option>
            <option>dev</option>
            <option>holdout</option>
          </select>
        </label>
        <label className="field">
          <span>Status</span>
          <select value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">all</option>
            {statuses.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </div>
      <ErrorBox error={scenarios.error} />
      <ul>
        {shown.map((s) => (
          <li key={s.id}>
            <Link to={`/scenarios/${s.id}`}>{s.specification?.title ?? s.scenario_id}</Link>{' '}
            <span className="muted">{s.split}</span> <Status value={s.status} />
          </li>
        ))}
      </ul>
    </>
  );
}
