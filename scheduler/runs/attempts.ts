import { Collections } from '../../core/index.js';
import { newId, nowIso } from '../../core/index.js';
import type { Doc, DocumentStore, Filter } from '../../core/index.js';
import {
  environmentErrorOracle,
  episodeCost,
  isSuccess,
  totalCost,
  type CostBreakdown,
  type EpisodeDoc,
  type EpisodeState,
  type EpisodeWorld,
  type Oracle,
} from '../../episode-actor/index.js';
import type { EpisodeOutcome } from '../../world-worker/index.js';
import type { ScenarioDoc } from '../worlds/index.js';
import type { RunDoc, RunEpisodeDoc, RunProfile } from './types.js';

export interface AttemptSpec {
  slot: number;
  shard_id: string;
  scenario: Pick<ScenarioDoc, '_id' | 'scenario_id' | 'split'>;
  profile: Pick<RunProfile, 'id' | 'label' | 'driver'>;
  repeat: number;
  attempt: number;
  replaces: string | null;
  /** Earlier attempts of the slot lost with their worker. */
  worker_losses?: number;
  /** The shard driver's engine that will place it (null: whoever runs the shard next). */
  owner?: string | null;
}

/**
 * Stores one queued episode attempt: its full record (Collections.episodes) and the scheduler's
 * compact record (Collections.runEpisodes, counted by the plan's monthly episode limit from
 * `created_at`) under the same id.
 */
export async function newAttempt(
  store: DocumentStore,
  run: Pick<RunDoc, '_id' | 'project_id'>,
  s: AttemptSpec,
): Promise<RunEpisodeDoc> {
  const id = newId('ep');
  const now = nowIso();
  const common = {
    project_id: run.project_id,
    run_id: run._id,
    shard_id: s.shard_id,
    slot: s.slot,
    scenario_doc_id: s.scenario._id,
    scenario_id: s.scenario.scenario_id,
    split: s.scenario.split,
    profile_id: s.profile.id,
    profile: s.profile.label,
    driver: s.profile.driver,
    repeat: s.repeat,
    attempt: s.attempt,
    replaces: s.replaces,
    status: 'queued' as const,
    termination: null,
    reward: null,
    oracle: null,
    cost_usd: 0,
    tokens: { prompt: 0, completion: 0, total: 0 },
    created_at: now,
  };
  await store.insert<EpisodeDoc>(Collections.episodes, { _id: id, ...common });
  return store.insert<RunEpisodeDoc>(Collections.runEpisodes, {
    _id: id,
    ...common,
    replaced_by: null,
    success: null,
    turns: 0,
    environment_error: null,
    worker_id: null,
    worker_address: null,
    worker_losses: s.worker_losses ?? 0,
    owner: s.owner ?? null,
    started_at: null,
    ended_at: null,
  });
}

/**
 * Records a finished attempt's outcome (as its worker reported it) in the compact record,
 * once: only while it is `running` and, with `owner`, held by that shard driver's engine.
 *
 * @returns the record, or null when it was not written (ended already, or another owner).
 */
export async function recordOutcome(
  store: DocumentStore,
  ep: RunEpisodeDoc,
  o: EpisodeOutcome,
  owner?: string,
): Promise<RunEpisodeDoc | null> {
  const where: Filter = owner ? { status: 'running', owner } : { status: 'running' };
  return store.update<RunEpisodeDoc>(
    Collections.runEpisodes,
    ep._id,
    {
      status: o.status,
      termination: o.termination,
      reward: o.reward,
      oracle: o.oracle,
      success: o.oracle && o.status === 'finished' ? isSuccess(o.oracle) : null,
      cost_usd: o.cost_usd,
      cost_breakdown: o.cost_breakdown,
      tokens: o.tokens,
      turns: o.turns,
      environment_error: o.environment_error,
      started_at: o.started_at ?? ep.started_at,
      ended_at: o.ended_at,
    },
    where,
  );
}

/** How an attempt ended when its actor did not end it. */
export interface EndWithoutActor {
  status: 'failed' | 'cancelled';
  termination: 'environment_error' | 'stopped';
  environment_error: string | null;
  /** The world, to judge what the actor did before it was lost (environment errors). */
  world?: EpisodeWorld;
  /**
   * Also overwrite an ending of `cancelled` the actor recorded itself: its worker stopped it
   * while shutting down, which the scheduler did not ask for (the world went away, not the run).
   */
  overrideStop?: boolean;
  /** The shard driver's engine: nothing is written unless it still holds the attempt. */
  owner?: string;
  /**
   * Called with what the attempt is known to have spent (USD, {@link knownSpend}) before
   * it is written ended: the shard driver records that spend in the run's spend record
   * first, so the run's budget never sees the dollars neither reserved nor spent
   * (run-budget.ts). Called again should a write race force another round.
   */
  beforeEnd?: (spentUsd: number) => Promise<void>;
}

/**
 * Ends an attempt whose actor did not end it: the world never started, its worker was
 * lost, or the run stopped before it started. Both records say so, the full record's actor
 * state too, so GET /v1/episodes shows the same; an environment error gets the oracle of
 * one (no checks, excluded from scores). `state_rev` is fenced to -1, so an actor still
 * alive somewhere (a worker cut off, not dead) can no longer save over it. Both records,
 * and so the API and the `episode.finished` made from the compact one, carry what the
 * attempt is known to have spent ({@link knownSpend}).
 *
 * @returns the compact record as written, or null when the attempt had already ended, or
 *   `end.owner` no longer holds it (nothing changed).
 */
export async function endWithoutActor(
  store: DocumentStore,
  ep: RunEpisodeDoc,
  end: EndWithoutActor,
): Promise<RunEpisodeDoc | null> {
  const fence: Filter = end.owner ? { owner: end.owner } : {};
  for (let round = 0; round < 5; round++) {
    const now = nowIso();
    const compact = await store.get<RunEpisodeDoc>(Collections.runEpisodes, ep._id);
    // fenced before the full record is touched: a scheduler that lost the shard changes nothing
    if (end.owner && compact?.owner !== end.owner) return null;
    const full = await store.get<EpisodeDoc>(Collections.episodes, ep._id);
    const open = ['queued', 'running', ...(end.overrideStop ? ['cancelled'] : [])];
    if (full && !open.includes(full.status)) return null;
    const st = full?.actor_state;
    const spent = knownSpend(st, compact?.live_cost_usd);
    const judged = st?.oracle?.judgements;
    const oracle: Oracle | null =
      end.termination !== 'environment_error'
        ? null
        : {
            ...(st && end.world
              ? environmentErrorOracle(
                  { ...st, termination: 'environment_error' },
                  end.world,
                  end.environment_error ?? '',
                )
              : bareOracle(end.environment_error ?? '')),
            // verdicts already paid for stay on the record: the judges' spend is read from them (knownSpend)
            ...(judged?.length ? { judgements: judged } : {}),
          };
    const patch: Record<string, unknown> = {
      status: end.status,
      termination: end.termination,
      reward: null,
      oracle,
      state_rev: -1,
      cost_usd: totalCost(spent),
      cost_breakdown: spent,
      ended_at: now,
    };
    if (st)
      patch.actor_state = {
        ...st,
        // the agent's spend, with what the last save missed (knownSpend): the record's views read it
        cost_usd: spent.agent,
        status: end.status,
        termination: end.termination,
        reward: null,
        oracle,
        environment_error: end.environment_error,
        ended_at: now,
        turn: null,
      };
    if (end.beforeEnd) await end.beforeEnd(totalCost(spent));
    const where = full ? { status: full.status, state_rev: full.state_rev ?? null } : undefined;
    if (full && !(await store.update(Collections.episodes, ep._id, patch, where))) continue;
    return store.update<RunEpisodeDoc>(
      Collections.runEpisodes,
      ep._id,
      {
        status: end.status,
        termination: end.termination,
        reward: null,
        oracle,
        success: null,
        // ended by the scheduler, not by its actor: the attempt did not run to an end of its own
        lost: end.status === 'failed',
        environment_error: end.environment_error,
        turns: st?.actions.length ?? 0,
        cost_usd: totalCost(spent),
        cost_breakdown: spent,
        tokens: st?.tokens ?? ep.tokens,
        ended_at: now,
      },
      fence,
    );
  }
  return null;
}

/**
 * What an attempt ended without its actor is known to have spent, and who spent it: the
 * breakdown of the actor's last saved state (none saved: nothing), raised to the spend the
 * actor last recorded on the compact record (`live_cost_usd`, written before each save, so
 * it may be one step ahead of the saved state: money spent on a step that was not saved was
 * still spent). Which model calls that step paid for was not saved; it counts as the agent's.
 */
export function knownSpend(st: EpisodeState | undefined, liveUsd: number | undefined): CostBreakdown {
  const saved = st ? episodeCost(st) : { agent: 0, customer: 0, judges: 0 };
  const live = typeof liveUsd === 'number' && Number.isFinite(liveUsd) ? liveUsd : 0;
  const unsaved = Math.round((live - totalCost(saved)) * 1e8) / 1e8;
  return unsaved > 0 ? { ...saved, agent: Math.round((saved.agent + unsaved) * 1e8) / 1e8 } : saved;
}

/** The oracle of an episode that ended with an environment error before its actor ran. */
function bareOracle(message: string): Oracle {
  const pass = { passed: true, violations: [] };
  return {
    check_results: [],
    duplicate_effects: [],
    false_completion: false,
    environment_error: message,
    goal_version: 1,
    checks_goal_version: 1,
    checks_passed: 0,
    checks_total: 0,
    progress_passed: 0,
    progress_total: 0,
    guards_passed: 0,
    guards_total: 0,
    completed: false,
    habits: {
      read_latest_before_write: pass,
      ids_from_reads: pass,
      complete_after_read: { ...pass, applicable: false },
      customer_contacts: { passed: true, count: 0, limit: 0 },
    },
    customer: { simulator: 'scripted', model_calls: 0, cost_usd: 0 },
    customer_violations: [],
  };
}
