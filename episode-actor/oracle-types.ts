import type { Failure } from './attribution.js';
import type { CheckResult, JsonObject } from '../world/index.js';
import type { CustomerViolation } from './types.js';

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
  /**
   * The agent failed (termination `agent_error`: its model erred or refused, or its call
   * crashed the world): no checks ran, the reward is 0 and the failure is the agent's.
   * Absent otherwise.
   */
  agent_error?: string;
  /** Latest goal version the customer sent. */
  goal_version: number;
  /** Goal version whose checks ran (the latest one that has checks). */
  checks_goal_version: number;
  checks_passed: number;
  checks_total: number;
  /** Checks that measure progress on the request, and guards (docs/scoring.md). */
  progress_passed: number;
  progress_total: number;
  guards_passed: number;
  guards_total: number;
  /** Whether the agent called `complete`. */
  completed: boolean;
  /**
   * Why the episode failed (docs/scoring.md, Failure attribution): null on success; absent
   * on records written before attribution. Only `agent` failures count against the agent.
   */
  failure?: Failure | null;
  habits: Habits;
  /** Which customer played the episode, its model calls and what they cost (counted in the episode's `cost_usd` and `max_episode_cost_usd`). */
  customer: { simulator: 'scripted' | 'model'; model_calls: number; cost_usd: number };
  /**
   * Where the customer simulator broke its script (its guard refused a reply): the
   * simulator's failure, not the agent's. Empty for the scripted customer.
   */
  customer_violations: CustomerViolation[];
  /**
   * Some policy check was not judged (no judge, or the judge failed: its result says
   * `judge_error`): the episode cannot succeed, its failure is the judge's, and it waits for
   * `POST /v1/episodes/{id}/rejudge` (docs/scoring.md, Judged checks). Absent otherwise.
   */
  needs_rejudge?: boolean;
  /** The model judge's verdicts on told and policy checks, with rubric and reason (absent in older records). */
  judgements?: Judgement[];
}

/** One verdict of the model judge (episode-actor/judge.ts); `passed` null when it was not judged. */
export interface Judgement {
  check: string;
  kind: 'told' | 'policy';
  rubric: string;
  model: string | null;
  passed: boolean | null;
  reason: string;
  cost_usd?: number;
}
