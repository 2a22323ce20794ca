import { ServiceError } from '../../core/errors.js';
import {
  ACTION_ERRORS,
  checkExternalAction,
  episodeRecordView,
  findAction,
  type ExternalAction,
  type InterventionInput,
  type Observation,
} from '../../episode-actor/index.js';
import { EPISODE_WORK } from '../../world-worker/episode-work.js';
import type { EpisodeDoc, RunEpisodeDoc } from '../runs/index.js';
import { hasEnded, loadAttempt, loadRecord, onWorker, type EpisodeOpsDeps } from './routing.js';

/**
 * GET /v1/episodes/{id}/observation: the actor's answer while a worker hosts it; before it
 * started and after it ended, the stored status with no turn. An unreachable worker answers
 * `awaiting_action: false`, so a polling agent simply asks again.
 */
export async function observe(d: EpisodeOpsDeps, projectId: string, id: string): Promise<Observation> {
  const ep = await loadAttempt(d.store, projectId, id);
  if (ep.status === 'running') {
    try {
      const live = await onWorker<Observation>(d, ep, EPISODE_WORK.observe, {});
      if (live) return live;
    } catch (err) {
      if (!(err instanceof ServiceError && err.code === 'unavailable')) throw err;
      return { episode_status: 'running', awaiting_action: false, turn: null };
    }
  }
  const doc = await loadRecord(d.store, ep._id);
  return { episode_status: doc.status, awaiting_action: false, turn: null };
}

/**
 * POST /v1/episodes/{id}/actions: checked and accepted by the actor (202 `{event_id,
 * duplicate?}` before it is carried out). When no actor holds the episode, a repeat of an
 * action it accepted is still a duplicate (a client whose 202 got lost can always repeat
 * its request); anything else is 409 `episode is not running`.
 */
export async function act(
  d: EpisodeOpsDeps,
  projectId: string,
  id: string,
  action: ExternalAction,
): Promise<{ event_id: number; duplicate?: true }> {
  const ep = await loadAttempt(d.store, projectId, id);
  if (ep.status === 'running') {
    const answer = await onWorker<{ event_id: number; duplicate?: true }>(d, ep, EPISODE_WORK.act, { action });
    if (answer) return answer;
  }
  const doc = await loadRecord(d.store, ep._id);
  const st = doc.actor_state;
  if (!st || !hasEnded(doc.status)) throw new ServiceError('conflict', ACTION_ERRORS.notRunning);
  const earlier = checkExternalAction(st, action);
  if (earlier?.event_id == null) throw new ServiceError('conflict', ACTION_ERRORS.notRunning);
  return { event_id: earlier.event_id, duplicate: true };
}

/** GET /v1/episodes/{id}/actions/{key}: the stored action record (saved before anything was acknowledged). */
export async function actionResult(
  d: EpisodeOpsDeps,
  projectId: string,
  id: string,
  key: string,
): Promise<{ status: 'pending' } | { status: 'done'; result: unknown }> {
  const ep = await loadAttempt(d.store, projectId, id);
  const a = await findAction(d.store, ep._id, key);
  if (!a) throw new ServiceError('not_found', `episode ${ep._id} has no action with idempotency key "${key}"`);
  return a.status === 'done' && a.result ? { status: 'done', result: a.result } : { status: 'pending' };
}

/** POST /v1/episodes/{id}/interventions: applied and saved by the actor; 409 unless it runs. */
export async function intervene(
  d: EpisodeOpsDeps,
  projectId: string,
  id: string,
  intervention: InterventionInput,
): Promise<Record<string, unknown>> {
  const ep = await loadAttempt(d.store, projectId, id);
  const answer =
    ep.status === 'running'
      ? await onWorker<{ event_id: number | null }>(d, ep, EPISODE_WORK.intervene, { intervention })
      : null;
  if (!answer) {
    const doc = await loadRecord(d.store, ep._id);
    throw new ServiceError(
      'conflict',
      hasEnded(doc.status)
        ? ACTION_ERRORS.notRunning
        : `${ACTION_ERRORS.notRunning}: it has not started yet; intervene once its first turn is offered`,
    );
  }
  return { episode_id: ep._id, kind: intervention.kind, event_id: answer.event_id };
}

/** GET /v1/episodes/{id}: the full record, with where the attempt stands in its run. */
export async function episodeRecord(
  d: EpisodeOpsDeps,
  projectId: string,
  id: string,
): Promise<Record<string, unknown>> {
  const ep = await loadAttempt(d.store, projectId, id);
  const doc = await loadRecord(d.store, ep._id);
  const record = doc.actor_state ? episodeRecordView(doc.actor_state) : unstartedRecord(ep, doc);
  return {
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
  };
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
