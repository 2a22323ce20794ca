import type { Logger } from '../../../core/index.js';
import { EPISODE_WORK, type EpisodeOutcome } from '../../../world-worker/index.js';
import type { WorkerRegistry } from '../../workers.js';
import type { RunWorld } from './run-world.js';
import type { RunEpisodeDoc } from '../types.js';

/** Deadline of one `episode.run` call: longer than any episode; a call that reaches it re-attaches. */
const EPISODE_CALL_MS = 7 * 24 * 3600_000;
/** A stop not answered by the episode's end within this long is asked again. */
const STOP_AGAIN_MS = 10_000;

/** One attempt a shard driver waits for: the worker it runs on and the call that waits for its end. */
export interface InFlight {
  ep: RunEpisodeDoc;
  workerId: string;
  address: string;
  /** EPISODE_WORK.run (a start) or EPISODE_WORK.await (a re-attach). */
  kind?: string;
}

/** A call that answered (`outcome`) or failed (`error`), waiting to be handled. */
export type Settled = { ep: RunEpisodeDoc; flight: InFlight; outcome?: EpisodeOutcome; error?: unknown };

/**
 * The episode calls of one shard driver (shard-driver.ts) to world-workers: one long call per
 * running attempt (`episode.run` for a start, `episode.await` to re-attach), answered when
 * the episode ends and failing at once when its worker dies. Calls settle in the background;
 * the driver takes what settled one at a time (`next`), so its writes to the store never
 * interleave. A flight that is forgotten or replaced settles into nothing.
 */
export class EpisodeCalls {
  readonly #workers: WorkerRegistry;
  readonly #world: Pick<RunWorld, 'payload'>;
  /** Attempts whose worker lacked the source: their next `episode.run` sends the archive. */
  readonly #withArchive = new Set<string>();
  readonly #logger: Logger;
  readonly #inflight = new Map<string, InFlight>();
  readonly #settled: Settled[] = [];
  /** When each episode's worker was last asked to stop it. */
  readonly #stopsAsked = new Map<string, number>();
  #wake: () => void = () => undefined;

  /** `world`: builds what an `episode.run` call sends, when the call starts. */
  constructor(workers: WorkerRegistry, world: Pick<RunWorld, 'payload'>, logger: Logger) {
    this.#workers = workers;
    this.#world = world;
    this.#logger = logger;
  }

  /** The worker lacked the attempt's source: its next start sends the archive along. */
  sendArchive(episodeId: string): void {
    this.#withArchive.add(episodeId);
  }

  /** Attempts waited for. */
  get running(): number {
    return this.#inflight.size;
  }

  /** Calls settled and not yet taken by `next`. */
  get unsettled(): number {
    return this.#settled.length;
  }

  /** Nothing waited for and nothing settled left to take. */
  get empty(): boolean {
    return this.#inflight.size === 0 && this.#settled.length === 0;
  }

  /** Episodes whose worker was asked to stop them (`askStops`). */
  get stopsAsked(): number {
    return this.#stopsAsked.size;
  }

  /** The flights waited for. */
  flights(): IterableIterator<InFlight> {
    return this.#inflight.values();
  }

  /**
   * Calls `flight.kind` (EPISODE_WORK.run: starts the episode; otherwise EPISODE_WORK.await:
   * re-attaches to it) on the flight's worker after `delayMs`; what it answers settles later.
   */
  start(flight: InFlight, delayMs = 0): void {
    const { ep, address } = flight;
    this.#inflight.set(ep._id, flight);
    const run = async (): Promise<EpisodeOutcome> => {
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs).unref());
      return flight.kind === EPISODE_WORK.run
        ? this.#workers.execute(
            address,
            EPISODE_WORK.run,
            await this.#world.payload(ep, this.#withArchive.has(ep._id)),
            EPISODE_CALL_MS,
          )
        : this.#workers.execute(address, 'episode.await', { episode_id: ep._id }, EPISODE_CALL_MS);
    };
    run().then(
      (outcome) => this.#settle({ ep: flight.ep, flight, outcome }),
      (error: unknown) => this.#settle({ ep: flight.ep, flight, error }),
    );
  }

  /**
   * Asks the worker of each episode waited for to stop it, unless asked within
   * STOP_AGAIN_MS: a stop is asked again until the episode ended (there is no deadline).
   */
  askStops(): void {
    for (const f of this.#inflight.values()) {
      if (Date.now() - (this.#stopsAsked.get(f.ep._id) ?? -Infinity) < STOP_AGAIN_MS) continue;
      this.#stopsAsked.set(f.ep._id, Date.now());
      this.#workers
        .execute(f.address, EPISODE_WORK.stop, { episode_id: f.ep._id }, 10_000)
        .catch((err: unknown) =>
          this.#logger.warn({ err, episode: f.ep._id }, 'asking a worker to stop an episode failed'),
        );
    }
  }

  /** Stops waiting for an attempt (given up on): its call settles into nothing. */
  forget(episodeId: string): void {
    this.#inflight.delete(episodeId);
  }

  /** The next settled call of a flight still waited for (no longer waited for from now on), if any. */
  next(): Settled | undefined {
    while (this.#settled.length > 0) {
      const s = this.#settled.shift()!;
      if (this.#inflight.get(s.ep._id) !== s.flight) continue;
      this.#inflight.delete(s.ep._id);
      return s;
    }
    return undefined;
  }

  /** Resolves when `sleep` does or a call settles, at once when one has settled already. */
  idle(sleep: () => Promise<void>): Promise<void> {
    if (this.#settled.length > 0) return Promise.resolve();
    return Promise.race([sleep(), new Promise<void>((resolve) => (this.#wake = resolve))]);
  }

  #settle(s: Settled): void {
    // an attempt already given up on (its worker was found lost) settles into nothing
    if (this.#inflight.get(s.ep._id) !== s.flight) return;
    this.#settled.push(s);
    this.#wake();
  }
}
