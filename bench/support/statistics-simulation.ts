/**
 * Simulated runs with known truth, for checking the service's intervals and its compare
 * (docs/scoring.md, "Checked by simulation"). The simulated episodes are ordinary
 * RunEpisodeDoc records, and they go through the service's own code: `computeSummary`
 * (scheduler/runs/summaries/summary.ts, which calls summary-tally.ts and statistics.ts) for the
 * intervals and `comparePair` (scheduler/runs/compare.ts) for the verdicts. Nothing here
 * computes an interval or a test itself.
 *
 * The model. An agent's scenarios are a sample from a population of scenarios (a world's
 * templates and variants); what a summary estimates is the agent's expected score over that
 * population. A population is a mixture of scenario kinds, each with its own success
 * probability p, the rewards of a success (1, or 1 minus habit penalties) and of a failure
 * (partial credit, at most 0.5). A simulated run draws `scenarios` kinds from the mixture
 * and plays each `repeats` times; the repeats of one scenario share its p, so they are not
 * independent (a scenario the agent cannot do fails every repeat). The truths:
 * - mean reward: sum over kinds of w * (p * E[success reward] + (1 - p) * E[failure reward]);
 * - success rate: sum of w * p;
 * - pass^k: sum of w * p^k.
 */
import {
  comparePair,
  computeSummary,
  mulberry32,
  type RunEpisodeDoc,
  type RunDoc,
} from '../../scheduler/runs/index.js';

/** A discrete distribution: values and their probabilities (summing to 1). */
export type Discrete = Array<[value: number, probability: number]>;

/** One kind of scenario in a population. */
export interface ScenarioKind {
  /** Share of the population. */
  weight: number;
  /** Success probability of one episode. */
  p: number;
  /** Reward of a success (habit penalties take 0.05 each). */
  success: Discrete;
  /** Reward of a failure (0.5 x P x G, minus penalties). */
  failure: Discrete;
}

export type Population = ScenarioKind[];

const FULL: Discrete = [[1, 1]];
const MOSTLY_FULL: Discrete = [
  [1, 0.8],
  [0.95, 0.15],
  [0.9, 0.05],
];
const PARTIAL: Discrete = [
  [0, 0.4],
  [0.125, 0.2],
  [0.25, 0.25],
  [0.5, 0.15],
];
const NOTHING: Discrete = [[0, 1]];

/**
 * The agents of the check: a weak, a middling and a strong one, each a mixture of scenarios
 * it can always, sometimes and never do, so that repeats are strongly correlated.
 */
export const POPULATIONS: Record<string, Population> = {
  weak: [
    { weight: 0.4, p: 0, success: FULL, failure: NOTHING },
    { weight: 0.3, p: 0.2, success: MOSTLY_FULL, failure: PARTIAL },
    { weight: 0.2, p: 0.6, success: MOSTLY_FULL, failure: PARTIAL },
    { weight: 0.1, p: 1, success: FULL, failure: NOTHING },
  ],
  middling: [
    { weight: 0.2, p: 0, success: FULL, failure: PARTIAL },
    { weight: 0.2, p: 0.3, success: MOSTLY_FULL, failure: PARTIAL },
    { weight: 0.3, p: 0.7, success: MOSTLY_FULL, failure: PARTIAL },
    { weight: 0.3, p: 1, success: MOSTLY_FULL, failure: NOTHING },
  ],
  strong: [
    { weight: 0.05, p: 0, success: FULL, failure: PARTIAL },
    { weight: 0.15, p: 0.6, success: MOSTLY_FULL, failure: PARTIAL },
    { weight: 0.3, p: 0.9, success: MOSTLY_FULL, failure: PARTIAL },
    { weight: 0.5, p: 1, success: FULL, failure: NOTHING },
  ],
};

const expectation = (d: Discrete): number => d.reduce((s, [v, q]) => s + v * q, 0);

/** The population's true mean reward, success rate and pass^k. */
export function truths(pop: Population, k: number): { mean_reward: number; success_rate: number; pass_at_k: number } {
  let mean = 0;
  let rate = 0;
  let passK = 0;
  for (const c of pop) {
    mean += c.weight * (c.p * expectation(c.success) + (1 - c.p) * expectation(c.failure));
    rate += c.weight * c.p;
    passK += c.weight * c.p ** k;
  }
  return { mean_reward: mean, success_rate: rate, pass_at_k: passK };
}

function draw<T>(next: () => number, items: Array<[T, number]>): T {
  let u = next();
  for (const [v, q] of items) {
    if (u < q) return v;
    u -= q;
  }
  return items[items.length - 1]![0];
}

/** A population in which every kind succeeds a share `lift` of the times it failed (an agent better by design). */
export function lifted(pop: Population, lift: number): Population {
  return pop.map((c) => ({ ...c, p: c.p + lift * (1 - c.p) }));
}

let seq = 0;

/** The scored, finished record of one simulated episode. */
function episode(
  scenario: number,
  profile: string,
  repeat: number,
  reward: number,
  success: boolean,
  runId: string,
): RunEpisodeDoc {
  const n = ++seq;
  return {
    _id: `sim_${n}`,
    project_id: 'sim',
    run_id: runId,
    shard_id: 'sim',
    slot: n,
    scenario_doc_id: `sc_${scenario}`,
    scenario_id: `s${String(scenario).padStart(4, '0')}`,
    split: 'train',
    profile_id: profile,
    profile: `${profile}@v1`,
    driver: 'llm',
    repeat,
    attempt: 1,
    replaces: null,
    replaced_by: null,
    status: 'finished',
    termination: 'completed',
    reward,
    oracle: {
      false_completion: false,
      duplicate_effects: [],
      failure: success ? null : { cause: 'agent', reason: 'simulated' },
    } as never,
    success,
    cost_usd: 0,
    tokens: { prompt: 0, completion: 0, total: 0 },
    turns: 1,
    environment_error: null,
    worker_id: null,
    worker_address: null,
    created_at: '',
    started_at: null,
    ended_at: null,
  } as RunEpisodeDoc;
}

/** `repeats` episodes of each drawn scenario kind for one profile, under `runId`. */
function play(
  next: () => number,
  kinds: ScenarioKind[],
  repeats: number,
  profile: string,
  runId: string,
): RunEpisodeDoc[] {
  const out: RunEpisodeDoc[] = [];
  kinds.forEach((c, i) => {
    for (let r = 1; r <= repeats; r++) {
      const success = next() < c.p;
      const reward = success ? draw(next, c.success) : draw(next, c.failure);
      out.push(episode(i, profile, r, reward, success, runId));
    }
  });
  return out;
}

/** `n` scenario kinds drawn from the population (the scenarios of one run), by index so two populations can share them. */
function drawScenarios(next: () => number, pop: Population, n: number): number[] {
  const items: Array<[number, number]> = pop.map((c, i) => [i, c.weight]);
  return Array.from({ length: n }, () => draw(next, items));
}

export interface CoverageResult {
  runs: number;
  scenarios: number;
  repeats: number;
  truth: { mean_reward: number; success_rate: number; pass_at_k: number };
  /** Share of runs whose interval held the truth, among the runs that got one. */
  coverage: { mean_reward: number; success_rate: number; pass_at_k: number };
  /** Share of runs whose summary gave no interval (nothing scored). */
  declined: { mean_reward: number; success_rate: number; pass_at_k: number };
  /** Share of runs whose interval was the conservative small-sample one (fewer than MIN_INTERVAL_SCENARIOS scenarios). */
  conservative: { mean_reward: number; success_rate: number; pass_at_k: number };
  /** Mean interval width. */
  width: { mean_reward: number; success_rate: number; pass_at_k: number };
}

const inside = (ci: [number, number] | null, x: number): boolean =>
  ci !== null && ci[0] <= x + 1e-9 && x <= ci[1] + 1e-9;

/**
 * Coverage of the summary's 95% intervals over `runs` simulated runs of one agent: each run
 * draws its scenarios, plays them `repeats` times and is summarized by `computeSummary`.
 */
export function coverage(
  pop: Population,
  scenarios: number,
  repeats: number,
  runs: number,
  seed: number,
): CoverageResult {
  const next = mulberry32(seed);
  const truth = truths(pop, repeats);
  const hits = { mean_reward: 0, success_rate: 0, pass_at_k: 0 };
  const widths = { mean_reward: 0, success_rate: 0, pass_at_k: 0 };
  const nulls = { mean_reward: 0, success_rate: 0, pass_at_k: 0 };
  const marked = { mean_reward: 0, success_rate: 0, pass_at_k: 0 };
  const run = {
    profiles: [{ id: 'agent', label: 'agent' }],
    episodes: scenarios * repeats,
    config: { repeats },
  } as Pick<RunDoc, 'profiles' | 'episodes' | 'config'>;
  for (let r = 0; r < runs; r++) {
    const kinds = drawScenarios(next, pop, scenarios).map((i) => pop[i]!);
    const s = computeSummary(run, play(next, kinds, repeats, 'agent', 'sim')).profiles.agent!;
    const intervals = { mean_reward: s.mean_reward_ci, success_rate: s.success_rate_ci, pass_at_k: s.pass_at_k_ci };
    for (const key of ['mean_reward', 'success_rate', 'pass_at_k'] as const) {
      const ci = intervals[key];
      if (inside(ci, truth[key])) hits[key]++;
      if (ci) widths[key] += ci[1] - ci[0];
      else nulls[key]++;
      if (s.conservative_ci.includes(`${key}_ci`)) marked[key]++;
    }
  }
  const given = (key: keyof typeof hits) => runs - nulls[key];
  const per = (o: typeof hits, of: (key: keyof typeof hits) => number) => ({
    mean_reward: o.mean_reward / Math.max(1, of('mean_reward')),
    success_rate: o.success_rate / Math.max(1, of('success_rate')),
    pass_at_k: o.pass_at_k / Math.max(1, of('pass_at_k')),
  });
  return {
    runs,
    scenarios,
    repeats,
    truth,
    coverage: per(hits, given),
    declined: per(nulls, () => runs),
    conservative: per(marked, () => runs),
    width: per(widths, given),
  };
}

export interface CompareResult {
  runs: number;
  scenarios: number;
  repeats: number;
  /** True difference in mean reward, b - a. */
  true_difference: number;
  /** Share of comparisons with a verdict other than within_noise (A/A: the false-difference rate). */
  called_different: number;
  /** Share that said b_better (power, when b is better). */
  called_b_better: number;
  /** Median of the reported minimum_detectable_difference (NaN when no comparison reported one). */
  median_mdd: number;
  /** Share of comparisons whose difference_ci held the true difference. */
  ci_coverage: number;
  /** Share of comparisons that could not decide (fewer than 6 paired scenarios: verdict not_enough_data). */
  undecided: number;
}

/**
 * `runs` comparisons of two agents on the same drawn scenarios (as `GET /v1/compare` pairs
 * two runs on one world version): a plays `pop`, b plays `popB` (the same population for an
 * A/A check), each with its own independent repeats; each pair goes through `comparePair`.
 */
export function compareCheck(
  pop: Population,
  popB: Population,
  scenarios: number,
  repeats: number,
  runs: number,
  seed: number,
): CompareResult {
  const next = mulberry32(seed);
  let different = 0;
  let bBetter = 0;
  let held = 0;
  let undecided = 0;
  const truth = truths(popB, repeats).mean_reward - truths(pop, repeats).mean_reward;
  const mdds: number[] = [];
  for (let r = 0; r < runs; r++) {
    const idx = drawScenarios(next, pop, scenarios);
    const a = play(
      next,
      idx.map((i) => pop[i]!),
      repeats,
      'agent',
      'run_a',
    );
    const b = play(
      next,
      idx.map((i) => popB[i]!),
      repeats,
      'agent',
      'run_b',
    );
    const side = (id: string, episodes: RunEpisodeDoc[], label: string) => ({
      run: { _id: id } as RunDoc,
      episodes,
      label,
    });
    const c = comparePair(side('run_a', a, 'a'), 'agent', side('run_b', b, 'b'), 'agent') as {
      verdict: string;
      minimum_detectable_difference: number | null;
      difference_ci: [number, number];
    };
    if (inside(c.difference_ci, truth)) held++;
    if (c.verdict === 'not_enough_data') undecided++;
    else if (c.verdict !== 'within_noise') different++;
    if (c.verdict === 'b_better') bBetter++;
    if (c.minimum_detectable_difference !== null) mdds.push(c.minimum_detectable_difference);
  }
  mdds.sort((x, y) => x - y);
  return {
    runs,
    scenarios,
    repeats,
    true_difference: truth,
    called_different: different / runs,
    called_b_better: bBetter / runs,
    median_mdd: mdds.length ? mdds[Math.floor(mdds.length / 2)]! : NaN,
    ci_coverage: held / runs,
    undecided: undecided / runs,
  };
}

/** The lift that makes `lifted(pop, lift)` better than `pop` by `difference` in mean reward (bisection). */
export function liftFor(pop: Population, difference: number): number {
  let lo = 0;
  let hi = 1;
  const base = truths(pop, 1).mean_reward;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (truths(lifted(pop, mid), 1).mean_reward - base < difference) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** log(n!) by summing logs (n is a number of scenarios, so small). */
function logFactorial(n: number): number {
  let s = 0;
  for (let i = 2; i <= n; i++) s += Math.log(i);
  return s;
}

/**
 * The exact coverage of pass_at_k_ci, without simulation noise: pass^k is one 0/1 value per
 * scenario (all k repeats passed), so over `scenarios` drawn scenarios the count that passed
 * is Binomial(scenarios, true pass^k). For each count x the service's computeSummary reads a
 * run of x scenarios that pass every repeat and the rest that fail one; the coverage is the
 * binomial probability of the x whose interval holds the truth. Null when the summaries
 * decline the interval.
 */
export function exactPassAtKCoverage(pop: Population, scenarios: number, repeats: number): number | null {
  const truth = truths(pop, repeats).pass_at_k;
  const run = {
    profiles: [{ id: 'agent', label: 'agent' }],
    episodes: scenarios * repeats,
    config: { repeats },
  } as Pick<RunDoc, 'profiles' | 'episodes' | 'config'>;
  let covered = 0;
  for (let x = 0; x <= scenarios; x++) {
    const episodes: RunEpisodeDoc[] = [];
    for (let s = 0; s < scenarios; s++)
      for (let r = 1; r <= repeats; r++) {
        const success = s < x || r > 1;
        episodes.push(episode(s, 'agent', r, success ? 1 : 0, success, 'exact'));
      }
    const ci = computeSummary(run, episodes).profiles.agent!.pass_at_k_ci;
    if (ci === null) return null;
    const log =
      logFactorial(scenarios) -
      logFactorial(x) -
      logFactorial(scenarios - x) +
      (x > 0 ? x * Math.log(truth) : 0) +
      (scenarios - x > 0 ? (scenarios - x) * Math.log(1 - truth) : 0);
    if (inside(ci, truth)) covered += Math.exp(log);
  }
  return covered;
}
