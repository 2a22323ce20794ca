import type { CheckResult, JsonObject } from '../world/index.js';

/** A write carried out more than once with the same effective arguments. */
export interface DuplicateEffect {
  tool: string;
  args: JsonObject;
  times: number;
  actors: string[];
  action_indexes: number[];
}

export interface HabitViolation {
  action_index: number;
  actor: string;
  tool: string;
  reason: string;
}

export interface HabitResult {
  passed: boolean;
  violations: HabitViolation[];
}

/** Spec section 4, rule 8: the four habits the agent is judged on. */
export interface Habits {
  /** Reading the customer's latest message before every write (customer-facing roles). */
  read_latest_before_write: HabitResult;
  /** Every id a write used had appeared in a read result or a customer message before. */
  ids_from_reads: HabitResult;
  /** `complete` only after a read that follows the last write. */
  complete_after_read: HabitResult & { applicable: boolean };
  /** Customer-visible messages, against the scenario's limit. */
  customer_contacts: { passed: boolean; count: number; limit: number };
}

/**
 * The oracle record of a finished episode (spec: `check_results`, `duplicate_effects`,
 * `false_completion`, `environment_error`; the rest is this service's addition).
 */
export interface Oracle {
  check_results: CheckResult[];
  duplicate_effects: DuplicateEffect[];
  false_completion: boolean;
  /** The world failed, not the agent: the episode is excluded from scores. */
  environment_error: string | null;
  /** Latest goal version the customer sent. */
  goal_version: number;
  /** Goal version whose checks ran (the latest one that has checks). */
  checks_goal_version: number;
  checks_passed: number;
  checks_total: number;
  /** Whether the agent called `complete`. */
  completed: boolean;
  habits: Habits;
}
