import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, ApiError, query } from '../api';
import type { Comparison, PairedComparison, Run, ScoreBlock, Side } from '../api-types';
import { useList, useTitle } from '../hooks';
import { ErrorBox, intervalOf, Loading, PageHead } from '../ui';
import { droppedCauses, FlagNotes, unscoredWord } from './coverage';
import { ProfileSummary } from './profile-summary';

/** A signed number with a true minus sign: `+0.125`, `−0.250`, `0.000`. */
export function signed(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  // toFixed of the magnitude, so −0.2625 and +0.2625 round alike (Math.round sends halves up, toward +)
  const shown = Math.abs(x).toFixed(digits);
  if (Number(shown) === 0) return (0).toFixed(digits);
  return `${x > 0 ? '+' : '−'}${shown}`;
}
const plain = (x: number | null | undefined, digits = 3): string =>
  x === null || x === undefined || Number.isNaN(x) ? '—' : x.toFixed(digits).replace('-', '−');
/** A rate (0 to 1) in percent, without the sign: the column's header names the unit. */
const percent = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : (x * 100).toFixed(1));
const bracket = (ci: [number, number] | null, f: (x: number) => string): string =>
  ci ? ` [${f(ci[0])}, ${f(ci[1])}]` : '';

/** The server's verdict in a heading's words (docs/scoring.md, Comparing). */
export function verdictText(
  c: Pick<PairedComparison, 'verdict' | 'a' | 'b' | 'scenarios' | 'scenarios_needed'>,
): string {
  switch (c.verdict) {
    case 'b_better':
      return `B is better: ${c.b.profile} scores higher than ${c.a.profile}`;
    case 'a_better':
      return `A is better: ${c.a.profile} scores higher than ${c.b.profile}`;
    case 'within_noise':
      return 'Within noise: the test cannot tell this difference from chance';
    default: {
      const n = c.scenarios ?? 0;
      if (n === 0) return 'Not enough data: no scenario was scored by both sides yet';
      const needed = c.scenarios_needed?.minimum ?? 6;
      return `Not enough data: ${n} paired scenario${n === 1 ? '' : 's'} cannot decide (a difference needs at least ${needed})`;
    }
  }
}

/** A coverage bound's verdict, short. */
const BOUND_WORDS: Record<string, string> = {
  b_better: 'B better',
  a_better: 'A better',
  within_noise: 'within noise',
  not_enough_data: 'not enough data',
};

type Bound = NonNullable<NonNullable<PairedComparison['coverage']>['worst_case']>;

/** "−0.250 [−0.500, +0.100], within noise": a bound's difference, interval and verdict. */
function boundText(b: Bound | null | undefined): string {
  if (!b) return '—';
  const ci = intervalOf(b.difference_ci);
  return `${signed(b.difference)}${bracket(ci, (x) => signed(x))}, ${BOUND_WORDS[b.verdict ?? ''] ?? b.verdict}`;
}

/** The slots of one side, from compare's `planned_slots` / `scored_slots` (`{a, b}`). */
const slotsOf = (o: Record<string, unknown> | undefined, side: 'a' | 'b'): number =>
  typeof o?.[side] === 'number' ? o[side] : 0;

/**
 * The planned episodes either side did not score, and the difference bounded with them
 * counted against B and for B (docs/scoring.md, Comparing, Coverage); one quiet line when
 * every one was scored.
 */
function Unscored({ c }: { c: PairedComparison }) {
  const cov = c.coverage;
  if (!cov) return null;
  const dropped = (cov.dropped ?? []) as Array<{
    side?: string;
    scenario_id?: string;
    repeat?: number;
    cause?: string;
  }>;
  const planned = (side: 'a' | 'b') => slotsOf(cov.planned_slots, side);
  const scored = (side: 'a' | 'b') => slotsOf(cov.scored_slots, side);
  if (dropped.length === 0)
    return (
      <p className="muted" data-testid="coverage">
        Every planned episode was scored: A {scored('a')} of {planned('a')}, B {scored('b')} of {planned('b')}.
      </p>
    );
  const left = cov.dropped_scenarios ?? [];
  return (
    <div className="warn-note" role="note" data-testid="coverage">
      <p style={{ marginTop: 0 }}>
        <strong>
          {dropped.length} planned episode{dropped.length === 1 ? ' was' : 's were'} not scored.
        </strong>{' '}
        A scored {scored('a')} of {planned('a')}
        {scored('a') < planned('a') ? ` (${droppedCauses(dropped, 'a')})` : ''}; B scored {scored('b')} of{' '}
        {planned('b')}
        {scored('b') < planned('b') ? ` (${droppedCauses(dropped, 'b')})` : ''}.{' '}
        {left.length > 0
          ? `${left.length} of ${cov.planned_scenarios ?? '?'} scenarios have no pair and are left out of the test.`
          : ''}
      </p>
      <dl className="facts">
        <div>
          <dt>Worst case for B: unscored count as B failing, A succeeding</dt>
          <dd data-testid="worst-case">{boundText(cov.worst_case)}</dd>
        </div>
        <div>
          <dt>Best case for B: unscored count as B succeeding, A failing</dt>
          <dd data-testid="best-case">{boundText(cov.best_case)}</dd>
        </div>
      </dl>
      <details className="fold">
        <summary>The unscored episodes</summary>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Side</th>
                <th scope="col">Scenario</th>
                <th scope="col">Repeat</th>
                <th scope="col">Why not scored</th>
              </tr>
            </thead>
            <tbody>
              {dropped.map((d, i) => (
                <tr key={i}>
                  <td>{d.side === 'b' ? 'B' : 'A'}</td>
                  <td className="mono">{d.scenario_id}</td>
                  <td>{d.repeat ?? '—'}</td>
                  <td>{unscoredWord(d.cause)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </div>
  );
}

const significant = (c: Pick<PairedComparison, 'verdict'>) => c.verdict === 'a_better' || c.verdict === 'b_better';

/** "3 improved", in colour when the verdict stands, else muted and marked "within noise". */
function Count({ c, n, what }: { c: PairedComparison; n: number; what: 'improved' | 'regressed' }) {
  if (significant(c)) return <span className={`status status-${what}`}>{`${n} ${what}`}</span>;
  return <span className="muted">{`${n} ${what} (within noise)`}</span>;
}

/** One paired comparison as the server computed it: verdict, difference and interval, test, detectable difference. */
function Verdict({ c }: { c: PairedComparison }) {
  const ci = intervalOf(c.difference_ci);
  const mdd = c.minimum_detectable_difference;
  return (
    <section className="card" data-testid="comparison" aria-label={`${c.a.profile} against ${c.b.profile}`}>
      <p className={significant(c) ? 'verdict strong' : 'verdict'} data-testid="verdict" role="status">
        <strong>{verdictText(c)}</strong>
      </p>
      <FlagNotes notes={(c.flags ?? []).map((f) => String(f.note ?? f.statement ?? ''))} />
      <Unscored c={c} />
      <dl className="facts">
        <div>
          <dt>A</dt>
          <dd>
            {c.a.profile} <span className="muted mono">{c.a.run_id}</span>
          </dd>
        </div>
        <div>
          <dt>B</dt>
          <dd>
            {c.b.profile} <span className="muted mono">{c.b.run_id}</span>
          </dd>
        </div>
        <div>
          <dt>Mean reward, A → B</dt>
          <dd>
            {plain(c.mean_reward_a)} → {plain(c.mean_reward_b)}
          </dd>
        </div>
        <div>
          <dt>Difference B − A (reward), 95% interval</dt>
          <dd data-testid="difference">
            {signed(c.difference)}
            {bracket(ci, (x) => signed(x))}
          </dd>
        </div>
        <div>
          <dt>Paired test</dt>
          <dd>
            p = {c.p_value ?? '—'}{' '}
            <span className="muted">
              ({c.exact ? 'exact' : 'sampled'} sign-flip permutation test, {c.scenarios} paired scenarios)
            </span>
          </dd>
        </div>
        <div>
          <dt>Minimum detectable difference (reward)</dt>
          <dd>{mdd === null || mdd === undefined ? 'too few scenarios to say' : `about ${plain(mdd)}`}</dd>
        </div>
      </dl>
      <p>
        <Count c={c} n={c.improved?.length ?? 0} what="improved" />,{' '}
        <Count c={c} n={c.regressed?.length ?? 0} what="regressed" />, {c.unchanged ?? 0} unchanged.
      </p>
      <p className="muted">{c.statement}</p>
    </section>
  );
}

const MEASURES: Array<{ field: keyof ScoreBlock & string; head: ReactNode; rate: boolean }> = [
  { field: 'mean_reward', head: 'Mean reward (0 to 1)', rate: false },
  { field: 'success_rate', head: 'Success rate (%)', rate: true },
  { field: 'pass_at_k', head: 'pass^k (%)', rate: true },
  { field: 'false_completion_rate', head: 'False completion (%)', rate: true },
  { field: 'duplicate_effect_rate', head: 'Duplicate effects (%)', rate: true },
];

/**
 * The two sides' scores, one measure per column and one unit per column (reward, or
 * percent; the B − A row in the same unit: reward, or percentage points).
 */
function Scores({ c, a, b }: { c: PairedComparison; a?: ScoreBlock; b?: ScoreBlock }) {
  const cellOf = (block: ScoreBlock | undefined, m: (typeof MEASURES)[number]) => {
    const ci = intervalOf(block?.[`${m.field}_ci`]);
    const v = block?.[m.field];
    const x = typeof v === 'number' ? v : null;
    return m.rate ? `${percent(x)}${bracket(ci, percent)}` : `${plain(x)}${bracket(ci, (y) => plain(y))}`;
  };
  const diff = (m: (typeof MEASURES)[number]) => {
    const x = a?.[m.field];
    const y = b?.[m.field];
    if (typeof x !== 'number' || typeof y !== 'number') return '—';
    return m.rate ? signed((y - x) * 100, 1) : signed(y - x);
  };
  return (
    <div className="table-wrap">
      <table data-testid="scores">
        <caption className="muted" style={{ textAlign: 'left' }}>
          Each side&apos;s summary; brackets are 95% intervals (below 30 scenarios, the conservative Clopper-Pearson
          ones). The B − A row is in the column&apos;s unit (reward, or percentage points).
        </caption>
        <thead>
          <tr>
            <th scope="col">Side</th>
            {MEASURES.map((m) => (
              <th scope="col" key={m.field}>
                {m.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">A: {c.a.profile}</th>
            {MEASURES.map((m) => (
              <td key={m.field}>{cellOf(a, m)}</td>
            ))}
          </tr>
          <tr>
            <th scope="row">B: {c.b.profile}</th>
            {MEASURES.map((m) => (
              <td key={m.field}>{cellOf(b, m)}</td>
            ))}
          </tr>
          <tr>
            <th scope="row">B − A</th>
            {MEASURES.map((m) => (
              <td key={m.field}>{diff(m)}</td>
            ))}
          </tr>
        </tbody>
      </table>
    </div>
  );
}

/** Each paired scenario's mean rewards and change, as the server paired them. */
function PerScenario({ c }: { c: PairedComparison }) {
  const rows = c.per_scenario ?? [];
  if (rows.length === 0) return <p className="muted">No scenario was scored by both sides yet.</p>;
  const noise = significant(c) ? '' : ' (within noise)';
  return (
    <div className="table-wrap">
      <table data-testid="per-scenario">
        <thead>
          <tr>
            <th scope="col">Scenario</th>
            <th scope="col">A mean reward</th>
            <th scope="col">B mean reward</th>
            <th scope="col">B − A (reward)</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const change = r.difference > 0 ? 'improved' : r.difference < 0 ? 'regressed' : 'unchanged';
            return (
              <tr key={r.scenario_id}>
                <th scope="row">{r.scenario_id}</th>
                <td>{plain(r.a)}</td>
                <td>{plain(r.b)}</td>
                <td>{signed(r.difference)}</td>
                <td>
                  {change === 'unchanged' ? (
                    change
                  ) : noise ? (
                    <span className="muted">{`${change}${noise}`}</span>
                  ) : (
                    <span className={`status status-${change}`}>{change}</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** What the server left out when the runs' scenario sets differ. */
function ScenarioSet({ set, runs }: { set: Comparison['scenario_set']; runs: string[] }) {
  if (!set || set.mode !== 'intersection') return null;
  const left: string[] = set.left_out ?? [];
  return (
    <div className="notice" role="note" data-testid="scenario-set">
      <strong>The runs ran different scenario sets.</strong> Only the {set.scenarios} scenario(s) both ran with the same
      specification are compared, and the summaries below count those only. Left out ({left.length}):{' '}
      {left.length ? left.join(', ') : 'none'}.
      <ul>
        {runs.map((id) => {
          const only = set.only_in?.[id] ?? [];
          return only.length ? (
            <li key={id}>
              Only in <span className="mono">{id}</span>: {only.join(', ')}
            </li>
          ) : null;
        })}
        {set.changed?.length ? <li>Specification changed: {set.changed.join(', ')}</li> : null}
      </ul>
    </div>
  );
}

/**
 * Compare two runs on the same pinned world, or the profiles of one run, showing what the
 * server computed (GET /v1/compare): for each pair of profiles the verdict, the difference
 * with its interval, the paired test and the minimum detectable difference, the planned
 * episodes either side did not score with the difference's worst and best case, the sides
 * whose unscored or agent-error share stands out, and any caveat (differing simulators); the scores side
 * by side in one unit per column; each paired scenario's change, marked "within noise" when
 * the verdict is; the scenarios left out when the runs' sets differ; and why it refused.
 */
export default function Compare() {
  useTitle('Compare');
  const [params, setParams] = useSearchParams();
  const runA = params.get('run_a') ?? '';
  const runB = params.get('run_b') ?? '';
  const runs = useList<Run>('/v1/runs');
  const [formA, setFormA] = useState(runA);
  const [formB, setFormB] = useState(runB);
  const [result, setResult] = useState<Comparison | null>(null);
  const [error, setError] = useState<{ status: number; detail: string } | null>(null);
  const [chosen, setChosen] = useState(0);

  useEffect(() => {
    setFormA(runA);
    setFormB(runB);
    setResult(null);
    setError(null);
    setChosen(0);
    if (!runA) return;
    let live = true;
    api<Comparison>('GET', `/v1/compare${query({ run_a: runA, run_b: runB || undefined })}`)
      .then((r) => live && setResult(r))
      .catch(
        (e: unknown) =>
          live &&
          setError(e instanceof ApiError ? { status: e.status, detail: e.detail } : { status: 0, detail: String(e) }),
      );
    return () => {
      live = false;
    };
  }, [runA, runB]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams();
    if (formA) next.set('run_a', formA);
    if (formB) next.set('run_b', formB);
    setParams(next);
  };
  const runOptions = (runs.data ?? []).map((r) => (
    <option key={r.run_id ?? r.id} value={r.run_id ?? r.id}>
      {r.run_id ?? r.id} ({(r.profiles ?? []).map((p) => p.label).join(', ')}, {r.status})
    </option>
  ));
  const comparisons = result?.comparisons ?? [];
  const c = comparisons[Math.min(chosen, comparisons.length - 1)];
  const blockOf = (side: Side) => result?.runs?.[side.run_id]?.profiles?.[side.profile];
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
          {error.status === 409 && /different world content/.test(error.detail) ? (
            <>
              <strong>The pinned-world gate refused this comparison.</strong> Scores are only comparable when both runs
              ran on exactly the same world content (the same <code>world_content_hash</code>): a rebuilt world can have
              different scenarios, tools or checks, so a difference in scores could come from the world rather than the
              agent. Compare runs on the same world version, or the profiles within one run.
              <br />
              Server: {error.detail}
            </>
          ) : error.status === 409 ? (
            <>
              <strong>These runs share no scenario.</strong> A comparison pairs the scenarios both runs ran; choose runs
              that share at least one, or compare the profiles within one run.
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
          <ScenarioSet set={result.scenario_set} runs={Object.keys(result.runs ?? {})} />
          {(result.caveats ?? []).length > 0 ? (
            <div className="warn-note" role="note" data-testid="caveats">
              <strong>Read with care:</strong> {(result.caveats ?? []).join(' ')}
            </div>
          ) : null}
          <h2>Verdict</h2>
          {comparisons.length > 1 ? (
            <label className="field">
              <span>Pair of profiles</span>
              <select value={chosen} onChange={(e) => setChosen(Number(e.target.value))}>
                {comparisons.map((x, i) => (
                  <option key={i} value={i}>
                    {x.a.profile} → {x.b.profile}
                  </option>
                ))}
              </select>
            </label>
          ) : null}
          {c ? (
            <>
              <Verdict c={c} />
              <h2>Scores (B − A)</h2>
              <Scores c={c} a={blockOf(c.a)} b={blockOf(c.b)} />
              <h2>Per scenario (A → B)</h2>
              <PerScenario c={c} />
            </>
          ) : (
            <p className="muted">
              No pair of profiles to compare: within one run it takes two profiles; across two runs, profiles of the
              same name and version, or one profile in each run.
            </p>
          )}
          {Object.entries(result.runs ?? {}).map(([id, s]) => (
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
