import type { HandlerDeps, HandlerTable as AnyHandlerTable, OperationHandler as AnyHandler } from '../core/index.js';
import type { WorkerRegistry } from './workers.js';

export { accepted, created, ok, type OperationContext } from '../core/index.js';

/** What every scheduler component is built from: the handler deps plus the worker registry. */
export interface SchedulerDeps extends HandlerDeps {
  readonly workers: WorkerRegistry;
  /** What this scheduler keeps across its shards and handlers. */
  readonly state: SchedulerState;
}

/** A handler of the scheduler's own operations (it may use the worker registry). */
export type OperationHandler = AnyHandler<SchedulerDeps>;

/** Operation id -> scheduler handler; tables written for plain `HandlerDeps` fit too. */
export type HandlerTable = AnyHandlerTable<SchedulerDeps>;

/**
 * A piece of state that one scheduler keeps for all its shards and handlers (placements,
 * organization gates, summary timers, the job engine). A module declares its key once;
 * the value lives in the scheduler's {@link SchedulerState}, made the first time it is asked for.
 */
export interface StateKey<T> {
  readonly name: string;
  readonly create: () => T;
}

export const stateKey = <T>(name: string, create: () => T): StateKey<T> => ({ name, create });

/**
 * The state of one scheduler, built by its composition root (`startScheduler`) and carried
 * in its deps: two schedulers in one process (tests, benchmarks) share nothing.
 */
export class SchedulerState {
  readonly #values = new Map<StateKey<unknown>, unknown>();

  /** The value of `key`, made by its `create` the first time. */
  get<T>(key: StateKey<T>): T {
    if (!this.#values.has(key)) this.#values.set(key, key.create());
    return this.#values.get(key) as T;
  }

  /** Whether `key` has a value yet. */
  has(key: StateKey<unknown>): boolean {
    return this.#values.has(key);
  }

  /** Sets `key` (state made elsewhere, such as the job engine). */
  set<T>(key: StateKey<T>, value: T): void {
    this.#values.set(key, value);
  }
}
