import type { Matcher, Oracle as OracleRecord } from '../api-types';
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

/** The oracle: every check with expected against observed state, duplicate effects, false completion and habits. */
export function Oracle({ oracle }: { oracle: OracleRecord | null | undefined }) {
  if (!oracle) return <p className="muted">No oracle record yet: the checks run when the episode ends.</p>;
  return (
    <>
      <p>
        {oracle.checks_passed ?? '?'} of {oracle.checks_total ?? '?'} checks passed
        {oracle.checks_goal_version !== undefined ? ` (against goal version ${oracle.checks_goal_version})` : ''}; false
        completion: <strong>{oracle.false_completion ? 'yes' : 'no'}</strong>; duplicate effects:{' '}
        <strong>{(oracle.duplicate_effects ?? []).length}</strong>.
      </p>
      <ul style={{ listStyle: 'none', padding: 0 }} aria-label="Checks">
        {(oracle.check_results ?? []).map((c, i) => (
          <li key={i} className="card" style={{ marginBottom: '0.6rem' }} data-check={c.check}>
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
        ))}
      </ul>
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
