import { Collections } from '../../../core/index.js';
import { EventLog } from '../../../core/index.js';
import type { JobDoc, JobKind } from '../../jobs/index.js';
import type { SchedulerDeps } from '../../context.js';
import { cancelUnstarted } from './endings.js';
import { RunWorld } from './run-world.js';
import { ShardDriver } from './shard-driver.js';
import { shardParts } from './shard-parts.js';
import { waitForStart } from '../start-wait.js';
import { SHARD_JOB, type RunDoc, type RunEpisodeDoc } from '../types.js';

/** Input of a `run_shard` job. */
export interface ShardInput {
  run_id: string;
  /** Index of the shard in the run, from 0. */
  shard: number;
  /** Slots (planned episodes) the shard holds. */
  slots: number[];
}

/**
 * The `run_shard` job: one phase, `episodes`, driven by ShardDriver until every slot of the
 * shard has an ended attempt. Its status changes are announced on the run's stream
 * (`shard.status_changed`); a shard cancelled while it was queued or paused cancels its
 * queued attempts here, so every planned episode is accounted for.
 */
export const shardKind: JobKind<ShardInput> = {
  kind: SHARD_JOB,
  phases: [
    {
      name: 'episodes',
      async run(ctx) {
        const input = ctx.input;
        // quiet hours: nothing is placed before the run's starts_at
        await waitForStart(ctx, (await ctx.deps.adapters.store.get<RunDoc>(Collections.runs, input.run_id)) ?? {});
        const rw = await RunWorld.load(ctx.deps, input.run_id);
        await new ShardDriver(ctx, shardParts(ctx, rw)).drive();
      },
    },
  ],
  async onStatus(job, deps) {
    const input = job.input;
    if (job.status === 'cancelled') {
      const queued = await deps.adapters.store.find<RunEpisodeDoc>(Collections.runEpisodes, {
        shard_id: job._id,
        status: 'queued',
      });
      for (const ep of queued) await cancelUnstarted(deps, ep);
    }
    await announce(deps, job, input.run_id);
  },
};

async function announce(deps: SchedulerDeps, job: JobDoc<ShardInput>, runId: string): Promise<void> {
  const seen = deps.announcedShards;
  const previous = seen.get(job._id) ?? null;
  if (previous === job.status) return;
  seen.set(job._id, job.status);
  if (seen.size > 10_000) seen.delete(seen.keys().next().value!);
  await new EventLog(deps.adapters.store, deps.adapters.bus).append({
    stream: runId,
    project_id: job.project_id,
    type: 'shard.status_changed',
    summary: `shard ${job.input.shard + 1}: ${previous ?? 'new'} -> ${job.status}${job.error ? ` (${job.error})` : ''}`,
    data: { shard_id: job._id, status: job.status, previous, worker_id: null, error: job.error },
  });
}
