import { ServiceError } from '../../core/index.js';
import { ACTION_ERRORS, episodeRecordView, type InterventionInput } from '../../episode-actor/index.js';
import type { EpisodeDoc } from '../../episode-actor/index.js';
import type { RunEpisodeDoc } from '../runs/index.js';
import { hasEnded, loadAttempt, loadRecord, type EpisodeOpsDeps } from './routing.js';

/** POST /v1/episodes/{id}/interventions: applied and saved by the actor; 409 unless it runs. */
export async function intervene(
  d: EpisodeOpsDeps,
  projectId: string,
  id: string,
  intervention: InterventionInput,
): Promise<Record<string, unknown>> {
  const ep = await loadAttempt(d.store, projectId, id);
  const answer = ep.status === 'running' ? await d.workers.onEpisode(ep, 'episode.intervene', { intervention }) : null;
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
    // nothing, unless an actor recorded spend before it saved any state (runs/attempts.ts knownSpend)
    cost_usd: ep.cost_usd,
    cost_breakdown: ep.cost_breakdown ?? { agent: ep.cost_usd, customer: 0, judges: 0 },
    tokens: ep.tokens,
    environment_error: ep.environment_error,
    created_at: ep.created_at,
    ended_at: ep.ended_at,
  };
}
