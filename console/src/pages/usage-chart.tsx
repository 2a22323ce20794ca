import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

/** This month's model spend by kind (recharts). */
export default function UsageChart({ byKind }: { byKind: Record<string, number> }) {
  const data = Object.entries(byKind).map(([kind, usd]) => ({ kind, usd }));
  return (
    <figure style={{ margin: 0 }} aria-label="Spend by kind in USD">
      <div style={{ width: '100%', height: 220 }}>
        <ResponsiveContainer>
          <BarChart data={data}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="kind" />
            <YAxis />
            <Tooltip />
            <Bar dataKey="usd" name="USD" fill="#0b57d0" isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="muted">{data.map((d) => `${d.kind} $${d.usd.toFixed(2)}`).join(' · ')}</figcaption>
    </figure>
  );
}
