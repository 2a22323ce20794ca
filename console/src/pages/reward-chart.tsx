import { useMemo } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { EpisodeRow } from './run';

const BINS = 10;
const COLOURS = ['#0b57d0', '#b3261e', '#146c2e', '#7a4d00', '#6f42c1', '#00695c'];

/** A histogram of episode rewards in tenths, one bar series per profile (recharts). */
export default function RewardChart({ episodes }: { episodes: EpisodeRow[] }) {
  const { data, profiles } = useMemo(() => {
    const profiles = [...new Set(episodes.map((e) => e.profile))].sort();
    const data = Array.from({ length: BINS }, (_, i) => {
      const row: Record<string, string | number> = { bin: `${(i / BINS).toFixed(1)}–${((i + 1) / BINS).toFixed(1)}` };
      for (const p of profiles) row[p] = 0;
      return row;
    });
    for (const e of episodes) {
      if (e.reward === null || e.reward === undefined || e.replaced_by) continue;
      const i = Math.min(BINS - 1, Math.floor(e.reward * BINS));
      (data[i]![e.profile] as number) += 1;
    }
    return { data, profiles };
  }, [episodes]);
  if (profiles.length === 0) return <p className="muted">No rewards yet.</p>;
  return (
    <figure style={{ margin: 0 }} aria-label="Reward distribution by profile">
      <div style={{ width: '100%', height: 260 }}>
        <ResponsiveContainer>
          <BarChart data={data} margin={{ top: 8, right: 8, bottom: 8, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="bin" />
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Legend />
            {profiles.map((p, i) => (
              <Bar key={p} dataKey={p} fill={COLOURS[i % COLOURS.length]} isAnimationActive={false} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="muted">Episodes by reward (latest attempts that scored).</figcaption>
    </figure>
  );
}
