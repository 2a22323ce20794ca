import { Collections } from '../../core/index.js';
import { conflict } from '../../core/index.js';
import { EventLog } from '../../core/index.js';
import { ok, type HandlerTable, type SchedulerDeps } from '../context.js';
import { applyCommand, isEnded, jobsOf, type JobCommand, type JobDoc } from '../jobs/index.js';
import { body, param, requirePrincipal } from '../../core/index.js';
import { compareRuns } from './compare.js';
import { createEvaluation } from './create.js';
import { RUN_ENDED, type RunDoc, type RunEpisodeDoc, type RunSummary } from './types.js';
import { okPage, pageOf, pageRequest } from '../../core/index.js';
import { episodeItemView, loadRun, runView } from './views.js';

/** GET /v1/runs/{id}/episodes: list items are small, so pages may be longer. */
const EPISODE_PAGE = { default: 100, max: 1000 };

/** Evaluations and runs (spec section 4, "Evaluations and runs"). */
export const runHandlers: HandlerTable = {
  create_evaluation: createEvaluation,

  async list_runs(ctx, deps) {
    const p = requirePrincipal(ctx);
    const page = await pageOf<RunDoc>(
      deps.adapters.store,
      Collections.runs,
      { project_id: p.projectId },
      [{ field: 'created_at', direction: 'desc' }],
      pageRequest(ctx.query),
    );
    return okPage(
      page.items.map((r) => runView(r)),
      page.next,
    );
  },

  async get_run(ctx, deps) {
    const p = requirePrincipal(ctx);
    const run = await loadRun(deps.adapters.store, p.projectId, param(ctx, 'run_id'));
    return ok(runView(run));
  },

  async list_run_episodes(ctx, deps) {
    const p = requirePrincipal(ctx);
    const run = await loadRun(deps.adapters.store, p.projectId, param(ctx, 'run_id'));
    const page = await pageOf<RunEpisodeDoc>(
      deps.adapters.store,
      Collections.runEpisodes,
      { run_id: run._id },
      [
        { field: 'slot', direction: 'asc' },
        { field: 'attempt', direction: 'asc' },
      ],
      pageRequest(ctx.query, EPISODE_PAGE),
    );
    return okPage(page.items.map(episodeItemView), page.next);
  },

  compare_runs: compareRuns,

  /**
   * POST /v1/runs/{id}/commands: the command goes to every shard it applies to (pause,
   * resume and stop to the shards still live, retry to the failed and stopped ones), then
   * to the coordinator. 409 when it applies to none (e.g. stop after the run finished).
   */
  async command_run(ctx, deps) {
    const p = requirePrincipal(ctx);
    const store = deps.adapters.store;
    const run = await loadRun(store, p.projectId, param(ctx, 'run_id'));
    const { command } = body<{ command: JobCommand }>(ctx);
    if (command === 'retry' && run.status !== 'failed' && run.status !== 'cancelled')
      throw conflict(`only a failed or cancelled run can be retried; run ${run._id} is ${run.status}`);
    if (command !== 'retry' && RUN_ENDED.includes(run.status)) {
      if (command === 'stop' && run.status === 'cancelled') return ok(await commandView(deps, run, command));
      throw conflict(
        `run ${run._id} has already ended as ${run.status}; ${command} applies to a queued, running or paused run${run.status === 'finished' ? '' : ' (use retry to run it again)'}`,
      );
    }
    const engine = jobsOf(deps);
    const shards = await store.find<JobDoc>(Collections.jobs, { _id: { $in: run.shard_ids } });
    for (const s of shards) {
      const applies = command === 'retry' ? s.status === 'failed' || s.status === 'cancelled' : !isEnded(s.status);
      if (applies) await applyCommand(engine, s, command);
    }
    const coordinator = await store.get<JobDoc>(Collections.jobs, run.job_id);
    if (coordinator) await applyCommand(engine, coordinator, command);
    if (command === 'retry') {
      await new EventLog(store, deps.adapters.bus).append({
        stream: run._id,
        project_id: run.project_id,
        type: 'run.started',
        summary: `run retried: episodes that did not end are run again`,
        data: {
          world_version_id: run.world_version_id,
          profiles: run.profiles.map((x) => x.label),
          episodes: run.episodes,
          shards: run.shard_ids.length,
          starts_at: null,
        },
      });
    }
    return ok(await commandView(deps, (await store.get<RunDoc>(Collections.runs, run._id)) ?? run, command));
  },
};

async function commandView(deps: SchedulerDeps, run: RunDoc, command: JobCommand): Promise<Record<string, unknown>> {
  const jobs = await deps.adapters.store.find<JobDoc>(Collections.jobs, {
    _id: { $in: [run.job_id, ...run.shard_ids] },
  });
  const coordinator = jobs.find((j) => j._id === run.job_id);
  return {
    run_id: run._id,
    command,
    status: run.status,
    ...(command === 'stop' && !RUN_ENDED.includes(run.status)
      ? {
          detail:
            'every running episode of the run is asked to stop, and queued ones are cancelled; the run becomes cancelled once each has ended and is recorded, however long that takes',
        }
      : {}),
    pause_requested: coordinator?.pause_requested ?? false,
    cancel_requested: coordinator?.cancel_requested ?? false,
    job_id: run.job_id,
    shards: jobs
      .filter((j) => j._id !== run.job_id)
      .map((j) => ({
        id: j._id,
        status: j.status,
        pause_requested: j.pause_requested,
        cancel_requested: j.cancel_requested,
      })),
  };
}
