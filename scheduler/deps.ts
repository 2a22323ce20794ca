import type { HandlerDeps } from '../core/index.js';
import { billedAccounts } from '../accounts/index.js';
import { paymentProviderFor } from '../billing/index.js';
import { billedWork } from './billed-work.js';
import type { SchedulerDeps } from './context.js';
import { JobEngine, type JobEngineOptions } from './jobs/index.js';
import { createSchedulerMetrics } from './metrics.js';
import { OrganizationSlots } from './runs/shards/organization-slots.js';
import { Placement } from './runs/shards/placement.js';
import type { WorkerRegistry } from './workers.js';

/**
 * Makes the deps of one scheduler, with everything it keeps across its shards and handlers
 * as named fields (docs/architecture.md): its job engine (started later by
 * `startJobEngine`), placement, organization gates, metrics, payment provider, billing's ports
 * onto accounts (`billedAccounts`) and onto the scheduler's own jobs and attempts
 * (`billedWork`), and what it remembers (shard statuses announced, catalog
 * entries packed).
 * `startScheduler` calls it once; tests and benchmarks call it for a scheduler of their own.
 */
export function schedulerDeps(
  base: HandlerDeps & { readonly workers: WorkerRegistry },
  jobOptions: JobEngineOptions = {},
): SchedulerDeps {
  const deps: Omit<SchedulerDeps, 'jobs'> & { jobs?: JobEngine } = {
    ...base,
    placement: new Placement(base.workers),
    organizationSlots: new OrganizationSlots(base.adapters),
    metrics: createSchedulerMetrics(base.workers),
    payments: paymentProviderFor(base.config, base.adapters.store),
    billedAccounts: billedAccounts(base.adapters.store),
    billedWork: billedWork(base.adapters.store),
    announcedShards: new Map(),
    packedCatalog: new Map(),
  };
  // the engine runs its jobs with these deps, so it is made from them
  deps.jobs = new JobEngine(deps as SchedulerDeps, jobOptions);
  return deps as SchedulerDeps;
}
