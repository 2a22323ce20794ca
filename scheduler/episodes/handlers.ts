import { ServiceError } from '../../core/errors.js';
import { ACTION_ERRORS, checkExternalAction, episodeRecordView, findAction, type ExternalAction, type InterventionInput, type Observation } from '../../episode-actor/index.js';
import { EPISODE_WORK } from '../../world-worker/episode-work.js';
import { accepted, ok, type HandlerTable, type SchedulerDeps } from '../context.js';
import { body, param, requirePrincipal } from '../principal.js';
import type { EpisodeDoc, RunEpisodeDoc } from '../runs/index.js';
import { hasEnded, loadAttempt, loadRecord, onWorker } from './routing.js';

/** The observation of an episode no actor answers for: not started yet, ended, or its worker just let go. */
async function restingObservation(deps: SchedulerDeps, ep: RunEpisodeDoc): Promise<Observation> {
  const doc = await loadRecord(deps.adapters.store, ep._id);
  return { episode_status: doc.status, awaiting_action: false, turn: null };
}

/**
 * POST action when no actor holds the episode: a repeat of an action it accepted is still
 * a duplicate (so a client whose 202 got lost can always repeat its request); anything
 * else is 409 `episode is not running`.
 */
async function storedAction(deps: SchedulerDeps, ep: RunEpisodeDoc, action: ExternalAction): Promise<{ event_id: number; duplicate: true }> {
  const doc = await loadRecord(deps.adapters.store, ep._id);
  const st = doc.actor_state;
  if (!st || !hasEnded(doc.status)) throw new ServiceError('conflict', ACTION_ERRORS.notRunning);
  const earlier = checkExternalAction(st, action);
  if (earlier?.event_id == null) throw new ServiceError('conflict', ACTION_ERRORS.notRunning);
  return { event_id: earlier.event_id, duplicate: true };
}

/** The full record of an episode that has no actor state (it never started). */
function unstartedRecord(ep: RunEpisodeDoc, doc: EpisodeDoc): Record<string, unknown> {
  return {
    id: ep._id,
    status: doc.status,
    termination: doc.termination,
    reward: null,
    scenario: { id: ep.scenario_id, split: ep.split },
    oracle: doc.oracle ?? null,
    actions: [],
    messages: [],
    cost_usd: 0,
    tokens: ep.tokens,
    environment_error: ep.environment_error,
    created_at: ep.created_at,
    ended_at: ep.ended_at,
  };
}

/** Episodes and the external-agent operations (spec section 4, "Episodes" and "Bring your own agent"). */
export const episodeHandlers: HandlerTable = {
  async get_episode(ctx, deps) {
    const p = requirePrincipal(ctx);
    const ep = await loadAttempt(deps.adapters.store, p.projectId, param(ctx, 'ep_id'));
    const doc = await loadRecord(deps.adapters.store, ep._id);
    const record = doc.actor_state ? episodeRecordView(doc.actor_state) : unstartedRecord(ep, doc);
    return ok({
      ...record,
      run_id: ep.run_id,
      profile: ep.profile,
      profile_id: ep.profile_id,
      driver: ep.driver,
      split: ep.split,
      repeat: ep.repeat,
      attempt: ep.attempt,
      replaces: ep.replaces,
      replaced_by: ep.replaced_by,
      worker_id: ep.worker_id,
    });
  },

  async get_observation(ctx, deps) {
    const p = requirePrincipal(ctx);
    const ep = await loadAttempt(deps.adapters.store, p.projectId, param(ctx, 'ep_id'));
    if (ep.status === 'running') {
      const live = await onWorker<Observation>(deps, ep, EPISODE_WORK.observe, {}).catch((err: unknown) => {
        if (err instanceof ServiceError && err.code === 'unavailable') return { episode_status: 'running', awaiting_action: false, turn: null } satisfies Observation;
        throw err;
      });
      if (live) return ok(live);
    }
    return ok(await restingObservation(deps, ep));
  },

  async post_action(ctx, deps) {
    const p = requirePrincipal(ctx);
    const ep = await loadAttempt(deps.adapters.store, p.projectId, param(ctx, 'ep_id'));
    const action = body<ExternalAction>(ctx);
    if (ep.status === 'running') {
      const answer = await onWorker<{ event_id: number; duplicate?: true }>(deps, ep, EPISODE_WORK.act, { action });
      if (answer) return accepted(answer);
    }
    if (ep.status === 'queued' || ep.status === 'running') {
      const doc = await loadRecord(deps.adapters.store, ep._id);
      if (!hasEnded(doc.status)) throw new ServiceError('conflict', ACTION_ERRORS.notRunning);
    }
    return accepted(await storedAction(deps, ep, action));
  },

  async get_action_result(ctx, deps) {
    const p = requirePrincipal(ctx);
    const ep = await loadAttempt(deps.adapters.store, p.projectId, param(ctx, 'ep_id'));
    const key = param(ctx, 'key');
    const a = await findAction(deps.adapters.store, ep._id, key);
    if (!a) throw new ServiceError('not_found', `episode ${ep._id} has no action with idempotency key "${key}"`);
    return ok(a.status === 'done' && a.result ? { status: 'done', result: a.result } : { status: 'pending' });
  },

  async create_intervention(ctx, deps) {
    const p = requirePrincipal(ctx);
    const ep = await loadAttempt(deps.adapters.store, p.projectId, param(ctx, 'ep_id'));
    const intervention = body<InterventionInput>(ctx);
    const answer = ep.status === 'running' ? await onWorker<{ event_id: number | null }>(deps, ep, EPISODE_WORK.intervene, { intervention }) : null;
    if (!answer) {
      const doc = await loadRecord(deps.adapters.store, ep._id);
      throw new ServiceError('conflict', hasEnded(doc.status) ? ACTION_ERRORS.notRunning : `${ACTION_ERRORS.notRunning}: it has not started yet; intervene once its first turn is offered`);
    }
    return accepted({ episode_id: ep._id, kind: intervention.kind, event_id: answer.event_id });
  },
};
