import { table } from './output.js';

const ci = (v: unknown): string =>
  Array.isArray(v) && v.length === 2 ? `[${Number(v[0]).toFixed(3)}, ${Number(v[1]).toFixed(3)}]` : '-';
const num3 = (v: unknown): string => (typeof v === 'number' ? v.toFixed(3) : '-');

/**
 * The summary's statistics per profile and split (docs/scoring.md): mean reward, success
 * rate and pass^k with their 95% intervals, and failures by cause.
 */
export function statisticsTable(summary: any): string {
  const rows: Array<[string, any]> = [];
  for (const [label, p] of Object.entries<any>(summary?.profiles ?? {})) {
    rows.push([`${label} (all)`, p]);
    for (const [split, b] of Object.entries<any>(p?.by_split ?? {})) rows.push([`${label} ${split}`, b]);
  }
  if (rows.length === 0) return '';
  const f = (b: any) => b?.failures ?? {};
  return `\n95% intervals (bootstrap over scenarios for the mean, Wilson for rates):\n${table(rows, [
    ['group', ([g]) => g],
    ['scored', ([, b]) => b?.scored],
    ['mean_reward', ([, b]) => `${num3(b?.mean_reward)} ${ci(b?.mean_reward_ci)}`],
    ['success_rate', ([, b]) => `${num3(b?.success_rate)} ${ci(b?.success_rate_ci)}`],
    [`pass^k`, ([, b]) => `${num3(b?.pass_at_k)} ${ci(b?.pass_at_k_ci)} n=${b?.pass_at_k_scenarios ?? 0} k=${b?.k}`],
    [
      'failures agent/env/customer/checks',
      ([, b]) => `${f(b).agent ?? 0}/${f(b).environment ?? 0}/${f(b).customer ?? 0}/${f(b).checks ?? 0}`,
    ],
  ])}`;
}

/** Per-scenario success counts over repeats, one line per scenario of each profile. */
export function scenarioCountsTable(summary: any): string {
  const rows: Array<[string, string, any]> = [];
  for (const [label, p] of Object.entries<any>(summary?.profiles ?? {}))
    for (const [id, c] of Object.entries<any>(p?.scenarios ?? {})) rows.push([label, id, c]);
  if (rows.length === 0) return '';
  return `\nPer scenario (successes of scored repeats):\n${table(rows, [
    ['profile', ([l]) => l],
    ['scenario', ([, id]) => id],
    ['split', ([, , c]) => c.split],
    ['successes', ([, , c]) => `${c.successes}/${c.scored}`],
    ['mean_reward', ([, , c]) => num3(c.mean_reward)],
  ])}`;
}

/** What GET /v1/compare says beyond the summaries: the scenario set and each paired comparison in plain words. */
export function comparisonText(c: any): string {
  const parts: string[] = [];
  const set = c?.scenario_set;
  if (set?.mode === 'intersection') parts.push(`\nScenario sets differ: ${set.note}\n`);
  else if (set)
    parts.push(`\nScenario set ${String(set.scenario_set_hash).slice(0, 23)} (${set.scenarios} scenarios)\n`);
  for (const x of c?.comparisons ?? []) {
    parts.push(
      `\n${x.a.profile} (${x.a.run_id}) vs ${x.b.profile} (${x.b.run_id}), ${x.scenarios} paired scenarios:\n` +
        `  mean reward ${num3(x.mean_reward_a)} -> ${num3(x.mean_reward_b)}, difference ${num3(x.difference)} ${ci(x.difference_ci)}, p = ${x.p_value ?? '-'}\n` +
        `  ${x.statement}\n` +
        `  improved: ${x.improved.length ? x.improved.join(', ') : 'none'}\n` +
        `  regressed: ${x.regressed.length ? x.regressed.join(', ') : 'none'}\n`,
    );
  }
  return parts.join('');
}
