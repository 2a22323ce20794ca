import type { Coverage as SlotCoverage, OutlierFlag, ProfileScores } from '../api-types';
import { pct } from '../ui';

/** Why a planned slot has no score, in a reader's words (docs/scoring.md, Coverage and flags). */
const UNSCORED: Record<string, string> = {
  not_run_yet: 'not run yet',
  cancelled: 'cancelled',
  environment_error: 'world failed (re-runs ran out)',
  awaiting_judge: 'awaiting the judge',
  customer: 'simulated customer failed',
  checks: 'checks could not run',
  judge: 'judge failed',
};

/** One cause of an unscored slot in words. */
export const unscoredWord = (cause: string | undefined): string =>
  cause ? (UNSCORED[cause] ?? cause.replace(/_/g, ' ')) : '—';

/** Why a scored slot counts against the agent. */
const AGAINST: Record<string, string> = {
  agent_error: 'agent error',
  external_timeout: 'external agent timed out',
};

/** "3 cancelled, 1 world failed (re-runs ran out)": the non-zero counts of `counts`, worded by `words`. */
export function causes(counts: Record<string, number> | undefined, words: Record<string, string>): string {
  const parts = Object.entries(counts ?? {})
    .filter(([, n]) => n > 0)
    .map(([cause, n]) => `${n} ${words[cause] ?? cause.replace(/_/g, ' ')}`);
  return parts.length ? parts.join(', ') : '—';
}

/** A flag (run summary or compare side) whose share stands out, as a warning a person reads first. */
export function FlagNotes({ notes }: { notes: string[] }) {
  if (notes.length === 0) return null;
  return (
    <div className="warn-note" role="note" data-testid="flags">
      <strong>Stands out:</strong>
      <ul style={{ margin: '0.3rem 0 0' }}>
        {notes.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
    </div>
  );
}

/**
 * A run's coverage (docs/scoring.md, Coverage and flags): each profile's planned slots, how
 * many were scored (in percent, as the CLI prints rates), those scored against the agent by
 * termination, and those left unscored by cause; above them, the profiles whose unscored or
 * agent-error share stands out.
 */
export function RunCoverage({
  profiles,
  flags,
}: {
  profiles: Record<string, ProfileScores>;
  flags: OutlierFlag[] | undefined;
}) {
  const rows = Object.entries(profiles).filter((e): e is [string, ProfileScores & { coverage: SlotCoverage }] =>
    Boolean(e[1].coverage),
  );
  if (rows.length === 0) return null;
  return (
    <>
      <h2>Coverage</h2>
      <FlagNotes notes={(flags ?? []).map((f) => f.statement ?? `${f.profile}: ${f.kind}`)} />
      <div className="table-wrap">
        <table data-testid="coverage">
          <caption className="muted" style={{ textAlign: 'left' }}>
            Every planned episode (scenario × repeat): scored, scored against the agent, or not scored and why.
          </caption>
          <thead>
            <tr>
              <th scope="col">Profile</th>
              <th scope="col">Scored of planned</th>
              <th scope="col">Counted against the agent</th>
              <th scope="col">Not scored</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(([label, { coverage: c }]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                <td>
                  {c.scored ?? 0} of {c.planned ?? 0} <span className="muted">({pct(c.rate)})</span>
                </td>
                <td>{causes(c.against_agent, AGAINST)}</td>
                <td>{causes(c.unscored, UNSCORED)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** What compare says of one unscored slot: `side`, `scenario_id`, `repeat`, `cause`. */
interface DroppedSlot {
  side?: string;
  scenario_id?: string;
  repeat?: number;
  cause?: string;
}

/** "2 cancelled, 1 not run yet" for the dropped slots of one side. */
export function droppedCauses(dropped: DroppedSlot[], side: 'a' | 'b'): string {
  const counts: Record<string, number> = {};
  for (const d of dropped) if (d.side === side && d.cause) counts[d.cause] = (counts[d.cause] ?? 0) + 1;
  return causes(counts, UNSCORED);
}
