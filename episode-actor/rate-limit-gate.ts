/**
 * When the episodes of one run may ask their model again. A provider that answers 429 to one
 * episode will answer the run's other episodes the same (they share its profile's credential
 * and quota), so the pause one episode takes is the run's: the others on this worker hold their
 * next model call until it is over, instead of each meeting the limit, burning its retries and
 * pausing on its own (docs/scoring.md, "The rule"). Only the episode that met the limit counts
 * the pause against its patience and announces it (`agent.rate_limited`); an episode that
 * waited for another's pause spends none of its own.
 *
 * One gate per run per world-worker process: each worker meets its own 429s (a provider's
 * limit is seen by whoever calls it), so nothing is shared across hosts.
 */
export class RateLimitGate {
  #until = 0;

  /** The run's model calls wait until `untilMs` (the later of this and an earlier pause). */
  pause(untilMs: number): void {
    this.#until = Math.max(this.#until, untilMs);
  }

  /** How long a model call asked at `nowMs` must still wait (0: none). */
  left(nowMs: number): number {
    return Math.max(0, this.#until - nowMs);
  }
}

/** The gates of the runs whose episodes a world-worker hosts, made on first use. */
export class RateLimitGates {
  readonly #gates = new Map<string, { gate: RateLimitGate; episodes: number }>();

  /** The run's gate, held by one more episode until `release`. */
  take(runId: string): RateLimitGate {
    const held = this.#gates.get(runId) ?? { gate: new RateLimitGate(), episodes: 0 };
    held.episodes++;
    this.#gates.set(runId, held);
    return held.gate;
  }

  /** An episode of the run ended: the gate goes with the run's last episode here. */
  release(runId: string): void {
    const held = this.#gates.get(runId);
    if (!held) return;
    if (--held.episodes <= 0) this.#gates.delete(runId);
  }

  /** Runs with a gate now (for tests). */
  get size(): number {
    return this.#gates.size;
  }
}
