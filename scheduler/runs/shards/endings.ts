import { Collections } from '../../../core/index.js';
import { EventLog } from '../../../core/index.js';
import { finishedEvent, summaryView } from '../../../episode-actor/index.js';
import type { SchedulerDeps } from '../../context.js';
import type { EpisodeDoc } from '../../../episode-actor/index.js';
import { endWithoutActor, newAttempt } from '../attempts.js';
import type { RunWorld } from './run-world.js';
import { MAX_ATTEMPTS, MAX_ATTEMPTS_WITH_LOSSES, type RunEpisodeDoc } from '../types.js';
import type { EpisodeOutcome } from '../../../world-worker/index.js';

/** How {@link failAndRequeue} ends an attempt. */
export interface FailOptions {
  /** Queue the slot again as a new attempt while it has attempts left (default true). */
  requeue?: boolean;
  /** The worker shut down and stopped the actor itself: a `cancelled` ending it saved is overwritten too. */
  overrideStop?: boolean;
  /** The attempt was lost with its world-worker: the new attempt does not count against MAX_ATTEMPTS. */
  workerLost?: boolean;
  /** The shard driver's engine (the fence of every write). */
  owner?: string;
  /** What the attempt is known to have spent, before it is written ended (EndWithoutActor.beforeEnd). */
  beforeEnd?: (spentUsd: number) => Promise<void>;
}

/**
 * Ends an attempt with `environment_error` because its world or worker failed (not the
 * agent), announces it on the run's stream, and, when `requeue`, queues the slot again as a
 * new attempt while it has attempts left: MAX_ATTEMPTS counted, attempts lost with their
 * worker not counted (up to MAX_ATTEMPTS_WITH_LOSSES in all).
 *
 * @returns the new attempt, or null when none was made (not asked, no attempts left, the
 *   attempt is no longer the owner's, or the actor had ended the episode itself in the
 *   meantime: then its own record stands).
 */
export async function failAndRequeue(
  deps: SchedulerDeps,
  rw: RunWorld,
  ep: RunEpisodeDoc,
  why: string,
  opts: FailOptions = {},
): Promise<RunEpisodeDoc | null> {
  const ended = await endWithoutActor(deps.adapters.store, ep, {
    status: 'failed',
    termination: 'environment_error',
    environment_error: why,
    world: rw.world,
    overrideStop: opts.overrideStop,
    owner: opts.owner,
    beforeEnd: opts.beforeEnd,
  });
  if (!ended) return null;
  await announceEnd(deps, ended, why);
  if (opts.requeue === false || !hasAttemptLeft(ep, opts.workerLost)) return null;
  return nextAttempt(deps, rw, ep, { workerLost: opts.workerLost, owner: opts.owner });
}

/**
 * Whether `ep`'s slot may get another attempt once `ep` ends: MAX_ATTEMPTS counted, attempts
 * lost with their worker (`workerLost`: this one too) not counted, MAX_ATTEMPTS_WITH_LOSSES in all.
 */
export function hasAttemptLeft(ep: RunEpisodeDoc, workerLost = false): boolean {
  const losses = (ep.worker_losses ?? 0) + (workerLost ? 1 : 0);
  return ep.attempt + 1 - losses <= MAX_ATTEMPTS && ep.attempt < MAX_ATTEMPTS_WITH_LOSSES;
}

/**
 * Whether an attempt its actor ended is re-run (docs/scoring.md, Every planned episode ends
 * somewhere): it ended with an environment error, so nothing in it was the agent's doing:
 * its world failed while starting or died later not through the agent's own call, the
 * store or a customer model or judge failed, or its model provider kept rate-limiting past
 * the actor's patience. A new attempt with the same seed runs, within the slot's attempts.
 * The agent's own failures (its model erring or refusing, its call crashing the world) end
 * `agent_error` instead: `finished`, scored 0, never re-run, so an agent that dislikes an
 * episode cannot draw another by failing on purpose.
 */
export function rerunsSlot(o: { status: string; termination: string | null }): boolean {
  return o.status === 'failed' && o.termination === 'environment_error';
}

/**
 * A new queued attempt of `ep`'s slot (attempt + 1), linked both ways with `ep`; it carries
 * the slot's count of attempts lost with their worker (one more when `workerLost`).
 */
export async function nextAttempt(
  deps: SchedulerDeps,
  rw: RunWorld,
  ep: RunEpisodeDoc,
  opts: { workerLost?: boolean; owner?: string } = {},
): Promise<RunEpisodeDoc> {
  const store = deps.adapters.store;
  const next = await newAttempt(store, rw.run, {
    slot: ep.slot,
    shard_id: ep.shard_id,
    scenario: { _id: ep.scenario_doc_id, scenario_id: ep.scenario_id, split: ep.split },
    profile: { id: ep.profile_id, label: ep.profile, driver: ep.driver },
    repeat: ep.repeat,
    attempt: ep.attempt + 1,
    replaces: ep._id,
    worker_losses: (ep.worker_losses ?? 0) + (opts.workerLost ? 1 : 0),
    owner: opts.owner ?? null,
  });
  await store.update(Collections.runEpisodes, ep._id, { replaced_by: next._id });
  return next;
}

/** Ends an attempt that never started because the run stopped (termination `stopped`). */
export async function cancelUnstarted(deps: SchedulerDeps, ep: RunEpisodeDoc, owner?: string): Promise<void> {
  const ended = await endWithoutActor(deps.adapters.store, ep, {
    status: 'cancelled',
    termination: 'stopped',
    environment_error: null,
    owner,
  });
  if (ended) await announceEnd(deps, ended, 'the run stopped before it started');
}

/**
 * The outcome of an attempt whose actor ended it while no shard was listening (the shard
 * moved to another scheduler, or the worker let go of it before the shard re-attached),
 * read back from the episode's full record. Null while the record says it still runs.
 */
export async function outcomeFromRecord(deps: SchedulerDeps, ep: RunEpisodeDoc): Promise<EpisodeOutcome | null> {
  const full = await deps.adapters.store.get<EpisodeDoc>(Collections.episodes, ep._id);
  const st = full?.actor_state;
  if (!full || !st || st.status === 'running') return null;
  return {
    ...summaryView(st),
    status: st.status, // not running (checked above)
    episode_id: ep._id,
    turns: st.actions.length,
    environment_error: st.environment_error,
    not_started: false,
    failed_at_start: st.failed_at_start === true,
    worker_id: ep.worker_id ?? '',
    started_at: st.created_at,
    ended_at: st.ended_at ?? st.created_at,
  };
}

/**
 * Makes sure an attempt whose ending was read back from its record (its worker died, or
 * its shard moved, between the actor's final save and its events) has its
 * `episode.finished` on the run's stream: appended now when the actor's never was, with
 * the fields the actor writes (spend and its breakdown, tokens, turns), read from the
 * stored record; from `o` (itself read from that record) only when the record cannot be
 * read again.
 */
export async function announceRecovered(deps: SchedulerDeps, ep: RunEpisodeDoc, o: EpisodeOutcome): Promise<void> {
  const store = deps.adapters.store;
  const seen = await store
    .findOne(Collections.events, { stream: ep.run_id, episode_id: ep._id, type: 'episode.finished' })
    .catch(() => null);
  if (seen) return;
  const st = (await store.get<EpisodeDoc>(Collections.episodes, ep._id).catch(() => null))?.actor_state;
  const event =
    st && st.status !== 'running'
      ? finishedEvent(st)
      : {
          type: 'episode.finished' as const,
          summary: `episode ${o.status} (${o.termination})${o.reward !== null ? `, reward ${o.reward}` : ''}`,
          data: {
            status: o.status,
            termination: o.termination,
            reward: o.reward,
            cost_usd: o.cost_usd,
            cost_breakdown: o.cost_breakdown,
            tokens: o.tokens?.total ?? 0,
            turns: o.turns,
            environment_error: o.environment_error !== null,
          },
        };
  try {
    await new EventLog(store, deps.adapters.bus).append({
      stream: ep.run_id,
      project_id: ep.project_id,
      episode_id: ep._id,
      ...event,
    });
  } catch (err) {
    deps.logger.warn({ err, episode: ep._id }, 'the end of an episode could not be announced');
  }
}

/**
 * The `episode.finished` of an attempt the scheduler ended (endWithoutActor), from its
 * compact record as written: the same status, spend and breakdown the API shows for it.
 */
async function announceEnd(deps: SchedulerDeps, ep: RunEpisodeDoc, why: string): Promise<void> {
  try {
    await new EventLog(deps.adapters.store, deps.adapters.bus).append({
      stream: ep.run_id,
      project_id: ep.project_id,
      episode_id: ep._id,
      type: 'episode.finished',
      summary: `episode ${ep.status} (${ep.termination}): ${why}`,
      data: {
        status: ep.status,
        termination: ep.termination,
        reward: null,
        cost_usd: ep.cost_usd,
        cost_breakdown: ep.cost_breakdown ?? { agent: ep.cost_usd, customer: 0, judges: 0 },
        tokens: ep.tokens?.total ?? 0,
        turns: ep.turns,
        environment_error: ep.termination === 'environment_error',
      },
    });
  } catch (err) {
    deps.logger.warn({ err, episode: ep._id }, 'the end of an episode could not be announced');
  }
}
