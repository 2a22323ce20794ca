import type { SourceTrust } from '../../../world-worker/index.js';
import { mayTake } from '../../code-trust.js';
import { WORKER_LOST_AFTER_MS, type WorkerRecord, type WorkerRegistry } from '../../workers.js';

/** How long a worker that refused an episode for capacity is passed over. */
const FULL_BACKOFF_MS = 1_000;
/** How long a read of the live workers is reused by one scheduler. */
const LIVE_CACHE_MS = 250;

interface PlacementState {
  /** Episodes this scheduler placed on each worker that are still running there. */
  placed: Map<string, number>;
  /** Workers that refused for capacity, until when to pass them over. */
  fullUntil: Map<string, number>;
  /** Workers that answered they are shutting down, and until when that is news. */
  leavingUntil: Map<string, number>;
  /** Workers a call found unreachable, and when: passed over until they are heard from again. */
  downAt: Map<string, number>;
  live: { at: number; workers: Promise<WorkerRecord[]> } | null;
  /** Shards waiting for a place, oldest first: a freed place wakes one (waitForPlace). */
  waiting: Set<() => void>;
  /** While shards wait: one read of the live workers per LIVE_CACHE_MS for the whole scheduler. */
  watch: NodeJS.Timeout | null;
}

/**
 * Chooses world-workers for episodes, for every shard of one scheduler. A worker's free
 * capacity is its capacity minus the larger of what its last heartbeat reported active
 * and what this scheduler placed on it since (a heartbeat is up to two seconds old).
 * The worker itself refuses a start beyond its capacity, so several schedulers placing
 * at once can only cause a retry elsewhere, never an overfull worker.
 */
export class Placement {
  readonly #workers: Pick<WorkerRegistry, 'live'>;
  readonly #state: PlacementState = {
    placed: new Map(),
    fullUntil: new Map(),
    leavingUntil: new Map(),
    downAt: new Map(),
    live: null,
    waiting: new Set(),
    watch: null,
  };

  /** One per scheduler (`SchedulerDeps.placement`): its shards share what it placed and learned. */
  constructor(workers: Pick<WorkerRegistry, 'live'>) {
    this.#workers = workers;
  }

  /** Live workers (heartbeat current), read at most every LIVE_CACHE_MS. */
  live(): Promise<WorkerRecord[]> {
    const s = this.#state;
    if (!s.live || Date.now() - s.live.at > LIVE_CACHE_MS) {
      const workers = this.#workers.live();
      s.live = { at: Date.now(), workers };
      // a heartbeat may show places freed that no release of ours announced (an episode ended
      // after the last heartbeat counted it, a worker joined): wake as many waiters as there are
      workers.then((ws) => this.#wakeForFree(ws)).catch(() => (s.live = null));
    }
    return s.live.workers;
  }

  /**
   * The live worker with the most free capacity that may be given code of `trust` (tenant
   * code only to a worker whose sandboxes isolate it, code-trust.ts), with one place on it
   * reserved; `full` when every such worker is full, `none` when no such worker is live.
   */
  async reserve(trust: SourceTrust = 'tenant'): Promise<WorkerRecord | 'full' | 'none'> {
    const now = Date.now();
    let best: WorkerRecord | null = null;
    let bestFree = 0;
    const live = (await this.live()).filter((w) => mayTake(w, trust));
    if (live.length === 0) return 'none';
    for (const w of live) {
      if (this.#passedOver(w, now)) continue;
      const free = this.#free(w);
      if (free > bestFree) {
        best = w;
        bestFree = free;
      }
    }
    if (!best) return 'full';
    this.#state.placed.set(best.id, (this.#state.placed.get(best.id) ?? 0) + 1);
    return best;
  }

  /** Places on the live workers that may be chosen now for code of `trust`, taken or free: how many episodes could run at once. */
  async capacity(trust: SourceTrust = 'tenant'): Promise<number> {
    const now = Date.now();
    let places = 0;
    for (const w of await this.live()) {
      if (!mayTake(w, trust) || this.isLeaving(w.id) || this.#isDown(w, now) || w.draining) continue;
      places += w.capacity;
    }
    return places;
  }

  /** Gives a place back once its episode ended there (or never started), and wakes a shard waiting for one. */
  release(workerId: string): void {
    this.unreserve(workerId);
    this.#wakeOne();
  }

  /**
   * Gives back a place reserved and then not used (the budget had nothing to reserve, or the
   * attempt was taken meanwhile). Nothing changed for the waiting shards, so none is woken:
   * a shard woken only to give the place back unused would wake the next, and so on.
   */
  unreserve(workerId: string): void {
    const n = (this.#state.placed.get(workerId) ?? 1) - 1;
    if (n <= 0) this.#state.placed.delete(workerId);
    else this.#state.placed.set(workerId, n);
  }

  /**
   * Resolves when a place this scheduler held is given back, or after `ms` at the latest,
   * or when `until` aborts (the shard was asked to stop or pause): then it no longer waits,
   * and a place freed later goes to the next waiter.
   * A shard whose queued episodes found no place waits here instead of polling every tick:
   * a run of 10,000 episodes has 400 shards, and polling made every episode of a larger run
   * cost more. Waiters are woken one per freed place, oldest first; the timeout covers what
   * no release announces (a new worker, places freed through another scheduler).
   */
  waitForPlace(ms: number, until?: AbortSignal): Promise<void> {
    if (until?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const waiting = this.#state.waiting;
      const wake = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        until?.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timer.unref();
      waiting.add(wake);
      until?.addEventListener('abort', wake, { once: true });
      this.#watch();
    });
  }

  /** How many shards of this scheduler wait for a place now. */
  get waiting(): number {
    return this.#state.waiting.size;
  }

  /**
   * While any shard waits, reads the live workers every LIVE_CACHE_MS (one read for the whole
   * scheduler, however many shards wait): a heartbeat showing places free wakes that many
   * waiters. Without it, when every running episode ended at once nothing was left to read a
   * heartbeat, and the places stayed empty until the waits timed out.
   */
  #watch(): void {
    const s = this.#state;
    if (s.watch) return;
    s.watch = setInterval(() => {
      if (s.waiting.size === 0) {
        clearInterval(s.watch!);
        s.watch = null;
        return;
      }
      void this.live().catch(() => undefined);
    }, LIVE_CACHE_MS);
    s.watch.unref();
  }

  /** Whether the worker may not be chosen now: it refused for capacity lately, is leaving, down or draining. */
  #passedOver(w: WorkerRecord, now: number): boolean {
    return (
      (this.#state.fullUntil.get(w.id) ?? 0) > now ||
      this.isLeaving(w.id) ||
      this.#isDown(w, now) ||
      w.draining === true
    );
  }

  /** Places free on the worker: its capacity less the larger of its heartbeat's active count and our placements. */
  #free(w: WorkerRecord): number {
    return w.capacity - Math.max(w.active, this.#state.placed.get(w.id) ?? 0);
  }

  #wakeForFree(workers: WorkerRecord[]): void {
    if (this.#state.waiting.size === 0) return;
    const now = Date.now();
    let free = 0;
    for (const w of workers) {
      if (this.#passedOver(w, now)) continue;
      free += Math.max(0, this.#free(w));
    }
    for (; free > 0 && this.#state.waiting.size > 0; free--) this.#wakeOne();
  }

  #wakeOne(): void {
    const first = this.#state.waiting.values().next();
    if (!first.done) first.value();
  }

  /** The worker refused for capacity: pass it over for a moment. */
  full(workerId: string): void {
    this.#state.fullUntil.set(workerId, Date.now() + FULL_BACKOFF_MS);
  }

  /** The worker is shutting down: pass it over until its heartbeat would have lapsed. */
  leaving(workerId: string): void {
    this.#state.leavingUntil.set(workerId, Date.now() + WORKER_LOST_AFTER_MS);
  }

  /**
   * A call to the worker failed because it could not be reached (its connection dropped or
   * was refused): it is passed over at once, without waiting for its heartbeat to lapse,
   * until a heartbeat after this moment shows it alive (or a new process registered at its
   * address: a restart is usable as soon as it registers).
   */
  down(workerId: string): void {
    this.#state.downAt.set(workerId, Date.now());
  }

  /** The worker answered again: it may be chosen. */
  up(workerId: string): void {
    this.#state.downAt.delete(workerId);
    this.#wakeOne();
  }

  #isDown(w: WorkerRecord, now: number): boolean {
    const at = this.#state.downAt.get(w.id);
    if (at === undefined) return false;
    if (w.last_seen_ms > at || now - at > WORKER_LOST_AFTER_MS) {
      this.#state.downAt.delete(w.id);
      return false;
    }
    return true;
  }

  /**
   * Whether the worker said it is shutting down (lately): a call to it that then finds it
   * gone was cut by that shutdown, not by a crash.
   */
  isLeaving(workerId: string): boolean {
    const until = this.#state.leavingUntil.get(workerId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.#state.leavingUntil.delete(workerId);
    return false;
  }
}
