import type * as operations from '../core/operations.js';
import type { HandlerDeps } from '../core/operations.js';
import type { WorkerRegistry } from './workers.js';

export { accepted, created, ok, type OperationContext, type Reply } from '../core/operations.js';

/** What every scheduler component is built from: the handler deps plus the worker registry. */
export interface SchedulerDeps extends HandlerDeps {
  readonly workers: WorkerRegistry;
}

/** A handler of the scheduler's own operations (it may use the worker registry). */
export type OperationHandler = operations.OperationHandler<SchedulerDeps>;

/** Operation id -> scheduler handler; tables written for plain `HandlerDeps` fit too. */
export type HandlerTable = operations.HandlerTable<SchedulerDeps>;

/**
 * State kept once per scheduler (one `deps` object) in `states`, made by `create` the
 * first time: what every shard of a scheduler shares (placements, organization gates).
 */
export function perScheduler<T>(states: WeakMap<SchedulerDeps, T>, deps: SchedulerDeps, create: () => T): T {
  let state = states.get(deps);
  if (state === undefined) states.set(deps, (state = create()));
  return state;
}
