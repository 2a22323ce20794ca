import type { Split } from '../../../world/index.js';
import { countsAgainstAgent, type FailureCounts, type ScenarioCounts } from './summary-stats.js';
import { summaryInterval } from './intervals.js';
import { slotOutcome, type AgainstAgentCause, type UnscoredCause } from './coverage.js';
import type { EpisodeStatus, RunEpisodeDoc, ScoreBlock } from '../types.js';

/**
 * Summaries from sums. A run's summary (docs/runs.md, Summary) is a function of a few sums
 * per scenario and per group, and sums add up: each shard keeps the tally of its own slots
 * (a slot's attempts all belong to one shard), the coordinator adds the shards' tallies
 * into the run's stored summary, and reading a run reads that summary, however many
 * episodes the run has. The intervals need nothing more than the per-scenario sums either:
 * the clustered Wilson interval reads each scenario's sum and count.
 */

/** One scenario's scored standing attempts in a group. */
export interface ScenarioTally {
  scenario_id: string;
  split: Split;
  scored: number;
  successes: number;
  reward_sum: number;
}

/** The sums behind one ScoreBlock (one profile, or one profile and split). */
export interface BlockTally {
  /** Standing attempts (one per slot). */
  episodes: number;
  scored: number;
  pending: number;
  cancelled: number;
  successes: number;
  reward_sum: number;
  turns_sum: number;
  false_completions: number;
  duplicate_effects: number;
  customer_violations: number;
  /** Every attempt that ended with environment_error. */
  environment_errors: number;
  /** Every attempt's spend. */
  cost_usd: number;
  tokens: number;
  failures: FailureCounts;
  /** Standing attempts scored though the agent failed by its own doing, by termination (coverage.ts); absent in tallies stored before. */
  against_agent?: Partial<Record<AgainstAgentCause, number>>;
  /** Standing attempts with no score, by cause (coverage.ts); absent in tallies stored before. */
  unscored?: Partial<Record<UnscoredCause, number>>;
  /** Keyed by scenario document id. */
  scenarios: Record<string, ScenarioTally>;
}

/** The sums behind a RunSummary: blocks by profile id and split, attempts by status, spend. */
export interface RunTally {
  profiles: Record<string, Partial<Record<Split, BlockTally>>>;
  attempts: Record<EpisodeStatus, number>;
  cost_usd: number;
}

const SPLITS: Split[] = ['train', 'dev', 'holdout'];

const emptyBlock = (): BlockTally => ({
  episodes: 0,
  scored: 0,
  pending: 0,
  cancelled: 0,
  successes: 0,
  reward_sum: 0,
  turns_sum: 0,
  false_completions: 0,
  duplicate_effects: 0,
  customer_violations: 0,
  environment_errors: 0,
  cost_usd: 0,
  tokens: 0,
  failures: { agent: 0, environment: 0, judge: 0, customer: 0, checks: 0 },
  against_agent: {},
  unscored: {},
  scenarios: {},
});

export const emptyRunTally = (): RunTally => ({
  profiles: {},
  attempts: { queued: 0, running: 0, finished: 0, failed: 0, cancelled: 0 },
  cost_usd: 0,
});

/** The latest attempt of every slot: the one that stands for it in the scores. */
export function finalAttempts(episodes: RunEpisodeDoc[]): RunEpisodeDoc[] {
  const bySlot = new Map<number, RunEpisodeDoc>();
  for (const e of episodes) {
    const seen = bySlot.get(e.slot);
    if (!seen || e.attempt > seen.attempt) bySlot.set(e.slot, e);
  }
  return [...bySlot.values()];
}

/**
 * The tally of one group's attempts, by the rules of docs/runs.md: each slot counts once, by
 * its latest attempt; environment errors (every attempt) are counted but never scored;
 * failures attributed to the simulated customer or the checks are counted in `failures` and
 * not scored; spend and tokens add up every attempt.
 */
export function tallyBlock(all: RunEpisodeDoc[]): BlockTally {
  const t = emptyBlock();
  for (const e of all) {
    t.cost_usd += e.cost_usd ?? 0;
    t.tokens += e.tokens?.total ?? 0;
    if (e.termination === 'environment_error') {
      t.environment_errors++;
      t.failures.environment++;
    }
  }
  for (const e of finalAttempts(all)) {
    t.episodes++;
    const where = slotOutcome(e);
    if (where.outcome === 'unscored') t.unscored![where.cause] = (t.unscored![where.cause] ?? 0) + 1;
    else if (where.against_agent)
      t.against_agent![where.against_agent] = (t.against_agent![where.against_agent] ?? 0) + 1;
    if (e.status === 'queued' || e.status === 'running') t.pending++;
    if (e.status === 'cancelled') t.cancelled++;
    if (e.status === 'finished' && e.reward !== null && !e.success) {
      const cause = e.oracle?.failure?.cause ?? 'agent';
      if (cause !== 'environment') t.failures[cause]++;
    }
    if (e.status !== 'finished' || e.reward === null || !countsAgainstAgent(e)) continue;
    t.scored++;
    t.reward_sum += e.reward;
    t.turns_sum += e.turns;
    if (e.success) t.successes++;
    if (e.oracle?.false_completion) t.false_completions++;
    if ((e.oracle?.duplicate_effects.length ?? 0) > 0) t.duplicate_effects++;
    if ((e.oracle?.customer_violations?.length ?? 0) > 0) t.customer_violations++;
    const s = (t.scenarios[e.scenario_doc_id] ??= {
      scenario_id: e.scenario_id,
      split: e.split,
      scored: 0,
      successes: 0,
      reward_sum: 0,
    });
    s.scored++;
    s.reward_sum += e.reward;
    if (e.success) s.successes++;
  }
  return t;
}

/** The tally of a run's (or a shard's) attempts. */
export function tallyRun(episodes: RunEpisodeDoc[]): RunTally {
  const t = emptyRunTally();
  const groups = new Map<string, RunEpisodeDoc[]>();
  for (const e of episodes) {
    t.attempts[e.status]++;
    t.cost_usd += e.cost_usd ?? 0;
    const key = `${e.profile_id}\u0000${e.split}`;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  for (const [key, group] of groups) {
    const [profile, split] = key.split('\u0000') as [string, Split];
    (t.profiles[profile] ??= {})[split] = tallyBlock(group);
  }
  return t;
}

/** a + b (neither is changed). */
export function addBlocks(a: BlockTally, b: BlockTally): BlockTally {
  const out = emptyBlock();
  for (const k of Object.keys(out) as Array<keyof BlockTally>) {
    if (typeof out[k] === 'number') (out[k] as number) = (a[k] as number) + (b[k] as number);
  }
  for (const c of Object.keys(out.failures) as Array<keyof FailureCounts>)
    out.failures[c] = (a.failures[c] ?? 0) + (b.failures[c] ?? 0); // tallies stored before `judge` lack it
  for (const src of [a.against_agent ?? {}, b.against_agent ?? {}])
    for (const [k, n] of Object.entries(src) as Array<[AgainstAgentCause, number]>)
      out.against_agent![k] = (out.against_agent![k] ?? 0) + n;
  for (const src of [a.unscored ?? {}, b.unscored ?? {}])
    for (const [k, n] of Object.entries(src) as Array<[UnscoredCause, number]>)
      out.unscored![k] = (out.unscored![k] ?? 0) + n;
  for (const src of [a.scenarios, b.scenarios]) {
    for (const [id, s] of Object.entries(src)) {
      const into = (out.scenarios[id] ??= { ...s, scored: 0, successes: 0, reward_sum: 0 });
      into.scored += s.scored;
      into.successes += s.successes;
      into.reward_sum += s.reward_sum;
    }
  }
  return out;
}

/** The sum of several tallies (shards of one run). */
export function addRunTallies(tallies: RunTally[]): RunTally {
  const out = emptyRunTally();
  for (const t of tallies) {
    for (const s of Object.keys(out.attempts) as EpisodeStatus[]) out.attempts[s] += t.attempts[s] ?? 0;
    out.cost_usd += t.cost_usd;
    for (const [profile, bySplit] of Object.entries(t.profiles)) {
      const into = (out.profiles[profile] ??= {});
      for (const split of SPLITS) {
        const b = bySplit[split];
        if (b) into[split] = into[split] ? addBlocks(into[split]!, b) : b;
      }
    }
  }
  return out;
}

/** The profile's blocks of every split added up (scenarios belong to one split each). */
export function wholeProfile(bySplit: Partial<Record<Split, BlockTally>>): BlockTally {
  return SPLITS.reduce((acc, s) => (bySplit[s] ? addBlocks(acc, bySplit[s]!) : acc), emptyBlock());
}

const round = (n: number, digits = 4): number => Math.round(n * 10 ** digits) / 10 ** digits;
const share = (part: number, whole: number): number | null => (whole === 0 ? null : round(part / whole));

/**
 * The ScoreBlock of a tally: means and rates over scored episodes; pass^k (k = repeats) is
 * the share of scenarios whose k repeats all scored and all succeeded, among the scenarios
 * whose k repeats all scored; intervals as in summary-stats.ts.
 */
export function scoreOf(t: BlockTally, k: number): ScoreBlock {
  const ids = Object.keys(t.scenarios).sort();
  const scenarios = ids.map((id) => t.scenarios[id]!);
  const complete = scenarios.filter((s) => s.scored >= k);
  const allPassed = complete.filter((s) => s.successes === s.scored).length;
  const meanCi = summaryInterval(scenarios.map((s) => ({ sum: s.reward_sum, count: s.scored })));
  const rateCi = summaryInterval(scenarios.map((s) => ({ sum: s.successes, count: s.scored })));
  // one value per scenario (all k passed or not): the same interval as a success rate over scenarios
  const passCi = summaryInterval(complete.map((s) => ({ sum: s.successes === s.scored ? 1 : 0, count: 1 })));
  return {
    episodes: t.episodes,
    scored: t.scored,
    pending: t.pending,
    mean_reward: t.scored === 0 ? null : round(t.reward_sum / t.scored),
    success_rate: share(t.successes, t.scored),
    pass_at_k: share(allPassed, complete.length),
    k,
    false_completion_rate: share(t.false_completions, t.scored),
    duplicate_effect_rate: share(t.duplicate_effects, t.scored),
    environment_errors: t.environment_errors,
    customer_violations: t.customer_violations,
    cancelled: t.cancelled,
    cost_usd: round(t.cost_usd, 6),
    tokens: t.tokens,
    mean_turns: t.scored === 0 ? null : round(t.turns_sum / t.scored),
    mean_reward_ci: meanCi?.ci ?? null,
    success_rate_ci: rateCi?.ci ?? null,
    pass_at_k_ci: passCi?.ci ?? null,
    pass_at_k_scenarios: complete.length,
    conservative_ci: (
      [
        ['mean_reward_ci', meanCi],
        ['success_rate_ci', rateCi],
        ['pass_at_k_ci', passCi],
      ] as const
    )
      .filter(([, c]) => c?.conservative)
      .map(([name]) => name),
    failures: { ...t.failures },
  };
}

/** Success counts over the repeats of each scenario, keyed by scenario id (in id order). */
export function scenarioCountsOf(t: BlockTally): Record<string, ScenarioCounts> {
  const out: Record<string, ScenarioCounts> = {};
  const byId = Object.values(t.scenarios).sort((a, b) => (a.scenario_id < b.scenario_id ? -1 : 1));
  for (const s of byId)
    out[s.scenario_id] = {
      split: s.split,
      scored: s.scored,
      successes: s.successes,
      mean_reward: Math.round((s.reward_sum / s.scored) * 10_000) / 10_000,
    };
  return out;
}
