import {
  peerChannelOptions,
  schedulerProto,
  splitTargets,
  unary,
  type ControlPlane,
  type Logger,
} from '../core/index.js';
import type { RegisterWorkerResponse__Output, SchedulerClient, WorkerInfo } from '../proto/index.js';

/**
 * A world-worker's tie to the schedulers of the installation (SCHEDULER_ADDR: one address,
 * a comma-separated list, or one name resolving to several). The registry lives in the
 * shared LeaseStore, so any scheduler that hears from the worker keeps it live for all of
 * them: registration goes to the first that answers, and every heartbeat goes to each
 * target at once, so the death of any one scheduler never makes the worker count as lost.
 */
export class SchedulerLink {
  readonly #targets: string[];
  readonly #clients: SchedulerClient[];
  readonly #info: () => WorkerInfo;
  readonly #logger: Logger;
  #timer: NodeJS.Timeout | null = null;

  constructor(addr: string, info: () => WorkerInfo, logger: Logger, controlPlane: ControlPlane) {
    this.#targets = splitTargets(addr);
    if (this.#targets.length === 0) throw new Error('SCHEDULER_ADDR names no scheduler');
    const Scheduler = schedulerProto().crucible.v1.Scheduler;
    const credentials = controlPlane.channelCredentials('scheduler');
    const options = controlPlane.channelOptions('scheduler', peerChannelOptions);
    this.#clients = this.#targets.map((t) => new Scheduler(t, credentials, options));
    this.#info = info;
    this.#logger = logger;
  }

  get targets(): readonly string[] {
    return this.#targets;
  }

  /**
   * Registers with the first scheduler that answers, asking each in turn, `attempts` rounds
   * in all (the schedulers may start after their workers: compose, systemd); then heartbeats
   * every target at the interval the scheduler asked for.
   */
  async register(attempts: number): Promise<void> {
    let first: RegisterWorkerResponse__Output | null = null;
    for (let round = 1; !first; round++) {
      let last: unknown;
      for (const c of this.#clients) {
        try {
          first = await unary<WorkerInfo, RegisterWorkerResponse__Output>(c.RegisterWorker, c, this.#info(), 10_000);
          break;
        } catch (err) {
          last = err;
        }
      }
      if (first) break;
      if (round >= attempts) throw last;
      this.#logger.warn({ err: last, attempt: round }, 'no scheduler reachable yet; retrying registration');
      await new Promise((r) => setTimeout(r, Math.min(5_000, 200 * round)));
    }
    const interval = Number(first.heartbeat_interval_ms) || 2_000;
    this.#timer = setInterval(() => void this.#beat(interval), interval);
    this.#timer.unref();
  }

  async #beat(interval: number): Promise<void> {
    const info = this.#info();
    const results = await Promise.allSettled(
      this.#clients.map((c) => unary<WorkerInfo, RegisterWorkerResponse__Output>(c.Heartbeat, c, info, interval)),
    );
    const failed = results.filter((r) => r.status === 'rejected');
    if (failed.length === results.length)
      this.#logger.warn({ err: (failed[0] as PromiseRejectedResult).reason }, 'heartbeat reached no scheduler');
    else if (failed.length > 0) this.#logger.debug({ failed: failed.length }, 'heartbeat missed some schedulers');
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    for (const c of this.#clients) c.close();
  }
}
