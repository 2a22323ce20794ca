import type { Doc } from '../../core/index.js';
import type { CostBreakdown, EpisodeProfile, Oracle, TokenCounts } from '../../episode-actor/index.js';
import type { Split } from '../../world/index.js';
import type { PinnedScenario, RunSimulators } from '../worlds/index.js';
import type { BlockStatistics, ScenarioCounts } from './summaries/summary-stats.js';
import type { Coverage, OutlierFlag } from './summaries/coverage.js';

/**
 * Statuses of a run (docs/runs.md). It lives as `queued`, `running` or `paused` and ends as
 * `finished`, `failed` or `cancelled` (spec section 3). It mirrors the run's coordinator job.
 */
export const RUN_STATUSES = ['queued', 'running', 'paused', 'finished', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_ENDED: readonly RunStatus[] = ['finished', 'failed', 'cancelled'];

/** The job kinds of a run: one coordinator, several shards. */
export const RUN_JOB = 'run';
export const SHARD_JOB = 'run_shard';

/** POST /v1/evaluations after defaults (the configuration a run shows). */
export interface RunConfig {
  world_version_id: string;
  profile_ids: string[];
  splits: Split[];
  scenario_ids: string[] | null;
  repeats: number;
  default_stress: boolean;
  budget_usd: number | null;
  max_episode_cost_usd: number | null;
}

/** A profile as the run pinned it when it started (profiles are immutable; the model is resolved). */
export interface RunProfile extends EpisodeProfile {
  id: string;
  /** `<name>@v<N>`. */
  label: string;
}

export interface RunDoc extends Doc {
  project_id: string;
  status: RunStatus;
  config: RunConfig;
  world_id: string;
  world_version_id: string;
  world_content_hash: string;
  profiles: RunProfile[];
  /**
   * The customer and judge models every episode of the run uses, with their prices, pinned
   * when the run was created (docs/runs.md, Pinned simulators). Absent on runs stored before
   * simulators were pinned: their episodes used each worker's defaults.
   */
  simulators?: RunSimulators;
  /** The coordinator job (`job_id` of the start answer). */
  job_id: string;
  shard_ids: string[];
  /** Planned episodes: scenarios x profiles x repeats (re-queued attempts not counted). */
  episodes: number;
  scenarios: number;
  /**
   * The exact scenarios the run uses (ids, splits, digests of their specifications) and
   * the hash of that set (docs/runs.md, Pinned scenario sets). Absent on runs stored
   * before sets were pinned: `runScenarioSet` derives them from the scenario records.
   */
  scenario_set?: PinnedScenario[];
  scenario_set_hash?: string;
  /** Set when the run waits for quiet hours: no episode is placed before it (docs/runs.md). */
  starts_at?: string;
  spent_usd: number;
  /** Why the run failed or stopped; null otherwise. */
  error: string | null;
  summary: RunSummary;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  ended_at: string | null;
}

/** Scores of one group of episodes (docs/runs.md, Summary). */
export interface ScoreBlock extends BlockStatistics {
  /** Episodes planned for the group. */
  episodes: number;
  /** Episodes that ended with a reward (environment errors excluded). */
  scored: number;
  /** Episodes still queued or running. */
  pending: number;
  mean_reward: number | null;
  success_rate: number | null;
  /** Share of scenarios whose every repeat succeeded (k = repeats); null until one scenario has all k scored. */
  pass_at_k: number | null;
  k: number;
  false_completion_rate: number | null;
  duplicate_effect_rate: number | null;
  /** Episodes (every attempt) that ended with environment_error; excluded from the scores. */
  environment_errors: number;
  /** Scored episodes whose customer simulator broke its script (oracle `customer_violations`): the simulator's failures. */
  customer_violations: number;
  /** Episodes stopped before they ended on their own. */
  cancelled: number;
  cost_usd: number;
  tokens: number;
  mean_turns: number | null;
}

export interface ProfileSummary extends ScoreBlock {
  profile_id: string;
  by_split: Partial<Record<Split, ScoreBlock>>;
  /** Success counts over the repeats of each scenario, keyed by scenario id. */
  scenarios: Record<string, ScenarioCounts>;
  /** The profile's planned slots: scored, counted against the agent, unscored by cause (docs/scoring.md); absent in summaries stored before. */
  coverage?: Coverage;
}

export interface RunSummary {
  profiles: Record<string, ProfileSummary>;
  episodes: {
    planned: number;
    attempts: number;
    queued: number;
    running: number;
    finished: number;
    failed: number;
    cancelled: number;
  };
  /** Profiles whose rate of unscored or agent-error slots stands out from the others' (docs/scoring.md); absent in summaries stored before. */
  flags?: OutlierFlag[];
  cost_usd: number;
  updated_at: string | null;
}

export type EpisodeStatus = 'queued' | 'running' | 'finished' | 'failed' | 'cancelled';

/**
 * The scheduler's compact record of one episode attempt (Collections.runEpisodes, `_id` = episode
 * id): where it runs and how it ended. Listings and summaries read these; the full record,
 * with the actor's state, is the Collections.episodes document of the same id.
 */
export interface RunEpisodeDoc extends Doc {
  project_id: string;
  run_id: string;
  shard_id: string;
  /** Index of the (scenario, profile, repeat) the attempt is for; stable across attempts. */
  slot: number;
  scenario_doc_id: string;
  scenario_id: string;
  split: Split;
  profile_id: string;
  profile: string;
  driver: 'llm' | 'external';
  /** Repeat number of the scenario for the profile, from 1. */
  repeat: number;
  /** Attempt number of the slot, from 1; a re-queued episode is a new attempt. */
  attempt: number;
  /** The attempt this one re-runs, and the one that re-ran this. */
  replaces: string | null;
  replaced_by: string | null;
  status: EpisodeStatus;
  termination: string | null;
  reward: number | null;
  oracle: Oracle | null;
  success: boolean | null;
  /** Everything the attempt spent: the agent's, the customer simulator's and the judges' model calls. */
  cost_usd: number;
  /** Who spent `cost_usd` (absent on records from before it was kept: then all of it was the agent's). */
  cost_breakdown?: CostBreakdown;
  /**
   * While the attempt runs: what its actor has spent so far, written by the episode's
   * persistence with each save whose spend changed (the month's usage reads it). Absent
   * until the actor spends something.
   */
  live_cost_usd?: number;
  tokens: TokenCounts;
  turns: number;
  environment_error: string | null;
  worker_id: string | null;
  worker_address: string | null;
  /**
   * Earlier attempts of the slot lost with their world-worker (killed, shut down, cut off):
   * they do not count against MAX_ATTEMPTS. Absent on records from before it was kept.
   */
  worker_losses?: number;
  /**
   * True when the scheduler ended the attempt `failed` because it could not run (its world
   * did not start, its worker was lost or refused it), unlike a world that failed while the
   * actor ran it. A slot whose standing attempt is lost did not run: the run cannot finish.
   */
  lost?: boolean;
  /**
   * The job engine (scheduler) whose shard driver may write the attempt: every write of an
   * outcome is a compare-and-set on it, so a scheduler that lost the shard writes nothing.
   */
  owner?: string | null;
  /**
   * With a run budget: the share of `budget_usd` the attempt reserved when it was placed,
   * and its spending limit (run-budget.ts). Absent without a budget.
   */
  reserved_usd?: number | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
}

/**
 * Attempts one slot may take before an environment error stands. Attempts lost with their
 * worker are not counted (the world went away, not the episode's fault), up to
 * MAX_ATTEMPTS_WITH_LOSSES in all, so a world that kills every worker it lands on still ends.
 */
export const MAX_ATTEMPTS = 3;
export const MAX_ATTEMPTS_WITH_LOSSES = 20;
/** Episodes one shard job holds. */
export const SHARD_SIZE = 25;
