import { Collections } from '../../core/index.js';
import { ServiceError, toServiceError } from '../../core/index.js';
import { neverSent } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import { EPISODE_WORK, type EpisodeOutcome } from '../../world-worker/index.js';
import { JobInterrupted, jobsOf, type PhaseContext } from '../jobs/index.js';
import { recordOutcome } from './attempts.js';
import { announceRecovered, cancelUnstarted, failAndRequeue, nextAttempt, outcomeFromRecord } from './endings.js';
import { OrganizationSlots } from './organization-slots.js';
import { Placement } from './placement.js';
import { RunBudget, type BudgetRound } from './run-budget.js';
import type { RunWorld } from './run-world.js';
import { tallyRun } from './summary-tally.js';
import { schedulerMetrics, type SchedulerMetrics } from '../metrics.js';
import type { RunEpisodeDoc } from './types.js';

/** Deadline of one `episode.run` call: longer than any episode; a call that reaches it re-attaches. */
const EPISODE_CALL_MS = 7 * 24 * 3600_000;
/** How long a shard with work waits for any live world-worker before it fails (full workers are waited for without end). */
const NO_WORKER_FAIL_MS = 120_000;
/** How often running episodes' workers are checked for lost heartbeats. */
const WORKER_CHECK_MS = 1_000;
const TICK_MS = 500;
/** A stop not answered by the episode's end within this long is asked again. */
const STOP_AGAIN_MS = 10_000;
/** While a stop waits for episodes to end, the log says so this often. */
const STOP_REPORT_MS = 30_000;
/** Pause before asking a reachable worker again about an episode whose call broke. */
const REATTACH_DELAY_MS = 250;
/** How long a worker that failed both pings is taken as silent without asking again. */
const SILENT_REUSE_MS = 3_000;

interface InFlight {
  ep: RunEpisodeDoc;
  workerId: string;
  address: string;
  /** EPISODE_WORK.run (a start) or EPISODE_WORK.await (a re-attach). */
  kind?: string;
}

type Settled = { ep: RunEpisodeDoc; flight: InFlight; outcome?: EpisodeOutcome; error?: unknown };

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
 */
export class ShardDriver {
  readonly #ctx: PhaseContext;
  readonly #rw: RunWorld;
  readonly #placement: Placement;
  readonly #organizations: OrganizationSlots;
  readonly #budget: RunBudget;
  readonly #pending: RunEpisodeDoc[] = [];
  readonly #inflight = new Map<string, InFlight>();
  readonly #settled: Settled[] = [];
  readonly #stopping = new Set<string>();
  readonly #needsArchive = new Set<string>();
  /** Worker addresses that last failed both pings, and when. */
  readonly #silentAt = new Map<string, number>();
  #wake: () => void = () => undefined;
  #lastWorkerCheck = 0;
  #noWorkerSince: number | null = null;
  #spent = 0;
  /** Attempts changed since the shard's tally was last saved. */
  #dirty = true;
  /** This scheduler's job engine: the fence of every write to the shard's attempts. */
  readonly #owner: string;
  readonly #metrics: SchedulerMetrics;

  constructor(ctx: PhaseContext, rw: RunWorld) {
    this.#owner = ctx.job.owner ?? '';
    this.#ctx = ctx;
    this.#rw = rw;
    this.#placement = new Placement(ctx.deps);
    this.#organizations = new OrganizationSlots(ctx.deps);
    this.#budget = new RunBudget(ctx.deps, rw.run);
    this.#spent = Number(ctx.checkpoint<{ spent_usd?: number }>().spent_usd ?? 0);
    this.#metrics = schedulerMetrics(ctx.deps);
  }

  async drive(): Promise<void> {
    const queue = { queued: 0, running: 0 };
    Object.defineProperties(queue, {
      queued: { get: () => this.#pending.length },
      running: { get: () => this.#inflight.size },
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
        if (this.#inflight.size === 0 && this.#settled.length === 0) throw new JobInterrupted();
      } else await this.#place();
      await this.#checkWorkers();
      await this.#drain();
      await this.#saveTally();
      if (this.#pending.length === 0 && this.#inflight.size === 0 && this.#settled.length === 0)
        return this.#checkAllRan();
      await this.#idle(TICK_MS);
    }
  }

  /**
   * The shard succeeds only when every slot's standing attempt ran to its end: a slot whose
   * attempts all could not run (world not started, worker lost: `lost`) did not run, and the
   * shard (so the run) fails saying which and why instead of finishing with a hole in it.
   */
  async #checkAllRan(): Promise<void> {
    const all = await this.#ctx.deps.adapters.store.find<RunEpisodeDoc>(Collections.runEpisodes, {
      shard_id: this.#ctx.job._id,
    });
    const latest = new Map<number, RunEpisodeDoc>();
    for (const e of all) if ((latest.get(e.slot)?.attempt ?? 0) < e.attempt) latest.set(e.slot, e);
    const slots = (this.#ctx.input as { slots?: number[] }).slots ?? [...latest.keys()];
    const ran = (e: RunEpisodeDoc | undefined) => e?.status === 'finished' || (e?.status === 'failed' && !e.lost);
    const missing = slots.filter((slot) => !ran(latest.get(slot)));
    if (missing.length === 0) return;
    const first = latest.get(missing[0]!);
    const why = first
      ? `slot ${first.slot} (${first.scenario_id}, ${first.profile}, repeat ${first.repeat}) ended ${first.status} after ${first.attempt} attempts: ${first.environment_error ?? first.termination ?? 'no reason recorded'}`
      : `slot ${missing[0]} has no attempt`;
    throw new ServiceError(
      'unavailable',
      `${missing.length} of ${slots.length} planned episodes of the shard did not run; ${why}`,
    );
  }

  /** Rebuilds the shard's state from its attempts in the store. */
  async #restore(): Promise<void> {
    const store = this.#ctx.deps.adapters.store;
    const all = await store.find<RunEpisodeDoc>(Collections.runEpisodes, { shard_id: this.#ctx.job._id });
    const latest = new Map<number, RunEpisodeDoc>();
    for (const e of all) if ((latest.get(e.slot)?.attempt ?? 0) < e.attempt) latest.set(e.slot, e);
    for (const found of [...latest.values()].sort((a, b) => a.slot - b.slot)) {
      let ep = found;
      if (ep.status === 'queued' || ep.status === 'running') {
        // take the attempt over: from now on the previous owner's writes to it are refused
        ep =
          (await store.update<RunEpisodeDoc>(
            Collections.runEpisodes,
            ep._id,
            { owner: this.#owner },
            { status: { $in: ['queued', 'running'] } },
          )) ??
          (await store.get<RunEpisodeDoc>(Collections.runEpisodes, ep._id)) ??
          ep;
      }
      if (ep.status === 'queued') this.#pending.push(ep);
      else if (ep.status === 'running') this.#attach(ep);
      else if (ep.status === 'cancelled' && !this.#ctx.job.cancel_requested)
        await this.#requeue(ep, 'the run was retried after it stopped', false);
      else if (ep.status === 'failed' && ep.lost && !this.#ctx.job.cancel_requested)
        // a retried (or taken over) shard gives a slot that did not run its attempts again
        this.#pending.push(await nextAttempt(this.#ctx.deps, this.#rw, ep, { owner: this.#owner }));
    }
  }

  async #place(): Promise<void> {
    if (this.#pending.length === 0) return;
    // the plan's concurrent_episodes: what the organization may start now, and no more; the
    // rest wait in the queue for the next tick
    const gate = await this.#organizations.enter(this.#ctx.job.project_id);
    let round: BudgetRound | null = null;
    try {
      const room = gate.room ?? Infinity;
      // with budget_usd, each placed episode reserves its share of what is left (run-budget.ts)
      if (this.#budget.limited)
        round = await this.#budget.open(
          Math.min(room, this.#pending.length, Math.max(1, await this.#placement.capacity())),
        );
      for (let n = room; n > 0 && this.#pending.length > 0; n--) {
        if (!(await this.#placeOne(round))) return;
      }
    } finally {
      round?.close();
      gate.leave();
    }
  }

  /**
   * Places the next queued attempt on the worker with the most room (or finds it taken);
   * false when no worker can take one now, or the run's budget has nothing left to reserve.
   */
  async #placeOne(round: BudgetRound | null): Promise<boolean> {
    const worker = await this.#placement.reserve();
    if (worker === 'full') {
      // busy, not broken: other episodes end and free their places
      this.#noWorkerSince = null;
      return false;
    }
    if (worker === 'none') {
      this.#noWorkerSince ??= Date.now();
      if (Date.now() - this.#noWorkerSince > NO_WORKER_FAIL_MS && this.#inflight.size === 0) {
        throw new ServiceError(
          'unavailable',
          `no world-worker was live for ${NO_WORKER_FAIL_MS / 1000} s while episodes waited; start a worker (crucible worker) or check the running ones`,
        );
      }
      return false;
    }
    this.#noWorkerSince = null;
    const reserved = round ? round.take() : null;
    if (round && reserved === null) {
      // everything left is reserved by running episodes: wait for them to give back what they did not spend
      this.#placement.release(worker.id);
      return false;
    }
    const ep = this.#pending.shift()!;
    const placed = await this.#ctx.deps.adapters.store.update<RunEpisodeDoc>(
      Collections.runEpisodes,
      ep._id,
      {
        status: 'running',
        worker_id: worker.id,
        worker_address: worker.address,
        started_at: nowIso(),
        ...(round ? { reserved_usd: reserved } : {}),
      },
      { status: 'queued', owner: this.#owner },
    );
    if (!placed) {
      this.#placement.release(worker.id);
      return true;
    }
    this.#dirty = true;
    const waited = (Date.now() - Date.parse(placed.created_at)) / 1000;
    if (Number.isFinite(waited)) this.#metrics.placementWait.observe(Math.max(0, waited));
    this.#call(
      placed,
      { ep: placed, workerId: worker.id, address: worker.address, kind: EPISODE_WORK.run },
      EPISODE_WORK.run,
    );
    return true;
  }

  /** Re-attaches to an attempt that is running on its worker (after a restart, or a broken call), after `delayMs`. */
  #attach(ep: RunEpisodeDoc, delayMs = 0): void {
    this.#call(
      ep,
      { ep, workerId: ep.worker_id ?? '', address: ep.worker_address ?? '', kind: EPISODE_WORK.await },
      EPISODE_WORK.await,
      delayMs,
    );
  }

  #call(ep: RunEpisodeDoc, flight: InFlight, kind: 'episode.run' | 'episode.await', delayMs = 0): void {
    this.#inflight.set(ep._id, flight);
    const run = async (): Promise<EpisodeOutcome> => {
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs).unref());
      const { workers } = this.#ctx.deps;
      return kind === EPISODE_WORK.run
        ? workers.execute(
            flight.address,
            kind,
            await this.#rw.payload(ep, this.#needsArchive.has(ep._id)),
            EPISODE_CALL_MS,
          )
        : workers.execute(flight.address, 'episode.await', { episode_id: ep._id }, EPISODE_CALL_MS);
    };
    run().then(
      (outcome) => this.#settle({ ep, flight, outcome }),
      (error: unknown) => this.#settle({ ep, flight, error }),
    );
  }

  #settle(s: Settled): void {
    // an attempt already given up on (its worker was found lost) settles into nothing
    if (this.#inflight.get(s.ep._id) !== s.flight) return;
    this.#settled.push(s);
    this.#wake();
  }

  /** Handles what settled, one at a time (job writes must not interleave). */
  async #drain(): Promise<void> {
    while (this.#settled.length > 0) {
      const s = this.#settled.shift()!;
      if (this.#inflight.get(s.ep._id) !== s.flight) continue;
      this.#inflight.delete(s.ep._id);
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
      // the spend is saved before the attempt stops counting as running, so the run's budget
      // (run-budget.ts) never sees its dollars neither reserved nor spent
      const before = this.#spent;
      if (o.cost_usd > 0) await this.#saveSpent(before + o.cost_usd);
      const written = await recordOutcome(this.#ctx.deps.adapters.store, ep, o, this.#owner);
      if (recovered) await announceRecovered(this.#ctx.deps, ep, o);
      if (written) this.#metrics.episodesEnded.inc({ status: o.status });
      if (!written) {
        if (o.cost_usd > 0) await this.#saveSpent(before);
        this.#ctx.deps.logger.debug({ episode: ep._id }, 'outcome not recorded: the attempt ended already or moved');
        return;
      }
    }
    this.#dirty = true;
  }

  async #saveSpent(usd: number): Promise<void> {
    this.#spent = Math.round(usd * 1e6) / 1e6;
    await this.#ctx.save({ spent_usd: this.#spent });
  }

  /** An `episode.run` or `episode.await` call failed: capacity, a missing source, or the worker. */
  async #failed(ep: RunEpisodeDoc, flight: InFlight, err: ServiceError): Promise<void> {
    const details = (err.details ?? {}) as {
      at_capacity?: boolean;
      missing_source?: string;
      not_hosted?: boolean;
      shutting_down?: boolean;
      not_started?: boolean;
    };
    const store = this.#ctx.deps.adapters.store;
    // a start that never reached its worker (no connection: it died, or is not up yet)
    const unsent = flight.kind === EPISODE_WORK.run && neverSent(err);
    // refused before anything started: back to the queue, placed elsewhere (or later)
    if (
      unsent ||
      (err.code === 'rate_limited' && details.at_capacity) ||
      (err.code === 'not_found' && details.missing_source) ||
      (details.shutting_down && details.not_started)
    ) {
      if (unsent)
        this.#ctx.deps.logger.warn(
          { episode: ep._id, worker: flight.workerId, err: err.message },
          'a placement never reached its world-worker; the episode goes back to the queue',
        );
      if (unsent) this.#placement.down(flight.workerId);
      else if (details.at_capacity) this.#placement.full(flight.workerId);
      else if (details.shutting_down) this.#placement.leaving(flight.workerId);
      else this.#needsArchive.add(ep._id);
      const back = await store.update<RunEpisodeDoc>(
        Collections.runEpisodes,
        ep._id,
        { status: 'queued', worker_id: null, worker_address: null, started_at: null },
        { status: 'running', owner: this.#owner },
      );
      if (back) this.#pending.unshift(back);
      return;
    }
    if (err.code === 'unavailable' && details.shutting_down) {
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
    const reached = err.code === 'not_found' && details.not_hosted;
    if (!reached && err.code !== 'unavailable' && err.code !== 'timeout' && err.code !== 'internal') {
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
    if (!reached) {
      this.#placement.down(flight.workerId);
      if (await this.#reachable(flight.address)) {
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
      reached
        ? `world-worker ${flight.workerId} no longer holds it`
        : `world-worker ${flight.workerId} stopped answering`,
    );
  }

  /**
   * Whether a worker answers a ping (asked twice, half a second apart, before giving up on
   * it). A worker found silent is not asked again for a few seconds: the other episodes of
   * a dead worker fail over at once instead of a second and a half each.
   */
  async #reachable(address: string): Promise<boolean> {
    if (!address) return false;
    if (Date.now() - (this.#silentAt.get(address) ?? 0) < SILENT_REUSE_MS) return false;
    for (let i = 0; i < 2; i++) {
      if (i > 0) await this.#ctx.sleep(500);
      try {
        await this.#ctx.deps.workers.clients.ping(address, 1_000);
        this.#silentAt.delete(address);
        return true;
      } catch {
        // not answering (yet)
      }
    }
    this.#silentAt.set(address, Date.now());
    return false;
  }

  /** The attempt's worker is gone (killed, cut off, shut down): the slot gets an attempt that does not count. */
  async #lost(ep: RunEpisodeDoc, why: string): Promise<void> {
    await this.#requeue(ep, `${why} while the episode ran; the world went with it`, true, { workerLost: true });
  }

  /**
   * Ends `ep` (environment error) when `fail`, and queues the slot's next attempt when it has
   * one left. When the actor had ended the episode itself meanwhile, its ending is recorded.
   */
  async #requeue(
    ep: RunEpisodeDoc,
    why: string,
    fail: boolean,
    opts: { overrideStop?: boolean; workerLost?: boolean } = {},
  ): Promise<void> {
    const next = fail
      ? await failAndRequeue(this.#ctx.deps, this.#rw, ep, why, { ...opts, owner: this.#owner })
      : await nextAttempt(this.#ctx.deps, this.#rw, ep, { owner: this.#owner });
    if (next) this.#pending.push(next);
    else if (fail) {
      const recorded = await outcomeFromRecord(this.#ctx.deps, ep);
      if (recorded && (await recordOutcome(this.#ctx.deps.adapters.store, ep, recorded, this.#owner)))
        await announceRecovered(this.#ctx.deps, ep, recorded);
    }
    this.#dirty = true;
  }

  /** Fails over episodes whose worker stopped heartbeating, without waiting for their calls to fail. */
  async #checkWorkers(): Promise<void> {
    if (this.#inflight.size === 0 || Date.now() - this.#lastWorkerCheck < WORKER_CHECK_MS) return;
    this.#lastWorkerCheck = Date.now();
    const live = new Set((await this.#placement.live()).map((w) => w.id));
    for (const flight of [...this.#inflight.values()]) {
      if (live.has(flight.workerId)) continue;
      this.#inflight.delete(flight.ep._id);
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
   * cancel. There is no deadline: the stop is asked of each episode's worker again every
   * STOP_AGAIN_MS until the episode ended (a lost worker's episodes end as lost), so the
   * run is `cancelled` only once every episode it was running is recorded as ended. The log
   * says how many are still being stopped.
   */
  async #stopAll(): Promise<never> {
    for (const ep of this.#pending.splice(0)) await cancelUnstarted(this.#ctx.deps, ep, this.#owner);
    const asked = new Map<string, number>();
    const logger = this.#ctx.deps.logger;
    let lastReport = Date.now();
    while (this.#inflight.size > 0 || this.#settled.length > 0) {
      // this scheduler shuts down: the stop stays asked on the job, its next owner carries it on
      if (jobsOf(this.#ctx.deps).isClosing()) throw new JobInterrupted();
      for (const f of this.#inflight.values()) {
        if (Date.now() - (asked.get(f.ep._id) ?? -Infinity) < STOP_AGAIN_MS) continue;
        asked.set(f.ep._id, Date.now());
        this.#stopping.add(f.ep._id);
        this.#ctx.deps.workers
          .execute(f.address, EPISODE_WORK.stop, { episode_id: f.ep._id }, 10_000)
          .catch((err: unknown) =>
            logger.warn({ err, episode: f.ep._id }, 'asking a worker to stop an episode failed'),
          );
      }
      await this.#checkWorkers();
      await this.#drain();
      for (const ep of this.#pending.splice(0)) await cancelUnstarted(this.#ctx.deps, ep, this.#owner);
      await this.#saveTally();
      if (this.#inflight.size > 0 && Date.now() - lastReport > STOP_REPORT_MS) {
        lastReport = Date.now();
        logger.info(
          { shard: this.#ctx.job._id, still_running: this.#inflight.size },
          'the run is stopping: waiting for its episodes to end',
        );
      }
      await this.#idle(TICK_MS);
    }
    logger.info({ shard: this.#ctx.job._id, stopped: asked.size }, 'every episode of the stopped shard has ended');
    throw new JobInterrupted();
  }

  /**
   * Saves the tally of the shard's attempts in its checkpoint when they changed: the sums the
   * coordinator adds into the run's stored summary (summary-tally.ts). A shard holds at most
   * SHARD_SIZE slots, so this costs the same in a run of any size.
   */
  async #saveTally(): Promise<void> {
    if (!this.#dirty) return;
    this.#dirty = false;
    const all = await this.#ctx.deps.adapters.store.find<RunEpisodeDoc>(Collections.runEpisodes, {
      shard_id: this.#ctx.job._id,
    });
    await this.#ctx.save({ tally: tallyRun(all) });
  }

  #idle(ms: number): Promise<void> {
    if (this.#settled.length > 0) return Promise.resolve();
    return Promise.race([this.#ctx.sleep(ms), new Promise<void>((resolve) => (this.#wake = resolve))]);
  }
}
