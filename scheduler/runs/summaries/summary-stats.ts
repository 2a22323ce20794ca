import type { FailureCause } from '../../../episode-actor/index.js';
import type { RunEpisodeDoc } from '../types.js';

/** Failed episodes by cause (docs/scoring.md, Failure attribution). */
export type FailureCounts = Record<FailureCause, number>;

/** The intervals and failure counts a score block carries besides its means and rates (docs/runs.md, Summary). */
export interface BlockStatistics {
  /** 95% interval of `mean_reward` (statistics.ts summaryInterval: clustered Wilson from MIN_INTERVAL_SCENARIOS scenarios, Clopper-Pearson over scenarios below); null with nothing scored. */
  mean_reward_ci: [number, number] | null;
  /** 95% interval of `success_rate` over scored episodes, as above. */
  success_rate_ci: [number, number] | null;
  /** 95% interval of `pass_at_k` over the scenarios whose k repeats all scored, as above. */
  pass_at_k_ci: [number, number] | null;
  /** Scenarios whose k repeats all scored (the n of pass^k). */
  pass_at_k_scenarios: number;
  /** The intervals of this block that are conservative (below MIN_INTERVAL_SCENARIOS scenarios: Clopper-Pearson, covering at least 95%). */
  conservative_ci: Array<'mean_reward_ci' | 'success_rate_ci' | 'pass_at_k_ci'>;
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
