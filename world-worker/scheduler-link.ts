import { ServiceError, connectSchedulers, splitTargets, unary, type ControlPlane, type Logger } from '../core/index.js';
import type { RegisterWorkerResponse__Output, SchedulerClient, WorkerInfo } from '../proto/index.js';

const isConflict = (err: unknown): boolean => err instanceof ServiceError && err.code === 'conflict';

/**
 * A world-worker's tie to the schedulers of the installation (SCHEDULER_ADDR: one address,
 * a comma-separated list, or one name resolving to several). The registry lives in the
 * shared LeaseStore, so any scheduler that hears from the worker keeps it live for all of
 * them: registration goes to the first that answers, and every heartbeat goes to each
 * target at once, so the death of any one scheduler never makes the worker count as lost.
 */
export class SchedulerLink {
  readonly #targets: string[];
  #clients: SchedulerClient[];
  readonly #info: () => WorkerInfo;
  readonly #logger: Logger;
  readonly #stopWatching: () => void;
  #timer: NodeJS.Timeout | null = null;
  /** The heartbeat under way, awaited before deregistering so it cannot land after. */
  #beating: Promise<void> = Promise.resolve();

  constructor(addr: string, info: () => WorkerInfo, logger: Logger, controlPlane: ControlPlane) {
    this.#targets = splitTargets(addr);
    if (this.#targets.length === 0) throw new Error('SCHEDULER_ADDR names no scheduler');
    this.#clients = connectSchedulers(addr, controlPlane);
    this.#info = info;
    this.#logger = logger;
    // a changed revocation list: new connections, whose handshakes refuse a revoked scheduler
    this.#stopWatching = controlPlane.onRevocationsChange(() => {
      const old = this.#clients;
      this.#clients = connectSchedulers(addr, controlPlane);
      for (const c of old) c.close();
    });
  }

  get targets(): readonly string[] {
    return this.#targets;
  }

  /**
   * Registers with the first scheduler that answers, asking each in turn, `attempts` rounds
   * in all (the schedulers may start after their workers: compose, systemd); then heartbeats
   * every target at the interval the scheduler asked for. While another process is live
   * under this worker's id (`conflict`: a copy of this worker, or its own previous
   * incarnation after a crash, until it is declared lost) it is logged and retried the same
   * way; after the last round the refusal is thrown.
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
          // the registry is shared: every scheduler would refuse a live id alike
          if (isConflict(err)) break;
        }
      }
      if (first) break;
      if (round >= attempts) throw last;
      if (isConflict(last))
        this.#logger.error(
          { reason: (last as Error).message, attempt: round },
          'another process is live with this WORKER_ID; waiting until it deregisters or is declared lost',
        );
      else this.#logger.warn({ err: last, attempt: round }, 'no scheduler reachable yet; retrying registration');
      await new Promise((r) => setTimeout(r, Math.min(5_000, 200 * round)));
    }
    const interval = Number(first.heartbeat_interval_ms) || 2_000;
    this.#timer = setInterval(() => {
      this.#beating = this.#beat(interval);
    }, interval);
    this.#timer.unref();
  }

  async #beat(interval: number): Promise<void> {
    const info = this.#info();
    const results = await Promise.allSettled(
      this.#clients.map((c) => unary<WorkerInfo, RegisterWorkerResponse__Output>(c.Heartbeat, c, info, interval)),
    );
    const failed = results.filter((r) => r.status === 'rejected');
    const superseded = failed.find((r) => isConflict(r.reason));
    if (superseded)
      this.#logger.error(
        { reason: (superseded.reason as Error).message },
        'another process took over this worker id (this one was declared lost): its heartbeats are refused',
      );
    else if (failed.length === results.length)
      this.#logger.warn({ err: (failed[0] as PromiseRejectedResult).reason }, 'heartbeat reached no scheduler');
    else if (failed.length > 0) this.#logger.debug({ failed: failed.length }, 'heartbeat missed some schedulers');
  }

  /**
   * Gives the worker's id up at the schedulers (after its sandboxes stopped), so its next
   * process registers at once; best effort: otherwise the id frees when this one counts as lost.
   */
  async deregister(): Promise<void> {
    this.stopHeartbeats();
    await this.#beating;
    const info = this.#info();
    const results = await Promise.allSettled(
      this.#clients.map((c) => unary<WorkerInfo, RegisterWorkerResponse__Output>(c.DeregisterWorker, c, info, 2_000)),
    );
    if (results.every((r) => r.status === 'rejected'))
      this.#logger.warn(
        { err: (results[0] as PromiseRejectedResult | undefined)?.reason },
        'could not deregister; a process with this id registers once this one is declared lost',
      );
  }

  /** No more heartbeats: the schedulers count this worker lost once the last one lapses. */
  stopHeartbeats(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  close(): void {
    this.stopHeartbeats();
    this.#stopWatching();
    for (const c of this.#clients) c.close();
  }
}
