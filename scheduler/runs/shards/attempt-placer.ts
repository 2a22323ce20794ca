import { Collections, ServiceError, nowIso } from '../../../core/index.js';
import { EPISODE_WORK, type SourceTrust } from '../../../world-worker/index.js';
import type { SchedulerDeps } from '../../context.js';
import type { EpisodeCalls } from './episode-calls.js';
import type { BudgetRound, RunBudget } from './run-budget.js';
import type { RunEpisodeDoc } from '../types.js';

/** How long a shard with work waits for any live world-worker before it fails (full workers are waited for without end). */
const NO_WORKER_FAIL_MS = 120_000;

/** What an {@link AttemptPlacer} places for. */
export interface AttemptPlacerOptions {
  /** The run's budget_usd, held across its shards. */
  budget: RunBudget;
  /** The shard job's project, whose organization's room bounds the starts. */
  projectId: string;
  /** The shard driver's job engine: the fence of every write to the shard's attempts. */
  owner: string;
  /** Whose code the run's world version runs: tenant code is placed only on workers that isolate it. */
  trust: SourceTrust;
  /** The shard's calls to its workers: an attempt recorded `running` gets its call there. */
  calls: EpisodeCalls;
}

/**
 * Places a shard's queued attempts (shard-driver.ts): as many as the organization's
 * `concurrent_episodes` room lets start now, each on the world-worker with the most room,
 * and with `budget_usd` each reserving its share of what the run has left (run-budget.ts).
 * An attempt is placed by a compare-and-set from `queued` (held by `owner`) to `running`;
 * one found taken is dropped from the queue.
 */
export class AttemptPlacer {
  readonly #deps: SchedulerDeps;
  readonly #o: AttemptPlacerOptions;
  readonly #budget: RunBudget;
  #noWorkerSince: number | null = null;
  /** Attempts this placer started, in all. */
  #started = 0;

  constructor(deps: SchedulerDeps, options: AttemptPlacerOptions) {
    this.#deps = deps;
    this.#o = options;
    this.#budget = options.budget;
  }

  /**
   * Places attempts from the front of `pending` (taking them off it) until the room, the
   * workers or the budget run out; the rest wait in the queue for the next tick.
   *
   * @returns how many were started.
   *
   * @throws ServiceError('unavailable') when no world-worker was live for NO_WORKER_FAIL_MS
   *   while attempts waited and none ran.
   */
  async place(pending: RunEpisodeDoc[]): Promise<number> {
    if (pending.length === 0) return 0;
    // the plan's concurrent_episodes: what the organization may start now, and no more; the
    // rest wait in the queue for the next tick
    const gate = await this.#deps.organizationSlots.enter(this.#o.projectId);
    const before = this.#started;
    let round: BudgetRound | null = null;
    try {
      const room = gate.room ?? Infinity;
      // with budget_usd, each placed episode reserves its share of what is left (run-budget.ts)
      if (this.#budget.limited)
        round = await this.#budget.open(
          Math.min(room, pending.length, Math.max(1, await this.#deps.placement.capacity(this.#o.trust))),
        );
      for (let n = room; n > 0 && pending.length > 0; n--) {
        if (!(await this.#placeOne(pending, round))) break;
      }
      return this.#started - before;
    } finally {
      round?.close();
      gate.leave();
    }
  }

  /**
   * Places the next queued attempt on the worker with the most room (or finds it taken);
   * false when no worker can take one now, or the run's budget has nothing left to reserve.
   */
  async #placeOne(pending: RunEpisodeDoc[], round: BudgetRound | null): Promise<boolean> {
    const placement = this.#deps.placement;
    const worker = await placement.reserve(this.#o.trust);
    if (worker === 'full') {
      // busy, not broken: other episodes end and free their places
      this.#noWorkerSince = null;
      return false;
    }
    if (worker === 'none') {
      this.#noWorkerSince ??= Date.now();
      if (Date.now() - this.#noWorkerSince > NO_WORKER_FAIL_MS && this.#o.calls.running === 0) {
        throw new ServiceError(
          'unavailable',
          this.#o.trust === 'tenant'
            ? `no world-worker that isolates tenant code (container sandboxes) was live for ${NO_WORKER_FAIL_MS / 1000} s while episodes waited; the world version runs the tenant's code, which workers with child-process sandboxes refuse (docs/security.md)`
            : `no world-worker was live for ${NO_WORKER_FAIL_MS / 1000} s while episodes waited; start a worker (crucible worker) or check the running ones`,
        );
      }
      return false;
    }
    this.#noWorkerSince = null;
    const reserved = round ? round.take() : null;
    if (round && reserved === null) {
      // everything left is reserved by running episodes: wait for them to give back what they did not spend
      placement.unreserve(worker.id);
      return false;
    }
    const ep = pending.shift()!;
    const placed = await this.#deps.adapters.store.update<RunEpisodeDoc>(
      Collections.runEpisodes,
      ep._id,
      {
        status: 'running',
        worker_id: worker.id,
        worker_address: worker.address,
        started_at: nowIso(),
        ...(round ? { reserved_usd: reserved } : {}),
      },
      { status: 'queued', owner: this.#o.owner },
    );
    if (!placed) {
      placement.unreserve(worker.id);
      return true;
    }
    const waited = (Date.now() - Date.parse(placed.created_at)) / 1000;
    if (Number.isFinite(waited)) this.#deps.metrics.placementWait.observe(Math.max(0, waited));
    this.#o.calls.start({ ep: placed, workerId: worker.id, address: worker.address, kind: EPISODE_WORK.run });
    this.#started += 1;
    return true;
  }
}
