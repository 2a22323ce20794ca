import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, apiList, ApiError, query } from '../api';
import { useList, useTitle } from '../hooks';
import { ErrorBox, Json, Loading, num, PageHead, pct, Status, succeeded } from '../ui';
import { ProfileSummary } from './profile-summary';

type Side = { run: string; profile: string };
type Verdict = 'improved' | 'regressed' | 'both pass' | 'both fail' | 'incomplete';

/** Per scenario: did every repeat of this side succeed (pass^k), from the latest attempts; null when some are not scored. */
function passAll(episodes: any[], profile: string): Map<string, boolean | null> {
  const by = new Map<string, Map<number, any>>();
  for (const e of episodes) {
    if (e.profile !== profile || e.replaced_by) continue;
    const m = by.get(e.scenario) ?? new Map<number, any>();
    const seen = m.get(e.repeat ?? 1);
    if (!seen || (e.attempt ?? 1) > (seen.attempt ?? 1)) m.set(e.repeat ?? 1, e);
    by.set(e.scenario, m);
  }
  const out = new Map<string, boolean | null>();
  for (const [s, m] of by) {
    const xs = [...m.values()].map((e) => succeeded(e));
    out.set(s, xs.some((x) => x === null) ? null : xs.every(Boolean));
  }
  return out;
}

const METRICS = ['mean_reward', 'success_rate', 'pass_at_k', 'false_completion_rate', 'duplicate_effect_rate'];

/**
 * Compare two runs on the same pinned world, or two profiles of one run: the per-scenario
 * flip map (improved and regressed under pass^k), the differences of the scores (with the
 * intervals the server gives), and the pinned-world gate explained when it refuses.
 */
export default function Compare() {
  useTitle('Compare');
  const [params, setParams] = useSearchParams();
  const runA = params.get('run_a') ?? '';
  const runB = params.get('run_b') ?? '';
  const runs = useList<any>('/v1/runs');
  const [formA, setFormA] = useState(runA);
  const [formB, setFormB] = useState(runB);
  const [result, setResult] = useState<any>(null);
  const [error, setError] = useState<{ status: number; detail: string } | null>(null);
  const [eps, setEps] = useState<Record<string, any[]>>({});
  const [a, setA] = useState<Side>({ run: '', profile: '' });
  const [b, setB] = useState<Side>({ run: '', profile: '' });

  useEffect(() => {
    setFormA(runA);
    setFormB(runB);
    setResult(null);
    setError(null);
    if (!runA) return;
    let live = true;
    api('GET', `/v1/compare${query({ run_a: runA, run_b: runB || undefined })}`)
      .then(async (r) => {
        if (!live) return;
        setResult(r);
        const ids = [runA, ...(runB ? [runB] : [])];
        const lists = await Promise.all(ids.map((id) => apiList(`/v1/runs/${id}/episodes?limit=1000`)));
        if (!live) return;
        setEps(Object.fromEntries(ids.map((id, i) => [id, lists[i]!])));
        const labels = (id: string) => Object.keys(r.runs?.[id]?.profiles ?? {});
        const la = labels(runA);
        const lb = runB ? labels(runB) : la;
        setA({ run: runA, profile: la[0] ?? '' });
        setB({
          run: runB || runA,
          profile: runB ? (lb.find((x) => la.includes(x)) ?? lb[0] ?? '') : (la[1] ?? la[0] ?? ''),
        });
      })
      .catch(
        (e: unknown) =>
          live &&
          setError(e instanceof ApiError ? { status: e.status, detail: e.detail } : { status: 0, detail: String(e) }),
      );
    return () => {
      live = false;
    };
  }, [runA, runB]);

  const flips = useMemo(() => {
    if (!a.profile || !b.profile || !eps[a.run] || !eps[b.run]) return [];
    const pa = passAll(eps[a.run]!, a.profile);
    const pb = passAll(eps[b.run]!, b.profile);
    const scenarios = [...new Set([...pa.keys(), ...pb.keys()])].sort();
    return scenarios.map((s) => {
      const x = pa.get(s);
      const y = pb.get(s);
      const v: Verdict =
        x == null || y == null
          ? 'incomplete'
          : x === y
            ? x
              ? 'both pass'
              : 'both fail'
            : y
              ? 'improved'
              : 'regressed';
      return { scenario: s, a: x, b: y, verdict: v };
    });
  }, [eps, a, b]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams();
    if (formA) next.set('run_a', formA);
    if (formB) next.set('run_b', formB);
    setParams(next);
  };
  const count = (v: Verdict) => flips.filter((f) => f.verdict === v).length;
  const blockOf = (side: Side) => result?.runs?.[side.run]?.profiles?.[side.profile];
  const ba = blockOf(a);
  const bb = blockOf(b);
  const runOptions = (runs.data ?? []).map((r) => (
    <option key={r.run_id ?? r.id} value={r.run_id ?? r.id}>
      {r.run_id ?? r.id} ({(r.profiles ?? []).map((p: any) => p.label).join(', ')}, {r.status})
    </option>
  ));
  const profileSelect = (side: Side, set: (s: Side) => void, label: string) => (
    <label className="field">
      <span>{label}</span>
      <select value={side.profile} onChange={(e) => set({ ...side, profile: e.target.value })}>
        {Object.keys(result?.runs?.[side.run]?.profiles ?? {}).map((p) => (
          <option key={p}>{p}</option>
        ))}
      </select>
    </label>
  );
  return (
    <>
      <PageHead title="Compare" />
      <form className="row" onSubmit={submit}>
        <label className="field">
          <span>Run A</span>
          <select value={formA} onChange={(e) => setFormA(e.target.value)} required>
            <option value="">choose a run</option>
            {runOptions}
          </select>
        </label>
        <label className="field">
          <span>Run B (leave empty to compare the profiles of run A)</span>
          <select value={formB} onChange={(e) => setFormB(e.target.value)}>
            <option value="">none: profiles of run A</option>
            {runOptions}
          </select>
        </label>
        <button className="primary" type="submit">
          Compare
        </button>
      </form>
      <ErrorBox error={runs.error} />
      {error ? (
        <div className="error" role="alert">
          {error.status === 409 ? (
            <>
              <strong>The pinned-world gate refused this comparison.</strong> Scores are only comparable when both runs
              ran on exactly the same world content (the same <code>world_content_hash</code>): a rebuilt world can have
              different scenarios, tools or checks, so a difference in scores could come from the world rather than the
              agent. Compare runs on the same world version, or the profiles within one run.
              <br />
              Server: {error.detail}
            </>
          ) : (
            error.detail
          )}
        </div>
      ) : null}
      {runA && !result && !error ? <Loading what="Comparing" /> : null}
      {result ? (
        <>
          <p className="muted">
            World version <Link to={`/world-versions/${result.world_version_id}`}>{result.world_version_id}</Link>,
            content <code>{String(result.world_content_hash).slice(0, 12)}</code>
          </p>
          <div className="row">
            {profileSelect(a, setA, `A: profile of ${a.run}`)}
            {profileSelect(b, setB, `B: profile of ${b.run}`)}
          </div>
          <h2>Flip map (pass^k per scenario, A → B)</h2>
          <p role="status">
            <span className="status status-improved">{count('improved')} improved</span>,{' '}
            <span className="status status-regressed">{count('regressed')} regressed</span>, {count('both pass')} pass
            in both, {count('both fail')} fail in both
            {count('incomplete') ? `, ${count('incomplete')} not fully scored` : ''}.
          </p>
          <div className="table-wrap">
            <table data-testid="flip-map">
              <thead>
                <tr>
                  <th scope="col">Scenario</th>
                  <th scope="col">A</th>
                  <th scope="col">B</th>
                  <th scope="col">Change</th>
                </tr>
              </thead>
              <tbody>
                {flips.map((f) => (
                  <tr key={f.scenario}>
                    <th scope="row">{f.scenario}</th>
                    <td>{f.a == null ? '—' : f.a ? 'pass' : 'fail'}</td>
                    <td>{f.b == null ? '—' : f.b ? 'pass' : 'fail'}</td>
                    <td>
                      {f.verdict === 'improved' || f.verdict === 'regressed' ? <Status value={f.verdict} /> : f.verdict}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2>Differences (B − A)</h2>
          {ba && bb ? (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Measure</th>
                    <th scope="col">A</th>
                    <th scope="col">B</th>
                    <th scope="col">B − A</th>
                  </tr>
                </thead>
                <tbody>
                  {METRICS.map((m) => (
                    <tr key={m}>
                      <th scope="row">{m.replace(/_/g, ' ')}</th>
                      <td>{m === 'mean_reward' ? num(ba[m]) : pct(ba[m])}</td>
                      <td>{m === 'mean_reward' ? num(bb[m]) : pct(bb[m])}</td>
                      <td>{ba[m] == null || bb[m] == null ? '—' : num(bb[m] - ba[m])}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p className="muted">Choose a profile on each side.</p>
          )}
          {result.differences ? (
            <>
              <h3>Differences the server computed (with intervals)</h3>
              <Json value={result.differences} label="Differences" />
            </>
          ) : null}
          {Object.entries<any>(result.runs ?? {}).map(([id, s]) => (
            <section key={id}>
              <h2>
                <Link to={`/runs/${id}`}>{id}</Link>
              </h2>
              <ProfileSummary profiles={s.profiles ?? {}} />
            </section>
          ))}
        </>
      ) : null}
    </>
  );
}
