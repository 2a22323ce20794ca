import type { Oracle } from './oracle-types.js';

/** What each habit that failed takes off the reward (docs/scoring.md). */
export const HABIT_PENALTY = 0.05;

/**
 * The reward of an episode, in [0, 1], by the one rule of docs/scoring.md:
 * - environment error: null (the world failed, not the agent; excluded from scores);
 * - success (every check passes, no duplicate effect, no false completion): 1;
 * - otherwise half the share of checks passed (0 when there are none);
 * - minus HABIT_PENALTY for each of the four habits that failed, never below 0.
 * Rounded to 4 decimals.
 */
export function computeReward(oracle: Oracle): number | null {
  if (oracle.environment_error !== null) return null;
  const base = isSuccess(oracle) ? 1 : oracle.checks_total > 0 ? 0.5 * (oracle.checks_passed / oracle.checks_total) : 0;
  const h = oracle.habits;
  const failed = [
    h.read_latest_before_write.passed,
    h.ids_from_reads.passed,
    h.complete_after_read.passed,
    h.customer_contacts.passed,
  ].filter((p) => !p).length;
  const reward = Math.min(1, Math.max(0, base - HABIT_PENALTY * failed));
  return Math.round(reward * 10_000) / 10_000;
}

/** Whether an episode counts as a success (the rule's first branch). */
export function isSuccess(oracle: Oracle): boolean {
  return (
    oracle.environment_error === null &&
    oracle.checks_total > 0 &&
    oracle.checks_passed === oracle.checks_total &&
    oracle.duplicate_effects.length === 0 &&
    !oracle.false_completion
  );
}
