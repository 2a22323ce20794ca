import type { Logger } from '../core/index.js';
import type { ControlPlane, LeaseStore } from '../core/index.js';
import type { WorkerInfo } from '../proto/index.js';
import { ServiceError } from '../core/index.js';
import { WorldWorkerClients, type WorkAnswer, type WorkKind, type WorkPayload } from '../world-worker/index.js';

const REGISTRY_KEY = 'crucible:workers';
/** Workers an operator drains (`crucible admin workers drain`): id -> when, kept apart from heartbeats. */
const DRAINING_KEY = 'crucible:workers:draining';
export const HEARTBEAT_INTERVAL_MS = 2_000;
/** A worker silent for this long is treated as gone. */
export const WORKER_LOST_AFTER_MS = 3 * HEARTBEAT_INTERVAL_MS;

export interface WorkerRecord {
  id: string;
  address: string;
  capacity: number;
  active: number;
  last_seen_ms: number;
  /** Changes whenever the worker process starts again (at the same address or not). */
  incarnation: string;
  /** Placement passes the worker over; its running episodes finish (`crucible admin workers drain`). */
  draining?: boolean;
}

export interface WorkerStatus extends WorkerRecord {
  status: 'up' | 'unreachable' | 'lost';
}

/**
 * The world-workers of the installation, kept in the LeaseStore so every scheduler sees
 * the same set. Workers register and heartbeat; the scheduler calls them over gRPC.
 */
export class WorkerRegistry {
  readonly #leases: LeaseStore;
  readonly #logger: Logger;
  /** The gRPC clients of the workers; their calls are typed by the world-worker's WorkKinds. */
  readonly clients: WorldWorkerClients;

  /** `controlPlane`: the scheduler's credentials for calling workers (insecure when not given). */
  constructor(leases: LeaseStore, logger: Logger, controlPlane?: ControlPlane) {
    this.#leases = leases;
    this.#logger = logger;
    this.clients = new WorldWorkerClients({ controlPlane });
  }

  async upsert(info: WorkerInfo): Promise<void> {
    if (!info.id || !info.address) throw new ServiceError('bad_request', 'a worker needs an id and an address');
    const record: WorkerRecord = {
      id: info.id,
      address: info.address,
      capacity: info.capacity ?? 0,
      active: info.active ?? 0,
      last_seen_ms: Date.now(),
      incarnation: info.incarnation ?? '',
    };
    await this.#leases.hset(REGISTRY_KEY, info.id, JSON.stringify(record));
  }

  async remove(id: string): Promise<void> {
    await this.#leases.hdel(REGISTRY_KEY, id);
  }

  /** Registered workers, including ones whose heartbeat stopped (status `lost`). */
  async list(): Promise<WorkerRecord[]> {
    const [all, draining] = await Promise.all([this.#leases.hgetall(REGISTRY_KEY), this.#leases.hgetall(DRAINING_KEY)]);
    const records = Object.values(all)
      .map((v) => JSON.parse(v) as WorkerRecord)
      .map((w) => ({ ...w, draining: w.id in draining }))
      .sort((a, b) => a.id.localeCompare(b.id));
    // a worker restarted at an address gets a fresh connection (see WorldWorkerClients.registered)
    for (const w of records) this.clients.registered(w.address, w.incarnation ?? '');
    return records;
  }

  /**
   * Marks a worker draining (or no longer): every scheduler's placement passes it over
   * while its running episodes go on to their end. Kept until undrained, also across the
   * worker's restarts, so a drained machine can be restarted or removed at leisure.
   */
  async setDraining(id: string, draining: boolean): Promise<void> {
    if (draining) await this.#leases.hset(DRAINING_KEY, id, new Date().toISOString());
    else await this.#leases.hdel(DRAINING_KEY, id);
  }

  /** Silence after which a worker counts as lost. */
  get lostAfterMs(): number {
    return WORKER_LOST_AFTER_MS;
  }

  /** Workers whose heartbeat is current. */
  async live(): Promise<WorkerRecord[]> {
    const now = Date.now();
    return (await this.list()).filter((w) => now - w.last_seen_ms <= WORKER_LOST_AFTER_MS);
  }

  /** Pings every registered worker live; this is what /v1/health reports. */
  async probe(timeoutMs = 2_000): Promise<WorkerStatus[]> {
    const now = Date.now();
    return Promise.all(
      (await this.list()).map(async (w): Promise<WorkerStatus> => {
        if (now - w.last_seen_ms > WORKER_LOST_AFTER_MS) return { ...w, status: 'lost' };
        try {
          const pong = await this.clients.ping(w.address, timeoutMs);
          return { ...w, capacity: pong.capacity, active: pong.active, status: 'up' };
        } catch (err) {
          this.#logger.warn({ worker: w.id, err }, 'worker did not answer ping');
          return { ...w, status: 'unreachable' };
        }
      }),
    );
  }

  /** Runs one unit of work on a worker. */
  execute<K extends WorkKind>(
    address: string,
    kind: K,
    payload: WorkPayload<K>,
    timeoutMs = 600_000,
  ): Promise<WorkAnswer<K>> {
    return this.clients.execute(address, kind, payload, timeoutMs);
  }

  close(): void {
    this.clients.close();
  }
}
