import type { WorldWorkerClients } from '../../../world-worker/index.js';
import type { PhaseContext } from '../../jobs/index.js';

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
  readonly #clients: Pick<WorldWorkerClients, 'ping'>;
  readonly #job: Pick<PhaseContext, 'sleep'>;
  /** Worker addresses that last failed both pings, and when. */
  readonly #silentAt = new Map<string, number>();

  /** `job`: the shard's phase, whose sleep a command or the engine closing cuts short. */
  constructor(clients: Pick<WorldWorkerClients, 'ping'>, job: Pick<PhaseContext, 'sleep'>) {
    this.#clients = clients;
    this.#job = job;
  }

  async reachable(address: string): Promise<boolean> {
    if (!address) return false;
    if (Date.now() - (this.#silentAt.get(address) ?? 0) < SILENT_REUSE_MS) return false;
    for (let i = 0; i < 2; i++) {
      if (i > 0) await this.#job.sleep(PING_AGAIN_MS);
      try {
        await this.#clients.ping(address, PING_MS);
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
