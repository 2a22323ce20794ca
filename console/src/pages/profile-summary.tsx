import type { ProfileScores, ScoreBlock } from '../api-types';
import { num, pct, RateWithCi, usd } from '../ui';

const SPLITS = ['train', 'dev', 'holdout'];

/** A run's `summary.profiles`: one row per profile (and per split), with intervals when the server sends them. */
export function ProfileSummary({ profiles }: { profiles: Record<string, ProfileScores> }) {
  const rows: Array<[string, string, ScoreBlock]> = [];
  for (const [label, p] of Object.entries(profiles)) {
    rows.push([label, 'all', p]);
    for (const s of SPLITS) {
      const b = p.by_split?.[s];
      if (b) rows.push([label, s, b]);
    }
  }
  if (rows.length === 0) return <p className="muted">No scores yet.</p>;
  return (
    <div className="table-wrap">
      <table>
        <caption className="muted" style={{ textAlign: 'left' }}>
          Scores by profile and split; brackets are confidence intervals where the server gives them.
        </caption>
        <thead>
          <tr>
            <th scope="col">Profile</th>
            <th scope="col">Split</th>
            <th scope="col">Scored</th>
            <th scope="col">Mean reward</th>
            <th scope="col">Success</th>
            <th scope="col">pass^k</th>
            <th scope="col">False completion</th>
            <th scope="col">Duplicate effects</th>
            <th scope="col">Env. errors</th>
            <th scope="col">Cost</th>
            <th scope="col">Tokens</th>
            <th scope="col">Mean turns</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([label, split, b]) => (
            <tr key={`${label}-${split}`}>
              <th scope="row">{split === 'all' ? label : ''}</th>
              <td>{split}</td>
              <td>
                {b.scored ?? 0} / {b.episodes ?? 0}
                {b.pending ? ` (${b.pending} pending)` : ''}
              </td>
              <td>{num(b.mean_reward)}</td>
              <td>
                <RateWithCi block={b} field="success_rate" />
              </td>
              <td>
                <RateWithCi block={b} field="pass_at_k" /> <span className="muted">k={b.k}</span>
              </td>
              <td>{pct(b.false_completion_rate)}</td>
              <td>{pct(b.duplicate_effect_rate)}</td>
              <td>{b.environment_errors ?? 0}</td>
              <td>{usd(b.cost_usd)}</td>
              <td>{(b.tokens ?? 0).toLocaleString()}</td>
              <td>{num(b.mean_turns, 1)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
