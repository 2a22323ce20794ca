import type { PhaseContext } from '../../jobs/index.js';
import { AttemptPlacer } from './attempt-placer.js';
import { EpisodeCalls } from './episode-calls.js';
import { RunBudget } from './run-budget.js';
import type { RunWorld } from './run-world.js';
import { ShardSpend } from './shard-spend.js';
import { WorkerProbe } from './worker-probe.js';

/**
 * The collaborators a shard driver (shard-driver.ts) works with, made for one run of its
 * job; what the whole scheduler shares (placement, organization gates, metrics) it reads
 * from its deps.
 */
export interface ShardParts {
  /** What its episodes start from: the run, its world version, scenarios and profiles. */
  readonly world: RunWorld;
  /** Its calls to the workers its attempts run on. */
  readonly calls: EpisodeCalls;
  /** Places its queued attempts. */
  readonly placer: AttemptPlacer;
  /** What its attempts spent, kept in the run's spend record and its checkpoint. */
  readonly spend: ShardSpend;
  /** Asks a worker whose call broke whether it still answers. */
  readonly probe: WorkerProbe;
}

/** The parts of the shard job `ctx` over the run's world `world`. */
export function shardParts(ctx: PhaseContext, world: RunWorld): ShardParts {
  const { deps, job } = ctx;
  const budget = new RunBudget(deps, world.run);
  const calls = new EpisodeCalls(deps.workers, world, deps.logger);
  const saved = Number(ctx.checkpoint<{ spent_usd?: number }>().spent_usd ?? 0);
  return {
    world,
    calls,
    placer: new AttemptPlacer(deps, {
      budget,
      projectId: job.project_id,
      owner: job.owner ?? '',
      trust: world.trust,
      calls,
    }),
    spend: new ShardSpend(deps.adapters.store, job._id, budget, saved, (usd) => ctx.save({ spent_usd: usd })),
    probe: new WorkerProbe(deps.workers.clients, ctx),
  };
}
