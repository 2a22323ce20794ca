import type { HandlerDeps, HandlerTable as AnyHandlerTable, OperationHandler as AnyHandler } from '../core/index.js';
import type { PaymentDeps } from '../billing/index.js';
import type { PackedEntry } from './applications/catalog-import.js';
import type { JobEngine } from './jobs/engine.js';
import type { SchedulerMetrics } from './metrics.js';
import type { OrganizationSlots } from './runs/shards/organization-slots.js';
import type { Placement } from './runs/shards/placement.js';
import type { WorkerRegistry } from './workers.js';

export { accepted, created, ok, type OperationContext } from '../core/index.js';

/**
 * What every scheduler component is built from: the handler deps, the worker registry, and
 * what one scheduler keeps across its shards and handlers, each a named field made once by
 * `schedulerDeps` (called by `startScheduler`): two schedulers in one process (tests,
 * benchmarks) share nothing, and no module holds any of it.
 */
export interface SchedulerDeps extends HandlerDeps, PaymentDeps {
  readonly workers: WorkerRegistry;
  /** The job engine; handlers reach it through `jobsOf`, which refuses until `startJobEngine` ran. */
  readonly jobs: JobEngine;
  /** Chooses world-workers for the episodes of every shard. */
  readonly placement: Placement;
  /** The organization gates of `concurrent_episodes`. */
  readonly organizationSlots: OrganizationSlots;
  /** The `/metrics` figures. */
  readonly metrics: SchedulerMetrics;
  /** The last status announced per shard, so a repeated status hook announces nothing. */
  readonly announcedShards: Map<string, string>;
  /** The packaged catalog entries packed so far, by digest. */
  readonly packedCatalog: Map<string, Promise<PackedEntry>>;
}

/** A handler of the scheduler's own operations (it may use the worker registry). */
export type OperationHandler = AnyHandler<SchedulerDeps>;

/** Operation id -> scheduler handler; tables written for plain `HandlerDeps` fit too. */
export type HandlerTable = AnyHandlerTable<SchedulerDeps>;
