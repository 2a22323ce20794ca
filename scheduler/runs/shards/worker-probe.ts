/** How long a worker that failed both pings is taken as silent without asking again. */
const SILENT_REUSE_MS = 3_000;
/** Deadline of one ping. */
const PING_MS = 1_000;
/** Pause between the two pings. */
const PING_AGAIN_MS = 500;

/**
 * Whether a world-worker whose episode call broke still answers (shard-driver.ts: one that
 * does is asked again about the episode, one that does not has lost it). A worker is asked
 * twice, half a second apart, before it is given up on; one found silent is not asked again
 * for a few seconds, so the other episodes of a dead worker fail over at once instead of a
 * second and a half each.
 */
export class WorkerProbe {
  readonly #ping: (address: string, timeoutMs: number) => Promise<unknown>;
  readonly #sleep: (ms: number) => Promise<void>;
  /** Worker addresses that last failed both pings, and when. */
  readonly #silentAt = new Map<string, number>();

  constructor(ping: (address: string, timeoutMs: number) => Promise<unknown>, sleep: (ms: number) => Promise<void>) {
    this.#ping = ping;
    this.#sleep = sleep;
  }

  async reachable(address: string): Promise<boolean> {
    if (!address) return false;
    if (Date.now() - (this.#silentAt.get(address) ?? 0) < SILENT_REUSE_MS) return false;
    for (let i = 0; i < 2; i++) {
      if (i > 0) await this.#sleep(PING_AGAIN_MS);
      try {
        await this.#ping(address, PING_MS);
        this.#silentAt.delete(address);
        return true;
      } catch {
        // not answering (yet)
      }
    }
    this.#silentAt.set(address, Date.now());
    return false;
  }
}
