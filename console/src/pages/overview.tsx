import { Link } from 'react-router';
import type { Dashboard, JobView } from '../api-types';
import { useApi, useTitle } from '../hooks';
import { ErrorBox, Loading, PageHead, pct, Status, usd, when } from '../ui';

/** GET /v1/dashboard: usage against allowance, recent runs and builds, and what needs attention. */
export default function Overview() {
  useTitle('Overview');
  const dash = useApi<Dashboard>('/v1/dashboard', 5000);
  const jobs = useApi<JobView[]>('/v1/jobs', 5000);
  if (!dash.data) return dash.error ? <ErrorBox error={dash.error} /> : <Loading />;
  const d = dash.data;
  const usage = d.usage ?? {};
  const allowance: number | null = usage.allowance_usd ?? null;
  const used = allowance ? Math.min(1, (usage.spent_usd ?? 0) / allowance) : 0;
  const counts: Record<string, number> = d.counts ?? {};
  const builds = (jobs.data ?? []).filter((j) => j.kind === 'world_build').slice(0, 5);
  const attention: Array<{ key: string; text: string; to: string }> = [];
  for (const r of d.recent_runs ?? [])
    if (['failed', 'paused'].includes(r.status))
      attention.push({ key: r.run_id, text: `Run ${r.run_id} is ${r.status}`, to: `/runs/${r.run_id}` });
  for (const j of jobs.data ?? [])
    if (j.kind === 'world_build' && ['failed', 'paused'].includes(j.status))
      attention.push({
        key: j.id,
        text: `Build ${j.id} is ${j.status}${j.error ? `: ${j.error}` : ''}`,
        to: `/jobs/${j.id}`,
      });
  if (allowance !== null && used >= 0.8)
    attention.push({ key: 'allowance', text: `${pct(used)} of this month's allowance is spent`, to: '/billing' });
  if (d.attention && Array.isArray(d.attention))
    for (const [i, a] of d.attention.entries())
      attention.push({
        key: `srv${i}`,
        text: typeof a === 'string' ? a : (a.summary ?? a.detail ?? JSON.stringify(a)),
        to: '/',
      });
  return (
    <>
      <PageHead title="Overview">
        <Link className="button primary" to="/runs/new">
          Start an evaluation
        </Link>
      </PageHead>
      <ErrorBox error={dash.error} />
      {counts.applications === 0 ? (
        <div className="notice">
          Nothing here yet. <Link to="/applications">Import the catalog</Link> of sample applications, build a world
          from one, then start an evaluation.
        </div>
      ) : null}
      <section aria-labelledby="usage-h">
        <h2 id="usage-h">Usage in {usage.month ?? 'this month'}</h2>
        <p>
          {usd(usage.spent_usd)} spent of {allowance === null ? 'an unlimited allowance' : usd(allowance)} on the{' '}
          <strong>{d.plan?.title ?? d.plan?.name ?? 'current'}</strong> plan
          {usage.renews ? `; renews ${when(usage.renews)}` : ''}.
        </p>
        {allowance !== null ? (
          <div
            className="bar"
            role="progressbar"
            aria-label="Allowance used"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Math.round(used * 100)}
          >
            <span style={{ width: `${used * 100}%` }} />
          </div>
        ) : null}
      </section>
      <section aria-labelledby="counts-h">
        <h2 id="counts-h">Workspace</h2>
        <dl className="facts">
          {Object.entries(counts).map(([k, v]) => (
            <div key={k}>
              <dt>{k.replace(/_/g, ' ')}</dt>
              <dd>{v}</dd>
            </div>
          ))}
          {Object.entries(d.runs_by_status ?? {}).map(([k, v]) => (
            <div key={`r-${k}`}>
              <dt>runs {k}</dt>
              <dd>{String(v)}</dd>
            </div>
          ))}
        </dl>
      </section>
      <section aria-labelledby="att-h">
        <h2 id="att-h">Needs attention</h2>
        {attention.length === 0 ? (
          <p className="muted">Nothing needs attention.</p>
        ) : (
          <ul>
            {attention.map((a) => (
              <li key={a.key}>
                <Link to={a.to}>{a.text}</Link>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="runs-h">
        <h2 id="runs-h">Recent runs</h2>
        {(d.recent_runs ?? []).length === 0 ? (
          <p className="muted">
            No runs yet. <Link to="/runs/new">Start an evaluation</Link>.
          </p>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>Run</th>
                  <th>Status</th>
                  <th>Profiles</th>
                  <th>Episodes</th>
                  <th>Created</th>
                </tr>
              </thead>
              <tbody>
                {(d.recent_runs ?? []).map((r) => (
                  <tr key={r.run_id}>
                    <td>
                      <Link className="mono" to={`/runs/${r.run_id}`}>
                        {r.run_id}
                      </Link>
                    </td>
                    <td>
                      <Status value={r.status} />
                    </td>
                    <td>{(r.profiles ?? []).map((p) => p.label).join(', ')}</td>
                    <td>
                      {r.summary?.episodes?.finished ?? 0} / {r.summary?.episodes?.planned ?? r.episodes}
                    </td>
                    <td>{when(r.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="builds-h">
        <h2 id="builds-h">Recent builds</h2>
        <ErrorBox error={jobs.error} />
        {builds.length === 0 ? (
          <p className="muted">No builds yet.</p>
        ) : (
          <ul>
            {builds.map((j) => (
              <li key={j.id}>
                <Link className="mono" to={`/jobs/${j.id}`}>
                  {j.id}
                </Link>{' '}
                <Status value={j.status} /> {when(j.created_at)}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
