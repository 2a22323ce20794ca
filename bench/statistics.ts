/**
 * Statistics benchmark: are the summary's 95% intervals right, and does compare call two
 * identical agents different at most 5% of the time? (docs/scoring.md, "Checked by
 * simulation"; issue 25, item 8.)
 *
 *   node --import tsx bench/statistics.ts [--runs 2000] [--compares 1000] [--seed 1] [--smoke] [--write]
 *
 * Simulated agents with known per-scenario success probabilities and reward distributions
 * (bench/support/statistics-simulation.ts) play runs whose repeats of one scenario share its
 * success probability (not independent). Each run goes through the service's own
 * `computeSummary` and each pair of runs through `comparePair`; nothing here computes an
 * interval or a test.
 * 1. Coverage: the share of --runs simulated runs whose mean_reward_ci, success_rate_ci and
 *    pass_at_k_ci hold the true value, for a weak, a middling and a strong agent at several
 *    numbers of scenarios and repeats.
 * 2. A/A: --compares pairs of runs of one agent (same scenarios, independent repeats): how
 *    often the verdict is not `within_noise`.
 * 3. Power: b made better by exactly the median minimum_detectable_difference reported in the
 *    A/A comparisons: how often the verdict is `b_better` (the MDD promises about 80%).
 * `--exact` instead prints (and with --write records) the exact coverage of pass_at_k_ci,
 * which needs no simulation: pass^k is one 0/1 value per scenario, a binomial count.
 * `--smoke` runs 200 runs and 200 compares (a quick look, not the recorded figures);
 * `--write` puts the figures into BENCHMARKS.md between this benchmark's markers.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { MIN_INTERVAL_SCENARIOS } from '../scheduler/runs/index.js';
import { writeBenchSection } from './support/benchmarks-file.js';
import { smokeFigures } from './support/smoke.js';
import {
  POPULATIONS,
  compareCheck,
  coverage,
  exactPassAtKCoverage,
  lifted,
  liftFor,
  type CoverageResult,
} from './support/statistics-simulation.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '2000' },
    compares: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    smoke: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    exact: { type: 'boolean', default: false },
  },
});
const RUNS = values.smoke ? 200 : Number(values.runs);
const COMPARES = values.smoke ? 200 : Number(values.compares);
const SEED = Number(values.seed);

const SIZES: Array<[scenarios: number, repeats: number]> = [
  [2, 3],
  [3, 1],
  [5, 3],
  [8, 3],
  [10, 3],
  [20, 3],
  [30, 1],
  [30, 3],
  [30, 5],
  [100, 3],
];
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const started = Date.now();

if (values.exact) {
  const lines: string[] = [];
  for (const [name, pop] of Object.entries(POPULATIONS)) {
    const cells = SIZES.map(([n, k]) => {
      const c = exactPassAtKCoverage(pop, n, k);
      return c === null ? 'declined' : `${(100 * c).toFixed(2)}%`;
    });
    lines.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  const section = [
    '<!-- bench:statistics-exact start -->',
    '## pass^k coverage, exact (bench/statistics.ts --exact)',
    '',
    '`node --import tsx bench/statistics.ts --exact`: the coverage of `pass_at_k_ci` without simulation noise. pass^k is one 0/1 value per scenario, so the number of scenarios that passed all k repeats is Binomial(scenarios, true pass^k); each count goes through `computeSummary`, and the coverage is the probability of the counts whose interval holds the truth. The simulated figures above differ from these by Monte Carlo error (a standard error of about 0.5 points at 2,000 runs).',
    '',
    `| agent | ${SIZES.map(([n, k]) => `${n} x ${k}`).join(' | ')} |`,
    `|---|${SIZES.map(() => '---').join('|')}|`,
    ...lines,
    '<!-- bench:statistics-exact end -->',
  ].join('\n');
  if (values.write) writeBenchSection('statistics-exact', section);
  console.log(section);
  process.exit(0);
}

const coverageRows: CoverageResult[] = [];
const coverageLines: string[] = [];
let i = 0;
for (const [name, pop] of Object.entries(POPULATIONS)) {
  for (const [n, k] of SIZES) {
    const c = coverage(pop, n, k, RUNS, SEED + 100 * i++);
    coverageRows.push(c);
    // below MIN_INTERVAL_SCENARIOS scenarios a summary's intervals are the conservative ones: marked *
    const cov = (key: keyof CoverageResult['coverage']) =>
      c.declined[key] === 1
        ? 'declined'
        : `${pct(c.coverage[key])}${c.conservative[key] > 0 ? '*' : ''}${c.declined[key] > 0 ? ` (${pct(c.declined[key])} declined)` : ''}`;
    const width = (key: keyof CoverageResult['width']) => (c.declined[key] === 1 ? '-' : c.width[key].toFixed(3));
    const line = `| ${name} | ${n} | ${k} | ${c.truth.mean_reward.toFixed(3)} / ${c.truth.success_rate.toFixed(3)} / ${c.truth.pass_at_k.toFixed(3)} | ${cov('mean_reward')} | ${cov('success_rate')} | ${cov('pass_at_k')} | ${width('mean_reward')} / ${width('success_rate')} / ${width('pass_at_k')} |`;
    coverageLines.push(line);
    console.log(line);
  }
}

const compareLines: string[] = [];
for (const [name, n, k] of [
  ['middling', 3, 3],
  ['middling', 6, 3],
  ['middling', 8, 3],
  ['weak', 6, 3],
  ['weak', 8, 3],
  ['middling', 10, 3],
  ['middling', 30, 3],
  ['strong', 30, 3],
  ['weak', 30, 1],
] as const) {
  const pop = POPULATIONS[name]!;
  const aa = compareCheck(pop, pop, n, k, COMPARES, SEED + 7000 + n * 10 + k);
  if (Number.isNaN(aa.median_mdd)) {
    // fewer than 6 paired scenarios: compare declines every verdict and reports no MDD
    const line = `| ${name} | ${n} | ${k} | ${pct(aa.called_different)} (${pct(aa.undecided)} not_enough_data) | - | - | - | - | ${pct(aa.ci_coverage)} |`;
    compareLines.push(line);
    console.log(line);
    continue;
  }
  // the MDD a comparison reports comes from its own differences, which vary more when b is
  // better than in the A/A pairs: find the difference that equals the median MDD reported at it
  let target = aa.median_mdd;
  for (let step = 0; step < 3; step++) {
    const probe = compareCheck(
      pop,
      lifted(pop, liftFor(pop, target)),
      n,
      k,
      Math.max(100, COMPARES / 4),
      SEED + 8000 + step,
    );
    target = probe.median_mdd;
  }
  const lift = liftFor(pop, target);
  const power = compareCheck(pop, lifted(pop, lift), n, k, COMPARES, SEED + 9000 + n * 10 + k);
  // a lift of 1 (b solves every scenario) is the largest difference this agent can gain: below the MDD, power at the MDD is not measured
  const capped = lift > 0.999 ? ' (the most possible)' : '';
  const line = `| ${name} | ${n} | ${k} | ${pct(aa.called_different)}${aa.undecided > 0 ? ` (${pct(aa.undecided)} not_enough_data)` : ''} | ${aa.median_mdd.toFixed(3)} | ${power.true_difference.toFixed(3)}${capped} | ${power.median_mdd.toFixed(3)} | ${pct(power.called_b_better)} | ${pct(aa.ci_coverage)} / ${pct(power.ci_coverage)} |`;
  compareLines.push(line);
  console.log(line);
}

const KEYS = ['mean_reward', 'success_rate', 'pass_at_k'] as const;
// every cell has intervals: the clustered Wilson from MIN_INTERVAL_SCENARIOS scenarios, the conservative ones below
const all = coverageRows.flatMap((c) => KEYS.filter((key) => c.declined[key] < 1).map((key) => c.coverage[key]));
const from30 = coverageRows
  .filter((c) => c.scenarios >= MIN_INTERVAL_SCENARIOS)
  .flatMap((c) => KEYS.map((key) => c.coverage[key]));
const seconds = ((Date.now() - started) / 1000).toFixed(1);
const load = os
  .loadavg()
  .map((x) => x.toFixed(1))
  .join(' / ');
const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
const command = `node --import tsx bench/statistics.ts${values.smoke ? ' --smoke' : ` --runs ${RUNS} --compares ${COMPARES}`} --seed ${SEED}`;
const section = [
  '<!-- bench:statistics start -->',
  '## Statistics checked by simulation (bench/statistics.ts)',
  '',
  `\`${command}\` on ${os.cpus().length} cores (${cpu}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}; ${seconds} s. Load average when it finished: ${load} (1/5/15 min).`,
  "Simulated agents (bench/support/statistics-simulation.ts: mixtures of scenarios they always, sometimes and never solve, with partial rewards on failure and habit penalties on success) through the service's own `computeSummary` and `comparePair`. Each run draws its scenarios from the agent's population; the repeats of a scenario share its success probability. Truth: the population's expected mean reward, success rate and pass^k.",
  '',
  `Coverage of the 95% intervals, ${RUNS} simulated runs per row (min ${pct(Math.min(...all))} over every cell; ${pct(Math.min(...from30))} to ${pct(Math.max(...from30))} from ${MIN_INTERVAL_SCENARIOS} scenarios; * marks the conservative Clopper-Pearson intervals summaries give below ${MIN_INTERVAL_SCENARIOS} scenarios, docs/scoring.md):`,
  '',
  '| agent | scenarios | repeats (k) | truth: mean reward / success / pass^k | mean_reward_ci | success_rate_ci | pass_at_k_ci | mean width |',
  '|---|---|---|---|---|---|---|---|',
  ...coverageLines,
  '',
  `Compare, ${COMPARES} pairs of runs per row: A/A (one agent twice, same scenarios, independent repeats) called different, and the median minimum detectable difference (MDD) it reported; then b made better (it succeeds a fixed share of the times a fails) by a true difference equal to the median MDD the A/B comparisons themselves report, and called b_better (power; the MDD promises about 80% when every scenario's difference moves by it; '(the most possible)' marks a lift capped where b solves every scenario, below the MDD, so there the power is not at the MDD); last, how often difference_ci held the true difference (A/A / A/B). Below 6 paired scenarios compare gives no verdict (not_enough_data) and its interval is the whole scale:`,
  '',
  '| agent | scenarios | repeats | A/A called different | A/A median MDD | true difference | A/B median MDD | power at the MDD | difference_ci coverage |',
  '|---|---|---|---|---|---|---|---|---|',
  ...compareLines,
  '<!-- bench:statistics end -->',
].join('\n');
if (values.write) writeBenchSection('statistics', section);
console.log(`\n${section}`);
if (values.smoke)
  smokeFigures('statistics', {
    min_coverage: Math.min(...all),
    runs_per_cell: RUNS,
    seconds: Math.max(Number(seconds), 0.1),
  });
