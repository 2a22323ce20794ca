import { Collections } from '../../../core/index.js';
import { ServiceError } from '../../../core/index.js';
import { nowIso } from '../../../core/index.js';
import { beforeStart, waitForStart } from '../start-wait.js';
import type { SchedulerDeps } from '../../context.js';
import {
  BudgetReached,
  JobInterrupted,
  applyCommand,
  isEnded,
  jobsOf,
  type JobDoc,
  type JobKind,
  type PhaseContext,
} from '../../jobs/index.js';
import { finishRun, unranSlots } from './finish.js';
import { SummaryKeeper } from './summary-keeper.js';
import { RUN_JOB, type RunDoc, type RunStatus } from '../types.js';

const TICK_MS = 500;

/**
 * The run's coordinator job (`run`, the `job_id` of the start answer). Its one phase,
 * `shards`, watches the run's shard jobs until every one has ended and then ends the way
 * the run ends:
 * - every shard succeeded: the job succeeds and the run is `finished`;
 * - the run's spend (the shards' episodes) reached `budget_usd`: the shards are stopped,
 *   and the job fails with the budget sentence, the run `failed` ("stops itself");
 * - a stop was asked: the job is cancelled once the shards are, the run `cancelled`;
 * - a shard failed: the job fails naming it, the run `failed`.
 * A pause asked of the run pauses the coordinator once every shard is paused or ended.
 * The run document mirrors the job's status through `onStatus`.
 */
export const coordinatorKind: JobKind = {
  kind: RUN_JOB,
  phases: [{ name: 'shards', run: watchShards }],
  async onStatus(job, deps) {
    const runId = (job.input as { run_id: string }).run_id;
    switch (job.status) {
      case 'succeeded':
        return finishRun(deps, runId, 'finished', null);
      case 'failed':
      case 'cancelled':
        return finishRun(deps, runId, job.status, job.error);
      default:
        await mirror(deps, runId, job);
    }
  },
};

async function mirror(deps: SchedulerDeps, runId: string, job: JobDoc): Promise<void> {
  let status = job.status as RunStatus;
  // a run waiting for quiet hours stays queued until watchShards starts it at starts_at
  if (status === 'running' && beforeStart(await deps.adapters.store.get<RunDoc>(Collections.runs, runId)))
    status = 'queued';
  const patch: Record<string, unknown> = { status, updated_at: nowIso() };
  if (status === 'queued' || status === 'running') Object.assign(patch, { error: null, ended_at: null });
  if (status === 'running' && job.started_at) patch.started_at = job.started_at;
  await deps.adapters.store.update<RunDoc>(Collections.runs, runId, patch);
}

async function watchShards(ctx: PhaseContext): Promise<void> {
  const store = ctx.deps.adapters.store;
  const run = await store.get<RunDoc>(Collections.runs, (ctx.input as { run_id: string }).run_id);
  if (!run) throw new ServiceError('gone', `run ${(ctx.input as { run_id: string }).run_id} no longer exists`);
  if ((await waitForStart(ctx, run)) && !beforeStart(run))
    await store.update<RunDoc>(Collections.runs, run._id, {
      status: 'running',
      started_at: nowIso(),
      updated_at: nowIso(),
    });
  let budget: BudgetReached | null = null;
  let shards: JobDoc[];
  const summary = new SummaryKeeper(ctx.deps, run);
  for (;;) {
    shards = await store.find<JobDoc>(Collections.jobs, { _id: { $in: run.shard_ids } });
    await summary.update(shards);
    const spent =
      Math.round(
        shards.reduce((a, s) => a + Number((s.checkpoint as { spent_usd?: number }).spent_usd ?? 0), 0) * 1e6,
      ) / 1e6;
    if (spent > ctx.job.spent_usd && !budget) {
      try {
        await ctx.spend(spent - ctx.job.spent_usd);
      } catch (err) {
        if (!(err instanceof BudgetReached)) throw err;
        budget = err;
      }
      await store.update(Collections.runs, run._id, { spent_usd: spent, updated_at: nowIso() });
    }
    if (budget) await stopShards(ctx, shards);
    if (shards.every((s) => isEnded(s.status))) break;
    if (await ctx.shouldStop()) {
      const job = ctx.job;
      if (jobsOf(ctx.deps).isClosing() || (!job.cancel_requested && !job.pause_requested)) throw new JobInterrupted();
      if (job.cancel_requested) await stopShards(ctx, shards);
      else if (shards.every((s) => isEnded(s.status) || s.status === 'paused')) throw new JobInterrupted();
    }
    await ctx.sleep(TICK_MS);
  }
  if (budget) throw budget;
  await ctx.shouldStop(); // refreshes the command flags
  if (ctx.job.cancel_requested) throw new JobInterrupted();
  const failed = shards.filter((s) => s.status === 'failed');
  if (failed.length > 0)
    throw new ServiceError(
      'unavailable',
      `${failed.length} of ${shards.length} shards failed; shard ${failed[0]!._id}: ${failed[0]!.error ?? 'no reason given'}`,
    );
  const cancelled = shards.filter((s) => s.status === 'cancelled');
  if (cancelled.length > 0)
    throw new ServiceError(
      'conflict',
      `${cancelled.length} of ${shards.length} shards were stopped on their own (shard ${cancelled[0]!._id}); stop or retry the run as a whole`,
    );
  const missing = await unranSlots(ctx.deps, run);
  if (missing) throw new ServiceError('unavailable', missing);
}

async function stopShards(ctx: PhaseContext, shards: JobDoc[]): Promise<void> {
  for (const s of shards) {
    if (isEnded(s.status) || s.cancel_requested) continue;
    await applyCommand(jobsOf(ctx.deps), s, 'stop').catch((err: unknown) =>
      ctx.deps.logger.warn({ err, shard: s._id }, 'a shard could not be stopped'),
    );
  }
}
