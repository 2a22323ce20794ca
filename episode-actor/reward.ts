import { HABIT_PENALTY, rewardOf, succeeded, tallyChecks } from '../world/index.js';
import type { Oracle } from './oracle-types.js';

export { HABIT_PENALTY };

/**
 * The reward of an episode, in [0, 1], by the rule of docs/scoring.md (`rewardOf`):
 * environment error: null (the world failed, not the agent; excluded from scores);
 * success: 1; otherwise 0.5 × (share of progress checks passed) × (share of guards
 * passed), so an untouched world or a bare completion earns 0; minus HABIT_PENALTY per
 * failed habit, never below 0.
 */
export function computeReward(oracle: Oracle): number | null {
  if (oracle.environment_error !== null) return null;
  if (oracle.agent_error !== undefined) return 0;
  const h = oracle.habits;
  const habitsFailed = [
    h.read_latest_before_write.passed,
    h.ids_from_reads.passed,
    h.complete_after_read.passed,
    h.customer_contacts.passed,
  ].filter((p) => !p).length;
  return rewardOf({
    tally: tallyChecks(oracle.check_results),
    duplicate_effect: oracle.duplicate_effects.length > 0,
    false_completion: oracle.false_completion,
    habits_failed: habitsFailed,
  });
}

/** Whether an episode counts as a success (the rule's first branch). */
export function isSuccess(oracle: Oracle): boolean {
  return (
    oracle.environment_error === null &&
    succeeded({
      tally: tallyChecks(oracle.check_results),
      duplicate_effect: oracle.duplicate_effects.length > 0,
      false_completion: oracle.false_completion,
    })
  );
}
