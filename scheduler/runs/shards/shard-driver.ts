import { Collections } from '../../../core/index.js';
import { type ServiceError, toServiceError } from '../../../core/index.js';
import { EPISODE_WORK, type EpisodeOutcome } from '../../../world-worker/index.js';
import { JobInterrupted, jobsOf, type PhaseContext } from '../../jobs/index.js';
import type { AttemptPlacer } from './attempt-placer.js';
import { recordOutcome } from '../attempts.js';
import { callFailure } from './call-failures.js';
import {
  announceRecovered,
  cancelUnstarted,
  failAndRequeue,
  hasAttemptLeft,
  nextAttempt,
  outcomeFromRecord,
  rerunsSlot,
} from './endings.js';
import type { EpisodeCalls, InFlight } from './episode-calls.js';
import type { Placement } from './placement.js';
import type { RunWorld } from './run-world.js';
import { checkAllRan, latestBySlot, shardAttempts, takeOver } from './shard-attempts.js';
import type { ShardParts } from './shard-parts.js';
import type { ShardSpend } from './shard-spend.js';
import { tallyRun } from '../summaries/summary-tally.js';
import type { SchedulerMetrics } from '../../metrics.js';
import type { RunEpisodeDoc } from '../types.js';
import type { WorkerProbe } from './worker-probe.js';

/** How often running episodes' workers are checked for lost heartbeats. */
const WORKER_CHECK_MS = 1_000;
const TICK_MS = 500;
/**
 * The longest a shard whose queued episodes found no place waits before trying again unwoken
 * (a freed place, a heartbeat showing one, a stop or a pause wake it earlier).
 */
const WAIT_FOR_PLACE_MS = 5_000;
/** While a stop waits for episodes to end, the log says so this often. */
const STOP_REPORT_MS = 30_000;
/** Pause before asking a reachable worker again about an episode whose call broke. */
const REATTACH_DELAY_MS = 250;

/**
 * Drives the episodes of one shard job: places queued attempts on world-workers with free
 * capacity, waits for each to end (one long `episode.run` call per episode: it answers
 * when the episode ends and fails at once when its worker dies), records outcomes, and
 * re-queues attempts whose worker was lost (docs/runs.md, Worker loss).
 *
 * The state is rebuilt from the store on every start, so a retried shard, or one taken
 * over by another scheduler, carries on: queued attempts are placed, running ones are
 * re-attached on their worker (or failed and re-queued when the worker no longer holds
 * them), cancelled ones get a new attempt (retry after stop).
 *
 * Commands: pause stops placing and pauses once no episode runs; stop ends running
 * episodes (termination `stopped`) and queued ones, then cancels; when the engine closes,
 * running episodes are left on their workers for the next owner.
 *
 * Its parts, made by shard-parts.ts and given to it: attempt-placer.ts places queued
 * attempts, episode-calls.ts holds the calls to the workers, worker-probe.ts pings a worker
 * whose call broke, shard-spend.ts keeps what the attempts spent. call-failures.ts reads a
 * failed call, shard-attempts.ts reads the shard's attempts from the store.
 */
export class ShardDriver {
  readonly #ctx: PhaseContext;
  readonly #rw: RunWorld;
  readonly #placement: Placement;
  readonly #placer: AttemptPlacer;
  readonly #pending: RunEpisodeDoc[] = [];
  readonly #calls: EpisodeCalls;
  readonly #probe: WorkerProbe;
  #lastWorkerCheck = 0;
  readonly #spend: ShardSpend;
  /** Attempts changed since the shard's tally was last saved. */
  #dirty = true;
  /** This scheduler's job engine: the fence of every write to the shard's attempts. */
  readonly #owner: string;
  readonly #metrics: SchedulerMetrics;
  readonly #waitForPlaceMs: number;

  /**
   * `parts`: its collaborators for this run of the job (shard-parts.ts); `opts.waitForPlaceMs`:
   * the longest wait for a place unwoken (default WAIT_FOR_PLACE_MS; tests make it long).
   */
  constructor(ctx: PhaseContext, parts: ShardParts, opts: { waitForPlaceMs?: number } = {}) {
    this.#waitForPlaceMs = opts.waitForPlaceMs ?? WAIT_FOR_PLACE_MS;
    this.#owner = ctx.job.owner ?? '';
    this.#ctx = ctx;
    this.#rw = parts.world;
    this.#calls = parts.calls;
    this.#placer = parts.placer;
    this.#spend = parts.spend;
    this.#probe = parts.probe;
    this.#placement = ctx.deps.placement;
    this.#metrics = ctx.deps.metrics;
  }

  async drive(): Promise<void> {
    const queue = { queued: 0, running: 0 };
    Object.defineProperties(queue, {
      queued: { get: () => this.#pending.length },
      running: { get: () => this.#calls.running },
    });
    this.#metrics.queues.add(queue);
    try {
      await this.#drive();
    } finally {
      this.#metrics.queues.delete(queue);
      await this.#saveTally().catch((err: unknown) =>
        this.#ctx.deps.logger.debug({ err, shard: this.#ctx.job._id }, 'the shard tally was not saved'),
      );
    }
  }

  async #drive(): Promise<void> {
    await this.#restore();
    for (;;) {
      if (await this.#ctx.shouldStop()) {
        const job = this.#ctx.job;
        if (jobsOf(this.#ctx.deps).isClosing() || (!job.cancel_requested && !job.pause_requested))
          throw new JobInterrupted();
        if (job.cancel_requested) return this.#stopAll();
        if (this.#calls.empty) throw new JobInterrupted();
      } else if ((await this.#placer.place(this.#pending)) > 0) this.#dirty = true;
      await this.#checkWorkers();
      await this.#drain();
      await this.#saveTally();
      if (this.#pending.length === 0 && this.#calls.empty)
        return checkAllRan(
          this.#ctx.deps.adapters.store,
          this.#ctx.job._id,
          (this.#ctx.input as { slots?: number[] }).slots,
        );
      // queued episodes that found no place (nothing of ours running to wake us): wait for a freed place
      if (this.#pending.length > 0 && this.#calls.empty && (await this.#placement.live()).length > 0)
        await this.#waitForPlace();
      else await this.#idle(TICK_MS);
    }
  }

  /** Rebuilds the shard's state, and its spend (shard-spend.ts), from its attempts in the store. */
  async #restore(): Promise<void> {
    const store = this.#ctx.deps.adapters.store;
    const all = await shardAttempts(store, this.#ctx.job._id);
    await this.#spend.settle(all);
    const latest = latestBySlot(all);
    for (const found of [...latest.values()].sort((a, b) => a.slot - b.slot)) {
      const ep = await takeOver(store, found, this.#owner);
      if (ep.status === 'queued') this.#pending.push(ep);
      else if (ep.status === 'running') this.#attach(ep);
      else if (ep.status === 'cancelled' && !this.#ctx.job.cancel_requested)
        await this.#requeue(ep, 'the run was retried after it stopped', false);
      else if (ep.status === 'failed' && ep.lost && !this.#ctx.job.cancel_requested)
        // a retried (or taken over) shard gives a slot that did not run its attempts again
        this.#pending.push(await nextAttempt(this.#ctx.deps, this.#rw, ep, { owner: this.#owner }));
    }
  }

  /** Re-attaches to an attempt that is running on its worker (after a restart, or a broken call), after `delayMs`. */
  #attach(ep: RunEpisodeDoc, delayMs = 0): void {
    const flight = { ep, workerId: ep.worker_id ?? '', address: ep.worker_address ?? '', kind: EPISODE_WORK.await };
    this.#calls.start(flight, delayMs);
  }

  /** Handles what settled, one at a time (job writes must not interleave). */
  async #drain(): Promise<void> {
    for (let s = this.#calls.next(); s; s = this.#calls.next()) {
      this.#dirty = true;
      if (s.flight.workerId) this.#placement.release(s.flight.workerId);
      if (s.outcome) await this.#ended(s.ep, s.outcome);
      else await this.#failed(s.ep, s.flight, toServiceError(s.error));
    }
  }

  /**
   * Records how an attempt ended. `recovered`: the ending was read back from the episode's
   * record rather than answered by its worker, so its `episode.finished` may be missing.
   */
  async #ended(ep: RunEpisodeDoc, o: EpisodeOutcome, recovered = false): Promise<void> {
    if (o.not_started && o.status === 'cancelled') await cancelUnstarted(this.#ctx.deps, ep, this.#owner);
    else if (o.not_started) await this.#requeue(ep, o.environment_error ?? 'the world did not start', true);
    else {
      // the spend is recorded before the attempt stops counting as running, so the run's
      // budget (run-budget.ts) never sees its dollars neither reserved nor spent
      await this.#spend.ahead(o.cost_usd);
      const written = await recordOutcome(this.#ctx.deps.adapters.store, ep, o, this.#owner);
      if (recovered) await announceRecovered(this.#ctx.deps, ep, o);
      if (written) this.#metrics.episodesEnded.inc({ status: o.status });
      if (!written) {
        if (o.cost_usd > 0) await this.#spend.settle();
        this.#ctx.deps.logger.debug({ episode: ep._id }, 'outcome not recorded: the attempt ended already or moved');
        return;
      }
      // its ending stands on the record; a failure that was not the agent's gets the slot a new attempt
      if (rerunsSlot(o) && hasAttemptLeft(written))
        this.#pending.push(await nextAttempt(this.#ctx.deps, this.#rw, written, { owner: this.#owner }));
    }
    this.#dirty = true;
  }

  /** An `episode.run` or `episode.await` call failed: capacity, a missing source, or the worker (call-failures.ts). */
  async #failed(ep: RunEpisodeDoc, flight: InFlight, err: ServiceError): Promise<void> {
    const failure = callFailure(err, flight.kind);
    if (failure.kind === 'refused') {
      if (failure.mark === 'down') {
        this.#ctx.deps.logger.warn(
          { episode: ep._id, worker: flight.workerId, err: err.message },
          'a placement never reached its world-worker; the episode goes back to the queue',
        );
        this.#placement.down(flight.workerId);
      } else if (failure.mark === 'full') this.#placement.full(flight.workerId);
      else if (failure.mark === 'leaving') this.#placement.leaving(flight.workerId);
      else this.#calls.sendArchive(ep._id);
      const back = await this.#ctx.deps.adapters.store.update<RunEpisodeDoc>(
        Collections.runEpisodes,
        ep._id,
        { status: 'queued', worker_id: null, worker_address: null, started_at: null },
        { status: 'running', owner: this.#owner },
      );
      if (back) this.#pending.unshift(back);
      return;
    }
    if (failure.kind === 'shutting_down') {
      this.#placement.leaving(flight.workerId);
      const recorded = await outcomeFromRecord(this.#ctx.deps, ep);
      if (recorded && recorded.status !== 'cancelled') return this.#ended(ep, recorded, true);
      return this.#requeue(
        ep,
        `world-worker ${flight.workerId} shut down while the episode ran; the world went with it`,
        true,
        { overrideStop: true, workerLost: true },
      );
    }
    if (failure.kind === 'rejected') {
      // the worker refused the episode itself (a payload it cannot run): not a loss, nothing to re-run
      await failAndRequeue(
        this.#ctx.deps,
        this.#rw,
        ep,
        `world-worker ${flight.workerId} could not run it: ${err.message}`,
        { requeue: false, owner: this.#owner },
      );
      return;
    }
    // the call broke: no more episodes go to that worker until it is heard from again; one
    // that still answers pings is asked again shortly about this episode (re-attach)
    if (failure.kind === 'broken') {
      this.#placement.down(flight.workerId);
      if (await this.#probe.reachable(flight.address)) {
        this.#placement.up(flight.workerId);
        return this.#attach(ep, REATTACH_DELAY_MS);
      }
    }
    const recorded = await outcomeFromRecord(this.#ctx.deps, ep);
    if (recorded) return this.#ended(ep, recorded, true);
    // a worker that said it is shutting down closes its server once its episodes are handed
    // back: a call that reached it only then (sent late) finds it gone, and says why
    if (this.#placement.isLeaving(flight.workerId)) return this.#lost(ep, `world-worker ${flight.workerId} shut down`);
    await this.#lost(
      ep,
      failure.kind === 'not_hosted'
        ? `world-worker ${flight.workerId} no longer holds it`
        : `world-worker ${flight.workerId} stopped answering`,
    );
  }

  /** The attempt's worker is gone (killed, cut off, shut down): the slot gets an attempt that does not count. */
  async #lost(ep: RunEpisodeDoc, why: string): Promise<void> {
    await this.#requeue(ep, `${why} while the episode ran; the world went with it`, true, { workerLost: true });
  }

  /**
   * Ends `ep` (environment error) when `fail`, and queues the slot's next attempt when it has
   * one left. When the actor had ended the episode itself meanwhile, its ending is recorded.
   * Either way its spend counts in the shard's (shard-spend.ts) before it stops counting as running.
   */
  async #requeue(
    ep: RunEpisodeDoc,
    why: string,
    fail: boolean,
    opts: { overrideStop?: boolean; workerLost?: boolean } = {},
  ): Promise<void> {
    const beforeEnd = (usd: number) => this.#spend.ahead(usd);
    const next = fail
      ? await failAndRequeue(this.#ctx.deps, this.#rw, ep, why, { ...opts, owner: this.#owner, beforeEnd })
      : await nextAttempt(this.#ctx.deps, this.#rw, ep, { owner: this.#owner });
    if (next) this.#pending.push(next);
    else if (fail) {
      const recorded = await outcomeFromRecord(this.#ctx.deps, ep);
      const store = this.#ctx.deps.adapters.store;
      if (recorded && (await store.get<RunEpisodeDoc>(Collections.runEpisodes, ep._id))?.status === 'running') {
        await this.#spend.ahead(recorded.cost_usd);
        if (await recordOutcome(store, ep, recorded, this.#owner))
          await announceRecovered(this.#ctx.deps, ep, recorded);
      }
    }
    this.#dirty = true;
  }

  /** Fails over episodes whose worker stopped heartbeating, without waiting for their calls to fail. */
  async #checkWorkers(): Promise<void> {
    if (this.#calls.running === 0 || Date.now() - this.#lastWorkerCheck < WORKER_CHECK_MS) return;
    this.#lastWorkerCheck = Date.now();
    const live = new Set((await this.#placement.live()).map((w) => w.id));
    for (const flight of [...this.#calls.flights()]) {
      if (live.has(flight.workerId)) continue;
      this.#calls.forget(flight.ep._id);
      this.#placement.release(flight.workerId);
      const recorded = await outcomeFromRecord(this.#ctx.deps, flight.ep);
      if (recorded) await this.#ended(flight.ep, recorded, true);
      else
        await this.#lost(
          flight.ep,
          `world-worker ${flight.workerId || '(unknown)'} ${this.#placement.isLeaving(flight.workerId) ? 'shut down' : 'stopped sending heartbeats'}`,
        );
    }
  }

  /**
   * The run was stopped: end running episodes (termination `stopped`) and queued ones, then
   * cancel. There is no deadline: the stop is asked of each episode's worker again
   * (episode-calls.ts) until the episode ended (a lost worker's episodes end as lost), so the
   * run is `cancelled` only once every episode it was running is recorded as ended. The log
   * says how many are still being stopped.
   */
  async #stopAll(): Promise<never> {
    for (const ep of this.#pending.splice(0)) await cancelUnstarted(this.#ctx.deps, ep, this.#owner);
    const logger = this.#ctx.deps.logger;
    let lastReport = Date.now();
    while (!this.#calls.empty) {
      // this scheduler shuts down: the stop stays asked on the job, its next owner carries it on
      if (jobsOf(this.#ctx.deps).isClosing()) throw new JobInterrupted();
      this.#calls.askStops();
      await this.#checkWorkers();
      await this.#drain();
      for (const ep of this.#pending.splice(0)) await cancelUnstarted(this.#ctx.deps, ep, this.#owner);
      await this.#saveTally();
      if (this.#calls.running > 0 && Date.now() - lastReport > STOP_REPORT_MS) {
        lastReport = Date.now();
        logger.info(
          { shard: this.#ctx.job._id, still_running: this.#calls.running },
          'the run is stopping: waiting for its episodes to end',
        );
      }
      await this.#idle(TICK_MS);
    }
    logger.info(
      { shard: this.#ctx.job._id, stopped: this.#calls.stopsAsked },
      'every episode of the stopped shard has ended',
    );
    throw new JobInterrupted();
  }

  /**
   * Saves the tally of the shard's attempts in its checkpoint when they changed: the sums the
   * coordinator adds into the run's stored summary (summary-tally.ts), and the shard's spend
   * made from the same records (shard-spend.ts), so the run's `spent_usd` and its summary's
   * `cost_usd` count the same attempts. A shard holds at most SHARD_SIZE slots, so this
   * costs the same in a run of any size.
   */
  async #saveTally(): Promise<void> {
    if (!this.#dirty) return;
    this.#dirty = false;
    const all = await shardAttempts(this.#ctx.deps.adapters.store, this.#ctx.job._id);
    await this.#spend.settle(all);
    await this.#ctx.save({ tally: tallyRun(all) });
  }

  /**
   * Until a call settles or `ms` passed, or a command or the engine closing wakes the job.
   * The sleep that loses the race is ended with it, so it cannot take the wake of a command
   * meant for the next sleep (ctx.sleep).
   */
  async #idle(ms: number): Promise<void> {
    const over = new AbortController();
    await this.#calls.idle(() => this.#ctx.sleep(ms, over.signal));
    over.abort();
  }

  /**
   * Until a place is freed (placement.ts), the wait's time passed, or the job is woken: a
   * stop or pause asked of the run (announced by the command, jobs/wakes.ts), or the engine
   * closing. Whichever ends first ends the other, so no waiter outlives the wait.
   */
  async #waitForPlace(): Promise<void> {
    const over = new AbortController();
    const ms = this.#waitForPlaceMs;
    await Promise.race([this.#placement.waitForPlace(ms, over.signal), this.#ctx.sleep(ms, over.signal)]);
    over.abort();
  }
}
