import { Collections } from '../../core/index.js';
import { notFound } from '../../core/index.js';
import type { Filter } from '../../core/index.js';
import { ok, type HandlerTable, type SchedulerDeps } from '../context.js';
import { body, param, requirePrincipal } from '../../core/index.js';
import { applyCommand } from './commands.js';
import { jobsOf } from './registry.js';
import type { JobCommand, JobDoc } from './types.js';
import { okPage, pageOf, pageRequest } from '../../core/index.js';

/** A job as the API shows it (spec section 2, Server job, plus the command flags and times). */
export function jobView(job: JobDoc): Record<string, unknown> {
  return {
    id: job._id,
    kind: job.kind,
    status: job.status,
    attempts: job.attempts,
    spent_usd: job.spent_usd,
    budget_usd: job.budget_usd,
    completed_phases: job.completed_phases,
    result: job.result ?? null,
    error: job.error,
    pause_requested: job.pause_requested,
    cancel_requested: job.cancel_requested,
    input: job.input,
    created_at: job.created_at,
    updated_at: job.updated_at,
    started_at: job.started_at,
    ended_at: job.ended_at,
  };
}

/** A job of the caller's project; 404 for unknown ids and other projects' jobs alike. */
export async function loadJob(deps: SchedulerDeps, projectId: string, id: string): Promise<JobDoc> {
  const job = await deps.adapters.store.get<JobDoc>(Collections.jobs, id);
  if (!job || job.project_id !== projectId) throw notFound(`job ${id}`);
  return job;
}

export const jobHandlers: HandlerTable = {
  async list_jobs(ctx, deps) {
    const p = requirePrincipal(ctx);
    const filter: Filter = { project_id: p.projectId };
    if (typeof ctx.query.kind === 'string' && ctx.query.kind !== '') filter.kind = ctx.query.kind;
    const page = await pageOf<JobDoc>(
      deps.adapters.store,
      Collections.jobs,
      filter,
      [{ field: 'created_at', direction: 'desc' }],
      pageRequest(ctx.query),
    );
    return okPage(page.items.map(jobView), page.next);
  },

  async get_job(ctx, deps) {
    const p = requirePrincipal(ctx);
    return ok(jobView(await loadJob(deps, p.projectId, param(ctx, 'job_id'))));
  },

  async command_job(ctx, deps) {
    const p = requirePrincipal(ctx);
    const job = await loadJob(deps, p.projectId, param(ctx, 'job_id'));
    const { command } = body<{ command: JobCommand }>(ctx);
    const after = await applyCommand(jobsOf(deps), job, command);
    return ok({
      id: after._id,
      command,
      status: after.status,
      pause_requested: after.pause_requested,
      cancel_requested: after.cancel_requested,
    });
  },
};
