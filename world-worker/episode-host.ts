import type { Config } from '../core/index.js';
import { AtCapacityError, NotHostedError, ShuttingDownError, toServiceError } from '../core/index.js';
import { EventLog } from '../core/index.js';
import { closingController, nowIso, untilAborted } from '../core/index.js';
import type { Logger } from '../core/index.js';
import type { Adapters } from '../core/index.js';
import {
  EpisodeActor,
  RateLimitGates,
  StoreEpisodePersistence,
  eventLogEmitter,
  type RateLimitGate,
} from '../episode-actor/index.js';
import {
  assertMayRun,
  chooseSandboxes,
  operatorSources,
  runPolicy,
  type RunPolicy,
  type Sandboxes,
} from './sandboxes/index.js';
import type { WorldWorkerService } from './service.js';
import { EpisodeWorlds, customerFor, judgeFor, policyFor } from './episode-world.js';
import {
  EPISODE_WORK,
  type EpisodeActPayload,
  type EpisodeIntervenePayload,
  type EpisodeOutcome,
  type EpisodeRunPayload,
  type EpisodeTarget,
} from './episode-work.js';
import type { RoleMetrics } from '../core/index.js';

/** The longest an observation is held for `Prefer: wait` (the gateway caps the client's ask at the same). */
export const MAX_OBSERVE_WAIT_MS = 30_000;

/** One episode this worker hosts. */
interface Hosted {
  actor: EpisodeActor | null;
  stopRequested: boolean;
  /** Settles when the episode ended (or this worker is closing: then it rejects with `unavailable`). */
  outcome: Promise<EpisodeOutcome>;
  /** Settles once the world was stopped and the actor let go, whatever happened. */
  finished: Promise<void>;
}

export interface EpisodeHostOptions {
  workerId: string;
  config: Config;
  adapters: Pick<Adapters, 'store' | 'bus'>;
  logger: Logger;
  /** Episodes hosted at once (WORKER_CAPACITY). */
  capacity: number;
  sandboxes?: Sandboxes;
  /** What this worker may run (its own driver and settings); default: from `sandboxes` and `config`. */
  policy?: RunPolicy;
  /** The worker's metrics: sandbox starts and action latency are counted when given. */
  metrics?: RoleMetrics;
}

/**
 * The episodes a world-worker hosts: one actor per episode, each with its own sandbox,
 * kept in memory for as long as the episode runs so that actions, observations and
 * interventions routed to this worker reach it. The actor saves every change to the
 * store (StoreEpisodePersistence) and appends its events to the run's stream.
 *
 * Invariants: at most `capacity` episodes at once (a start beyond that is refused, never
 * queued, so the scheduler's placement stays the only queue); an episode id is hosted at
 * most once (a repeated start waits for the same end); a world is stopped and its data
 * folder removed as soon as its episode ends.
 */
export class EpisodeHost {
  readonly #opts: EpisodeHostOptions;
  readonly #live = new Map<string, Hosted>();
  readonly #worlds: EpisodeWorlds;
  readonly #log: EventLog;
  readonly #logger: Logger;
  /**
   * Aborted (with the `shutting_down` error as its reason) when the host closes. A signal,
   * not a promise every episode raced: each race left a reaction holding the episode's
   * outcome on that promise for the life of the worker.
   */
  readonly #closed = closingController();
  #closing = false;
  readonly #policy: RunPolicy;
  /** Each run's rate-limit pause, shared by its episodes here (episode-actor/rate-limit-gate.ts). */
  readonly #rateLimitGates = new RateLimitGates();

  constructor(opts: EpisodeHostOptions) {
    this.#opts = opts;
    const sandboxes = opts.sandboxes ?? chooseSandboxes(opts.config);
    this.#policy = opts.policy ?? runPolicy(sandboxes, opts.config);
    this.#worlds = new EpisodeWorlds(opts.config, sandboxes);
    this.#logger = opts.logger.child({ component: 'episode-host' });
    this.#log = new EventLog(opts.adapters.store, opts.adapters.bus, { logger: this.#logger });
  }

  /** Episodes hosted now. */
  get active(): number {
    return this.#live.size;
  }

  /** Registers the episode work kinds (EPISODE_WORK) on the worker's gRPC service. */
  register(service: WorldWorkerService): void {
    service.register(EPISODE_WORK.run, (p) => this.run(p as EpisodeRunPayload));
    service.register(EPISODE_WORK.await, async (p) => this.#hosted((p as EpisodeTarget).episode_id).outcome);
    service.register(EPISODE_WORK.hosted, async (p) => ({
      hosted: ((p as { episode_ids?: string[] }).episode_ids ?? []).filter((id) => this.#live.has(id)),
    }));
    service.register(EPISODE_WORK.observe, async (p) => {
      const { episode_id, wait_ms } = p as EpisodeTarget & { wait_ms?: number };
      const actor = this.#actor(episode_id);
      // a held observation ends early when the host closes: it never holds a shutdown up
      return wait_ms
        ? actor.waitObservation(Math.min(wait_ms, MAX_OBSERVE_WAIT_MS), this.#closed.signal)
        : actor.observation();
    });
    service.register(EPISODE_WORK.action, async (p) => {
      const { episode_id, key } = p as EpisodeTarget & { key: string };
      return { action: this.#actor(episode_id).actionResult(key) };
    });
    const latency = this.#opts.metrics?.histogram(
      'crucible_worker_action_duration_seconds',
      'Time from an action reaching the worker to its acknowledgement (stored and answered)',
      ['outcome'],
    );
    service.register(EPISODE_WORK.act, async (p) => {
      const end = latency?.startTimer();
      try {
        const answer = await this.#actor((p as EpisodeActPayload).episode_id).submitAction(
          (p as EpisodeActPayload).action,
        );
        end?.({ outcome: 'ok' });
        return answer;
      } catch (err) {
        end?.({ outcome: 'refused' });
        throw err;
      }
    });
    service.register(EPISODE_WORK.intervene, async (p) =>
      this.#actor((p as EpisodeIntervenePayload).episode_id).intervene((p as EpisodeIntervenePayload).intervention),
    );
    service.register(EPISODE_WORK.stop, async (p) => ({ stopped: await this.stop((p as EpisodeTarget).episode_id) }));
  }

  /** Starts an episode (or joins the one already hosted) and resolves once it has ended. */
  run(p: EpisodeRunPayload): Promise<EpisodeOutcome> {
    const existing = this.#live.get(p.episode_id);
    if (existing) return existing.outcome;
    if (this.#closing) throw new ShuttingDownError(`world-worker ${this.#opts.workerId} is shutting down`, true);
    if (this.#live.size >= this.#opts.capacity) {
      throw new AtCapacityError(
        `world-worker ${this.#opts.workerId} already hosts ${this.#live.size} episodes, its capacity`,
      );
    }
    const hosted = { actor: null, stopRequested: false } as unknown as Hosted;
    this.#live.set(p.episode_id, hosted);
    // the worker's own check of the code, before anything of the episode starts
    const work = operatorSources(this.#opts.config)
      .then((sources) => assertMayRun(this.#policy, p.source, sources, this.#opts.workerId))
      .then(() => this.#host(p, hosted));
    hosted.finished = work.then(
      () => undefined,
      () => undefined,
    );
    void hosted.finished.then(() => this.#live.delete(p.episode_id));
    hosted.outcome = untilAborted(work, this.#closed.signal);
    return hosted.outcome;
  }

  /** Ends a hosted episode as cancelled (termination `stopped`); false when it is not hosted here. */
  async stop(episodeId: string): Promise<boolean> {
    const hosted = this.#live.get(episodeId);
    if (!hosted) return false;
    hosted.stopRequested = true;
    await hosted.actor?.stop();
    return true;
  }

  /**
   * Refuses new episodes, answers every waiting `episode.run` with `unavailable`
   * (a ShuttingDownError: the scheduler fails them over as lost and re-queues them
   * elsewhere), then stops the actors and their worlds.
   */
  async close(graceMs = 10_000): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    this.#closed.abort(new ShuttingDownError(`world-worker ${this.#opts.workerId} is shutting down`));
    const all = [...this.#live.values()];
    for (const h of all) {
      h.stopRequested = true;
      void h.actor?.stop().catch(() => undefined);
    }
    await Promise.race([
      Promise.allSettled(all.map((h) => h.finished)),
      new Promise((r) => setTimeout(r, graceMs).unref()),
    ]);
    await this.#worlds.stopAll();
  }

  async #host(p: EpisodeRunPayload, hosted: Hosted): Promise<EpisodeOutcome> {
    const sourceDir = await this.#worlds.source(p);
    const world = await this.#worlds.start(p, sourceDir);
    this.#opts.metrics
      ?.counter(
        'crucible_sandbox_starts_total',
        'Sandboxes (an episode world) started, by result (reused: a warm sandbox)',
        ['result'],
      )
      .inc({ result: 'error' in world ? 'failed' : world.warm ? 'reused' : 'started' });
    if ('error' in world) return this.#notStarted(p, 'failed', world.error);
    // anything but a clean end retires the sandbox instead of pooling it
    let clean = false;
    let gate: RateLimitGate | undefined;
    try {
      if (hosted.stopRequested) return this.#notStarted(p, 'cancelled', null);
      let policy;
      let customer;
      let judge;
      try {
        const deps = { config: this.#opts.config, store: this.#opts.adapters.store };
        policy = await policyFor(p.profile, p.project_id, deps);
        customer = await customerFor(p.world.manifest, p.project_id, deps, p.simulators);
        judge = await judgeFor(p.world.manifest, p.project_id, deps, p.simulators);
      } catch (err) {
        return this.#notStarted(
          p,
          'failed',
          `the agent's, the customer's or the judge's model could not be set up on world-worker ${this.#opts.workerId}: ${toServiceError(err).message}`,
        );
      }
      const actor = new EpisodeActor(
        { episodeId: p.episode_id, world: p.world, scenario: p.scenario, profile: p.profile, options: p.options },
        {
          app: world.app,
          persistence: new StoreEpisodePersistence(this.#opts.adapters.store),
          events: eventLogEmitter(this.#log, { stream: p.run_id, projectId: p.project_id, episodeId: p.episode_id }),
          policy,
          customer,
          judge,
          logger: this.#logger,
          rateLimitGate: (gate ??= this.#rateLimitGates.take(p.run_id)),
        },
      );
      hosted.actor = actor;
      const startedAt = nowIso();
      await actor.start();
      if (hosted.stopRequested) await actor.stop();
      const summary = await actor.done;
      const st = actor.snapshot();
      clean = summary.status === 'finished' && !st.environment_error;
      return {
        episode_id: p.episode_id,
        status: summary.status === 'running' ? 'failed' : summary.status,
        termination: summary.termination,
        reward: summary.reward,
        oracle: summary.oracle,
        cost_usd: summary.cost_usd,
        cost_breakdown: summary.cost_breakdown,
        tokens: summary.tokens,
        turns: st.actions.length,
        environment_error: st.environment_error,
        not_started: false,
        failed_at_start: st.failed_at_start === true,
        worker_id: this.#opts.workerId,
        started_at: startedAt,
        ended_at: st.ended_at ?? nowIso(),
      };
    } finally {
      if (gate) this.#rateLimitGates.release(p.run_id);
      await world
        .stop(!clean)
        .catch((err: unknown) =>
          this.#logger.warn({ err, episode: p.episode_id }, 'the episode world did not stop cleanly'),
        );
    }
  }

  #notStarted(p: EpisodeRunPayload, status: 'failed' | 'cancelled', error: string | null): EpisodeOutcome {
    return {
      episode_id: p.episode_id,
      status,
      termination: status === 'cancelled' ? 'stopped' : 'environment_error',
      reward: null,
      oracle: null,
      cost_usd: 0,
      cost_breakdown: { agent: 0, customer: 0, judges: 0 },
      tokens: { prompt: 0, completion: 0, total: 0 },
      turns: 0,
      environment_error: error,
      not_started: true,
      worker_id: this.#opts.workerId,
      started_at: null,
      ended_at: nowIso(),
    };
  }

  #hosted(episodeId: string): Hosted {
    const hosted = this.#live.get(episodeId);
    if (!hosted) throw new NotHostedError(`episode ${episodeId} is not hosted on world-worker ${this.#opts.workerId}`);
    return hosted;
  }

  #actor(episodeId: string): EpisodeActor {
    const actor = this.#hosted(episodeId).actor;
    if (!actor)
      throw new NotHostedError(`episode ${episodeId} is still starting on world-worker ${this.#opts.workerId}`, true);
    return actor;
  }
}
