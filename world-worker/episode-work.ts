/**
 * The work kinds a world-worker offers for episodes, with their payloads and answers. The
 * scheduler's shards and episode operations call them through `WorkerRegistry.execute`;
 * world-worker/episode-host.ts answers them.
 */
import type {
  CostBreakdown,
  EpisodeOptions,
  EpisodeProfile,
  EpisodeWorld,
  ExternalAction,
  InterventionInput,
  Oracle,
  TokenCounts,
} from '../episode-actor/index.js';
import type { Scenario } from '../world/index.js';
import type { CodeOrigin } from './sandboxes/index.js';

export const EPISODE_WORK = {
  /**
   * {@link EpisodeRunPayload} -> {@link EpisodeOutcome}. Starts the episode (sandbox, actor)
   * and answers once it has ended; a second call for an episode already hosted waits for the
   * same end. Refused with an AtCapacityError when the worker is full, a
   * SourceMissingError when it lacks the source and no archive came, and a ShuttingDownError
   * (`notStarted` when it never began) when the worker is shutting down (core/errors.ts).
   */
  run: 'episode.run',
  /** `{episode_id}` -> {@link EpisodeOutcome} once the hosted episode ends; `not_found` when not hosted. */
  await: 'episode.await',
  /** `{episode_ids}` -> `{hosted: string[]}`: which of them this worker hosts now. */
  hosted: 'episode.hosted',
  /**
   * `{episode_id, wait_ms?}` -> the actor's Observation; with `wait_ms`, held until a turn
   * waits for the agent's action or the episode ends, or for that long (the gateway's
   * `Prefer: wait`), then answered as it is.
   */
  observe: 'episode.observe',
  /**
   * `{episode_id, key}` -> `{action}`: the action with that idempotency key as the actor last
   * saved it (`pending`, or `done` with its result; null when it saved none).
   */
  action: 'episode.action',
  /** `{episode_id, action: ExternalAction}` -> `{event_id, duplicate?}` once the action is accepted (not yet carried out). */
  act: 'episode.act',
  /** `{episode_id, intervention: InterventionInput}` -> `{event_id}`. */
  intervene: 'episode.intervene',
  /** `{episode_id}` -> `{stopped: boolean}`: ends the episode as cancelled (termination `stopped`). */
  stop: 'episode.stop',
} as const;

/** Everything a worker needs to host one episode; the scheduler resolves it all beforehand. */
export interface EpisodeRunPayload {
  episode_id: string;
  /** The run's id: the event stream of everything the episode does. */
  run_id: string;
  project_id: string;
  /**
   * The world version's source: workers keep sources by digest, the archive comes when one
   * lacks it; `origin` is how the build obtained those bytes (the worker judges from it and
   * the digest whether they are the operator's code, sandboxes/trust.ts).
   */
  source: { digest: string; archive_b64?: string; origin?: CodeOrigin | null };
  world: EpisodeWorld;
  /** Image pins of the application (Docker sandboxes). */
  images: Record<string, string>;
  scenario: Scenario;
  profile: EpisodeProfile;
  /**
   * The customer and judge model chains the run pinned (docs/runs.md, Pinned simulators):
   * `builtin:scripted` for the scripted customer, a null judge for none. Absent from older
   * schedulers: the world's manifest, else this worker's defaults.
   */
  simulators?: PinnedSimulatorModels;
  options: EpisodeOptions;
}

/** Model chains of an episode's simulators, as the run pinned them. */
export interface PinnedSimulatorModels {
  customer_model: string;
  judge_model: string | null;
}

export interface EpisodeTarget {
  episode_id: string;
}

export interface EpisodeActPayload extends EpisodeTarget {
  action: ExternalAction;
}

export interface EpisodeIntervenePayload extends EpisodeTarget {
  intervention: InterventionInput;
}

/** How a hosted episode ended, as the worker reports it to the shard that placed it. */
export interface EpisodeOutcome {
  episode_id: string;
  status: 'finished' | 'failed' | 'cancelled';
  termination: string | null;
  reward: number | null;
  oracle: Oracle | null;
  /** Everything the episode spent (agent, customer and judges; docs/runs.md, Spend and budgets). */
  cost_usd: number;
  cost_breakdown: CostBreakdown;
  tokens: TokenCounts;
  /** Actions taken by all actors. */
  turns: number;
  environment_error: string | null;
  /**
   * True when the world never started (sandbox or source failure): no actor ran, nothing
   * of the episode was saved, and the scheduler records the ending and re-queues it.
   */
  not_started: boolean;
  /**
   * True when its actor ended it with an environment error while starting (EpisodeState's
   * `failed_at_start`): before anyone was asked to decide. The scheduler re-runs the slot.
   */
  failed_at_start?: boolean;
  worker_id: string;
  started_at: string | null;
  ended_at: string;
}
