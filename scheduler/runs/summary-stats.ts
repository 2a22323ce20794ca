import type { FailureCause } from '../../episode-actor/index.js';
import { clusterBootstrapMean, wilson } from './statistics.js';
import type { RunEpisodeDoc } from './types.js';

/** Failed episodes by cause (docs/scoring.md, Failure attribution). */
export type FailureCounts = Record<FailureCause, number>;

/** The intervals and failure counts a score block carries besides its means and rates (docs/runs.md, Summary). */
export interface BlockStatistics {
  /** 95% cluster-bootstrap interval of `mean_reward` (scenarios resampled). */
  mean_reward_ci: [number, number] | null;
  /** 95% Wilson interval of `success_rate` over scored episodes. */
  success_rate_ci: [number, number] | null;
  /** 95% Wilson interval of `pass_at_k` over the scenarios whose k repeats all scored. */
  pass_at_k_ci: [number, number] | null;
  /** Scenarios whose k repeats all scored (the n of pass^k). */
  pass_at_k_scenarios: number;
  failures: FailureCounts;
}

/** Per-scenario counts over the repeats of one profile. */
export interface ScenarioCounts {
  split: RunEpisodeDoc['split'];
  scored: number;
  successes: number;
  mean_reward: number | null;
}

/**
 * Whether a scored episode's failure is the agent's: failures attributed to the simulated
 * customer or to the checks are left out of every score, as environment errors are.
 */
export function countsAgainstAgent(e: RunEpisodeDoc): boolean {
  const cause = e.oracle?.failure?.cause;
  return cause !== 'customer' && cause !== 'checks';
}

/** Failed attempts (every attempt for environment errors, standing ones otherwise) by cause. */
export function failureCounts(all: RunEpisodeDoc[], final: RunEpisodeDoc[]): FailureCounts {
  const out: FailureCounts = { agent: 0, environment: 0, customer: 0, checks: 0 };
  out.environment = all.filter((e) => e.termination === 'environment_error').length;
  for (const e of final) {
    if (e.status !== 'finished' || e.reward === null || e.success) continue;
    const cause = e.oracle?.failure?.cause ?? 'agent';
    if (cause !== 'environment') out[cause]++;
  }
  return out;
}

/** The intervals of a block from its scored episodes grouped by scenario (in scenario-id order). */
export function blockStatistics(
  byScenario: Map<string, RunEpisodeDoc[]>,
  k: number,
  failures: FailureCounts,
): BlockStatistics {
  const ids = [...byScenario.keys()].sort();
  const groups = ids.map((id) => byScenario.get(id)!);
  const scored = groups.flat();
  const complete = groups.filter((xs) => xs.length >= k);
  return {
    mean_reward_ci: clusterBootstrapMean(groups.map((xs) => xs.map((e) => e.reward!))),
    success_rate_ci: wilson(scored.filter((e) => e.success).length, scored.length),
    pass_at_k_ci: wilson(complete.filter((xs) => xs.every((e) => e.success)).length, complete.length),
    pass_at_k_scenarios: complete.length,
    failures,
  };
}

/** Success counts over the repeats of each scenario (scored standing attempts), keyed by scenario id. */
export function scenarioCounts(scored: RunEpisodeDoc[]): Record<string, ScenarioCounts> {
  const out: Record<string, ScenarioCounts> = {};
  const sums: Record<string, number> = {};
  for (const e of [...scored].sort((a, b) => (a.scenario_id < b.scenario_id ? -1 : 1))) {
    const c = (out[e.scenario_id] ??= { split: e.split, scored: 0, successes: 0, mean_reward: null });
    c.scored++;
    if (e.success) c.successes++;
    sums[e.scenario_id] = (sums[e.scenario_id] ?? 0) + e.reward!;
  }
  for (const [id, c] of Object.entries(out)) c.mean_reward = Math.round((sums[id]! / c.scored) * 10_000) / 10_000;
  return out;
}
