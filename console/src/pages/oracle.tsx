import type { CheckResult, Matcher, Oracle as OracleRecord } from '../api-types';
import { Json, Status } from '../ui';

/** A state check's matchers, when its `observed` holds them. */
function matchersOf(observed: unknown): Matcher[] {
  const m = observed && typeof observed === 'object' ? (observed as { matchers?: unknown }).matchers : undefined;
  return Array.isArray(m) ? (m as Matcher[]) : [];
}

const show = (v: unknown): string => (v === undefined ? '(absent)' : JSON.stringify(v, null, 2));

/** Plain sentences for why an episode did not succeed, from its oracle and how it ended. */
export function whyItFailed(e: { termination?: string | null; oracle?: OracleRecord | null }): string[] {
  const o = e.oracle;
  const out: string[] = [];
  if (e.termination && !['completed'].includes(e.termination))
    out.push(`It ended as ${e.termination.replace(/_/g, ' ')}.`);
  if (!o) return out;
  if (o.environment_error)
    out.push(
      `The world failed, not the agent: ${typeof o.environment_error === 'string' ? o.environment_error : JSON.stringify(o.environment_error)}.`,
    );
  for (const c of o.check_results ?? []) if (!c.passed) out.push(`Check failed: ${c.check} (${c.kind}).`);
  if (o.false_completion) out.push('False completion: the agent called complete while the goal’s checks failed.');
  if ((o.duplicate_effects ?? []).length > 0)
    out.push(`${(o.duplicate_effects ?? []).length} write(s) were carried out twice.`);
  return out;
}

/** A guard: a check of what must not happen (by its `role`, else by its kind: docs/scoring.md). */
const isGuard = (c: CheckResult): boolean => (c.role ?? (c.kind === 'unchanged' ? 'guard' : 'progress')) === 'guard';
/** A guard the compiler added on every record the scenario seeds (world/world-guard.ts). */
const isWorldGuard = (c: CheckResult): boolean => c.check.startsWith('world guard: ');

/** One check: its result, and expected against observed state (or what it observed). */
function CheckCard({ c }: { c: CheckResult }) {
  return (
    <li className="card" style={{ marginBottom: '0.6rem' }} data-check={c.check}>
      <h3 style={{ marginTop: 0 }}>
        <Status value={c.passed ? 'passed' : 'failed'} /> {c.check} <span className="muted">({c.kind})</span>
      </h3>
      {matchersOf(c.observed).length > 0 ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Path</th>
                <th scope="col">Expected</th>
                <th scope="col">Observed</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {matchersOf(c.observed).map((m, j) => (
                <tr key={j}>
                  <td className="mono">{m.path}</td>
                  <td>
                    <pre className="mono" aria-label="Expected">
                      {show(m.expected ?? m.equals ?? m.expect)}
                    </pre>
                  </td>
                  <td>
                    <pre className="mono" aria-label="Observed">
                      {show(m.actual ?? m.observed)}
                    </pre>
                  </td>
                  <td>
                    <Status value={m.passed ? 'passed' : 'failed'} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : c.observed !== undefined ? (
        <Json value={c.observed} label={`Observed for ${c.check}`} />
      ) : null}
    </li>
  );
}

/** The checks that failed, each with expected against observed: what a reader of an episode wants first. */
export function FailedChecks({ oracle }: { oracle: OracleRecord | null | undefined }) {
  const failed = (oracle?.check_results ?? []).filter((c) => !c.passed);
  if (failed.length === 0) return null;
  return (
    <>
      <h2>Failed checks</h2>
      <ul style={{ listStyle: 'none', padding: 0 }} aria-label="Failed checks">
        {failed.map((c, i) => (
          <CheckCard key={i} c={c} />
        ))}
      </ul>
    </>
  );
}

/**
 * The rest of the oracle, below the transcript: the counts, the passing progress checks,
 * the passing guards folded into one line ("8 world guards held", opened on demand: each
 * only says nothing changed), duplicate effects and habits. Failed checks are FailedChecks'.
 */
export function Oracle({ oracle }: { oracle: OracleRecord | null | undefined }) {
  if (!oracle) return <p className="muted">No oracle record yet: the checks run when the episode ends.</p>;
  const passed = (oracle.check_results ?? []).filter((c) => c.passed);
  const held = passed.filter(isGuard);
  const progress = passed.filter((c) => !isGuard(c));
  const world = held.filter(isWorldGuard).length;
  const heldText =
    world === held.length
      ? `${held.length} world guard${held.length === 1 ? '' : 's'} held`
      : `${held.length} guard${held.length === 1 ? '' : 's'} held${world ? ` (${world} world guard${world === 1 ? '' : 's'})` : ''}`;
  return (
    <>
      <p>
        {oracle.checks_passed ?? '?'} of {oracle.checks_total ?? '?'} checks passed
        {oracle.checks_goal_version !== undefined ? ` (against goal version ${oracle.checks_goal_version})` : ''}; false
        completion: <strong>{oracle.false_completion ? 'yes' : 'no'}</strong>; duplicate effects:{' '}
        <strong>{(oracle.duplicate_effects ?? []).length}</strong>.
      </p>
      {progress.length > 0 ? (
        <ul style={{ listStyle: 'none', padding: 0 }} aria-label="Passed checks">
          {progress.map((c, i) => (
            <CheckCard key={i} c={c} />
          ))}
        </ul>
      ) : null}
      {held.length > 0 ? (
        <details className="fold" data-testid="guards-held">
          <summary>
            <Status value="passed" /> {heldText}
          </summary>
          <ul style={{ listStyle: 'none', padding: 0 }} aria-label="Guards held">
            {held.map((c, i) => (
              <CheckCard key={i} c={c} />
            ))}
          </ul>
        </details>
      ) : null}
      {(oracle.duplicate_effects ?? []).length > 0 ? (
        <>
          <h3>Duplicate effects</h3>
          <Json value={oracle.duplicate_effects} label="Duplicate effects" />
        </>
      ) : null}
      {oracle.habits ? (
        <>
          <h3>Habits</h3>
          <ul>
            {Object.entries(oracle.habits).map(([name, h]) => (
              <li key={name}>
                <Status value={h.passed ? 'passed' : 'failed'} /> {name.replace(/_/g, ' ')}
                {h.count !== undefined ? ` (${h.count}${h.limit !== undefined ? ` of ${h.limit}` : ''})` : ''}
                {h.violations && h.violations.length > 0 ? (
                  <ul>
                    {h.violations.map((v, i) => (
                      <li key={i}>
                        action {v.action_index} ({v.actor}, {v.tool}): {v.reason}
                      </li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}
