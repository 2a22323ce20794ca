import type { FailureCause } from '../../../episode-actor/index.js';
import type { RunEpisodeDoc } from '../types.js';

/** Failed episodes by cause (docs/scoring.md, Failure attribution). */
export type FailureCounts = Record<FailureCause, number>;

/** The intervals and failure counts a score block carries besides its means and rates (docs/runs.md, Summary). */
export interface BlockStatistics {
  /** 95% clustered Wilson interval of `mean_reward`; null below MIN_INTERVAL_SCENARIOS scenarios. */
  mean_reward_ci: [number, number] | null;
  /** 95% clustered Wilson interval of `success_rate` over scored episodes; null as above. */
  success_rate_ci: [number, number] | null;
  /** 95% Wilson interval of `pass_at_k` over the scenarios whose k repeats all scored; null below MIN_INTERVAL_SCENARIOS of them. */
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
 * customer, to the checks or to the judge (an unjudged policy check, waiting to be
 * re-judged) are left out of every score, as environment errors are.
 */
export function countsAgainstAgent(e: RunEpisodeDoc): boolean {
  const cause = e.oracle?.failure?.cause;
  return cause !== 'customer' && cause !== 'checks' && cause !== 'judge';
}
