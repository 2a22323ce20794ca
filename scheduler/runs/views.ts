import { Collections } from '../../core/index.js';
import { notFound } from '../../core/index.js';
import type { DocumentStore } from '../../core/index.js';
import type { RunDoc, RunEpisodeDoc, RunSummary } from './types.js';

/** A run of the caller's project; 404 for unknown ids and other projects' runs alike. */
export async function loadRun(store: DocumentStore, projectId: string, id: string): Promise<RunDoc> {
  const run = await store.get<RunDoc>(Collections.runs, id);
  if (!run || run.project_id !== projectId) throw notFound(`run ${id}`);
  return run;
}

/** GET /v1/runs/{id}: status, configuration (`config`) and summary, plus what the run is made of. */
export function runView(run: RunDoc, summary: RunSummary = run.summary): Record<string, unknown> {
  return {
    run_id: run._id,
    id: run._id,
    status: run.status,
    config: run.config,
    summary,
    world_id: run.world_id,
    world_version_id: run.world_version_id,
    world_content_hash: run.world_content_hash,
    profiles: run.profiles.map((p) => ({ id: p.id, label: p.label, driver: p.driver, model: p.model })),
    simulators: run.simulators ?? null,
    job_id: run.job_id,
    shard_ids: run.shard_ids,
    episodes: run.episodes,
    scenarios: run.scenarios,
    ...(run.scenario_set ? { scenario_set: run.scenario_set, scenario_set_hash: run.scenario_set_hash } : {}),
    ...(run.starts_at ? { starts_at: run.starts_at } : {}),
    spent_usd: run.spent_usd,
    error: run.error,
    created_at: run.created_at,
    started_at: run.started_at,
    ended_at: run.ended_at,
  };
}

/** One item of GET /v1/runs/{id}/episodes (spec section 2, Episode list item, plus attempt and placement). */
export function episodeItemView(e: RunEpisodeDoc): Record<string, unknown> {
  return {
    id: e._id,
    scenario: e.scenario_id,
    split: e.split,
    profile: e.profile,
    status: e.status,
    reward: e.reward,
    termination: e.termination,
    cost_usd: e.cost_usd,
    cost_breakdown: e.cost_breakdown ?? { agent: e.cost_usd, customer: 0, judges: 0 },
    tokens: e.tokens,
    oracle: e.oracle,
    driver: e.driver,
    repeat: e.repeat,
    attempt: e.attempt,
    replaces: e.replaces,
    replaced_by: e.replaced_by,
    turns: e.turns,
    environment_error: e.environment_error,
    worker_id: e.worker_id,
    created_at: e.created_at,
    started_at: e.started_at,
    ended_at: e.ended_at,
  };
}
