import type { Comparison, ProfileScores, RunSummary, ScoreBlock } from '../../proto/index.js';
import { summaryTable } from './follow.js';
import { table, tableWidth, terminalWidth, TERMINAL_WIDTH, type Column } from './output.js';

export { TERMINAL_WIDTH };
/** cli-table3's padding after every column but the last (output.ts, table). */
const GAP = 2;

const ci = (v: unknown): string =>
  Array.isArray(v) && v.length === 2 ? `[${Number(v[0]).toFixed(3)}, ${Number(v[1]).toFixed(3)}]` : '-';
const num3 = (v: unknown): string => (typeof v === 'number' ? v.toFixed(3) : '-');
const rate = (v: unknown): string => (typeof v === 'number' ? `${(v * 100).toFixed(1)}%` : '-');
/** A rate's interval in percent, as `rate` writes the rate. */
const rateCi = (v: unknown): string =>
  Array.isArray(v) && v.length === 2 ? `[${rate(Number(v[0]))}, ${rate(Number(v[1]))}]` : '-';
const usd = (v: unknown): string => (typeof v === 'number' ? `$${v.toFixed(v > 0 && v < 1 ? 4 : 2)}` : '-');

/** `text` cut to `width` characters, its middle replaced by `…` (labels keep their `@vN` end). */
export function shorten(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  const tail = Math.floor((width - 1) / 2);
  return `${text.slice(0, width - 1 - tail)}…${text.slice(text.length - tail)}`;
}

/** Words of `text` on lines of at most `width` characters, each after `indent` (a longer word keeps its own line). */
export function wrap(text: string, width = terminalWidth(), indent = ''): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines.map((l) => `${l}\n`).join('');
}

const compactColumns: readonly Column<[string, ProfileScores]>[] = [
  ['profile', ([label]) => label],
  ['scored', ([, p]) => p?.scored ?? 0],
  [
    'mean reward',
    ([, p]) =>
      `${num3(p?.mean_reward)} ${ci(p?.mean_reward_ci)}${p?.conservative_ci?.includes('mean_reward_ci') ? '*' : ''}`,
  ],
  ['success', ([, p]) => rate(p?.success_rate)],
  ['pass^k', ([, p]) => rate(p?.pass_at_k)],
  ['false completion', ([, p]) => rate(p?.false_completion_rate)],
  ['cost', ([, p]) => usd(p?.cost_usd)],
];

/**
 * The run summary as it ends `eval start`, `runs follow`, `runs status` and `compare`: one
 * row per profile with the scores a reader looks at first, within TERMINAL_WIDTH columns
 * (a long profile label is shortened in the middle). `--wide` prints every field and the
 * intervals by split (wideSummary), `--json` the whole answer.
 */
export function compactSummary(summary: RunSummary | undefined): string {
  const rows = Object.entries(summary?.profiles ?? {});
  if (rows.length === 0) return 'No profile results yet.\n';
  const cells = rows.map((r) => compactColumns.map(([, get]) => String(get(r))));
  const widths = compactColumns.map(([h], i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const others = widths.slice(1).reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
  const labelWidth = Math.max('profile'.length, tableWidth() - others);
  const ks = [...new Set(rows.map(([, p]) => p?.k).filter((k) => typeof k === 'number'))];
  // below 30 scenarios the server's intervals are the conservative ones, marked * (docs/scoring.md, Statistics)
  const conservative = rows.some(([, p]) => p?.conservative_ci?.includes('mean_reward_ci'));
  const note =
    `mean reward with its 95% interval${conservative ? ' (* conservative: under 30 scenarios)' : ''}; pass^k: all ` +
    `k = ${ks.length ? ks.join(', ') : '-'} repeats succeeded; --wide, --json for more`;
  return `${table(
    rows.map(([label, p]) => [shorten(label, labelWidth), p] as [string, ProfileScores]),
    compactColumns,
  )}${wrap(note)}${coverageText(summary)}`;
}

/**
 * The slots not scored, or scored 0 for the agent's own failure, per profile, and the
 * profiles flagged for standing out (docs/scoring.md, Coverage and flags); nothing when
 * every planned slot scored cleanly.
 */
export function coverageText(summary: RunSummary | undefined): string {
  const lines: string[] = [];
  for (const [label, p] of Object.entries(summary?.profiles ?? {})) {
    const c = p?.coverage;
    if (!c?.statement) continue;
    const against = Object.values(c.against_agent ?? {}).reduce((a, b) => a + b, 0);
    if ((c.scored ?? 0) < (c.planned ?? 0) || against > 0) lines.push(wrap(`${label}: ${c.statement}`));
  }
  for (const f of summary?.flags ?? []) if (f.statement) lines.push(wrap(`flagged: ${f.statement}`));
  return lines.join('');
}

/** Everything the summary holds as tables (`--wide`): every scalar field per profile, then the intervals by split. */
export function wideSummary(summary: RunSummary | undefined): string {
  return `${summaryTable(summary)}${statisticsTable(summary)}`;
}

/** The summary as the options ask: wide, or compact. */
export function summaryText(summary: RunSummary | undefined, opts: { wide?: boolean }): string {
  return opts.wide ? wideSummary(summary) : compactSummary(summary);
}

/**
 * The summary's statistics per profile and split (docs/scoring.md): mean reward, success
 * rate and pass^k with their 95% intervals, and failures by cause.
 */
export function statisticsTable(summary: RunSummary | undefined): string {
  const rows: Array<[string, ScoreBlock]> = [];
  for (const [label, p] of Object.entries(summary?.profiles ?? {})) {
    rows.push([`${label} (all)`, p]);
    for (const [split, b] of Object.entries(p?.by_split ?? {})) rows.push([`${label} ${split}`, b]);
  }
  if (rows.length === 0) return '';
  const f = (b: ScoreBlock) => b?.failures ?? {};
  return `\n95% intervals (Wilson clustered by scenario: repeats are not independent):\n${table(rows, [
    ['group', ([g]) => g],
    ['scored', ([, b]) => b?.scored],
    ['mean_reward', ([, b]) => `${num3(b?.mean_reward)} ${ci(b?.mean_reward_ci)}`],
    ['success_rate', ([, b]) => `${rate(b?.success_rate)} ${rateCi(b?.success_rate_ci)}`],
    [
      `pass^k`,
      ([, b]) => `${rate(b?.pass_at_k)} ${rateCi(b?.pass_at_k_ci)} n=${b?.pass_at_k_scenarios ?? 0} k=${b?.k}`,
    ],
    [
      'failures agent/env/judge/customer/checks',
      ([, b]) =>
        `${f(b).agent ?? 0}/${f(b).environment ?? 0}/${f(b).judge ?? 0}/${f(b).customer ?? 0}/${f(b).checks ?? 0}`,
    ],
  ])}`;
}

type ScenarioCounts = NonNullable<ProfileScores['scenarios']>[string];

/** Per-scenario success counts over repeats, one line per scenario of each profile. */
export function scenarioCountsTable(summary: RunSummary | undefined): string {
  const rows: Array<[string, string, ScenarioCounts]> = [];
  for (const [label, p] of Object.entries(summary?.profiles ?? {}))
    for (const [id, c] of Object.entries(p?.scenarios ?? {})) rows.push([label, id, c]);
  if (rows.length === 0) return '';
  return `\nPer scenario (successes of scored repeats):\n${table(rows, [
    ['profile', ([l]) => l],
    ['scenario', ([, id]) => id],
    ['split', ([, , c]) => c.split],
    ['successes', ([, , c]) => `${c.successes}/${c.scored}`],
    ['mean_reward', ([, , c]) => num3(c.mean_reward)],
  ])}`;
}

/** What comparisonText reads of the answer of GET /v1/compare. */
type ComparisonParts = Pick<Comparison, 'comparisons'> & {
  scenario_set?: Partial<NonNullable<Comparison['scenario_set']>>;
  caveats?: string[];
};

/** A comparison's coverage and flags (docs/scoring.md, Comparing): the unscored slots, the bounds, and the sides that stand out. */
function coverageLines(x: NonNullable<Comparison['comparisons']>[number]): string {
  const c = x.coverage;
  const out: string[] = [];
  if (c?.note) {
    out.push(wrap(`coverage: ${c.note}`, TERMINAL_WIDTH, '  '));
    const slots = (c.dropped ?? []).map(
      (d) => `${String(d.side)}:${String(d.scenario_id)}#${String(d.repeat)} (${String(d.cause)})`,
    );
    if (slots.length) out.push(wrap(`unscored: ${slots.join(', ')}`, TERMINAL_WIDTH, '    '));
  }
  for (const f of x.flags ?? [])
    if (typeof f.note === 'string') out.push(wrap(`flagged: ${f.note}`, TERMINAL_WIDTH, '  '));
  return out.join('');
}

/** What GET /v1/compare says beyond the summaries: the scenario set and each paired comparison in plain words, wrapped to TERMINAL_WIDTH. */
export function comparisonText(c: ComparisonParts): string {
  const parts: string[] = [];
  for (const caveat of c?.caveats ?? []) parts.push(`\n${wrap(`Caveat: ${caveat}.`)}`);
  const set = c?.scenario_set;
  if (set?.mode === 'intersection') {
    parts.push(`\n${wrap(`Scenario sets differ: ${set.note}.`)}`);
    if (Array.isArray(set.left_out) && set.left_out.length)
      parts.push(wrap(`Left out: ${set.left_out.join(', ')}`, TERMINAL_WIDTH, '  '));
  } else if (set)
    parts.push(`\nScenario set ${String(set.scenario_set_hash).slice(0, 23)} (${set.scenarios} scenarios)\n`);
  for (const x of c?.comparisons ?? []) {
    const list = (xs: string[] | undefined) => (xs?.length ? xs.join(', ') : 'none');
    const noise =
      x.verdict === 'within_noise' ? ' (within noise)' : x.verdict === 'not_enough_data' ? ' (undecided)' : '';
    parts.push(
      `\n${wrap(`${x.a.profile} (${x.a.run_id}) vs ${x.b.profile} (${x.b.run_id}), ${x.scenarios} paired scenarios:`)}` +
        wrap(
          `mean reward ${num3(x.mean_reward_a)} -> ${num3(x.mean_reward_b)}, difference ${num3(x.difference)} ${ci(x.difference_ci)}, p = ${x.p_value ?? '-'}`,
          TERMINAL_WIDTH,
          '  ',
        ) +
        wrap(x.statement ?? '', TERMINAL_WIDTH, '  ') +
        wrap(`improved${noise}: ${list(x.improved)}`, TERMINAL_WIDTH, '  ') +
        wrap(`regressed${noise}: ${list(x.regressed)}`, TERMINAL_WIDTH, '  ') +
        coverageLines(x),
    );
  }
  return parts.join('');
}
