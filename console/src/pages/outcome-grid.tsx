import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { num } from '../ui';
import type { EpisodeRow } from './run';

const SHOWN = 200;

/**
 * Scenario by repeat, one table per profile: each cell is the latest attempt of that repeat,
 * green when it succeeded, red when it did not, grey while pending, linking to the episode.
 */
export function OutcomeGrid({ episodes, repeats }: { episodes: EpisodeRow[]; repeats: number }) {
  const profiles = useMemo(() => [...new Set(episodes.map((e) => e.profile))].sort(), [episodes]);
  const [profile, setProfile] = useState<string | null>(null);
  const [all, setAll] = useState(false);
  const chosen = profile && profiles.includes(profile) ? profile : (profiles[0] ?? null);
  const grid = useMemo(() => {
    const m = new Map<string, Map<number, EpisodeRow>>();
    for (const e of episodes) {
      if (e.profile !== chosen || e.replaced_by) continue;
      const row = m.get(e.scenario) ?? new Map<number, EpisodeRow>();
      const rep = e.repeat ?? 1;
      const seen = row.get(rep);
      if (!seen || (e.attempt ?? 1) > (seen.attempt ?? 1)) row.set(rep, e);
      m.set(e.scenario, row);
    }
    return [...m.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [episodes, chosen]);
  if (!chosen) return <p className="muted">No episodes yet.</p>;
  const cols = Array.from({ length: Math.max(1, repeats) }, (_, i) => i + 1);
  const shown = all ? grid : grid.slice(0, SHOWN);
  return (
    <>
      {profiles.length > 1 ? (
        <div className="tabs" role="group" aria-label="Profile shown in the grid">
          {profiles.map((p) => (
            <button key={p} type="button" aria-pressed={p === chosen} onClick={() => setProfile(p)}>
              {p}
            </button>
          ))}
        </div>
      ) : null}
      <div className="table-wrap">
        <table className="grid-outcomes" data-testid="outcome-grid">
          <caption className="muted" style={{ textAlign: 'left' }}>
            {chosen}: outcome of each repeat (reward shown)
          </caption>
          <thead>
            <tr>
              <th scope="col">Scenario</th>
              {cols.map((c) => (
                <th key={c} scope="col">
                  #{c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map(([scenario, row]) => (
              <tr key={scenario}>
                <th scope="row" style={{ textAlign: 'left' }}>
                  {scenario}
                </th>
                {cols.map((c) => {
                  const e = row.get(c);
                  if (!e) return <td key={c} />;
                  const cls = e.success === true ? 'cell-pass' : e.success === false ? 'cell-fail' : 'cell-pending';
                  const word = e.success === true ? 'passed' : e.success === false ? 'failed' : e.status;
                  const shown = e.reward === null ? (e.status === 'finished' ? '—' : '…') : num(e.reward, 2);
                  return (
                    <td key={c}>
                      <Link
                        className={`cell ${cls}`}
                        to={`/episodes/${e.id}`}
                        aria-label={`${shown} ${scenario} repeat ${c}: ${word}`}
                      >
                        {shown}
                      </Link>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {grid.length > SHOWN && !all ? (
        <button type="button" onClick={() => setAll(true)}>
          Show all {grid.length} scenarios
        </button>
      ) : null}
    </>
  );
}
