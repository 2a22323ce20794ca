import type { Logger } from '../core/index.js';
import type { ControlPlane, LeaseStore } from '../core/index.js';
import type { WorkerInfo } from '../proto/index.js';
import { ServiceError } from '../core/index.js';
import { WorldWorkerClients, type WorkAnswer, type WorkKind, type WorkPayload } from '../world-worker/index.js';

const REGISTRY_KEY = 'crucible:workers';
/** Workers an operator drains (`crucible admin workers drain`): id -> when, kept apart from heartbeats. */
const DRAINING_KEY = 'crucible:workers:draining';
/** Per worker id, the incarnation that holds the id (a lease that lapses with its heartbeats). */
const ID_LEASE_PREFIX = 'crucible:workers:id:';
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
  /** Its sandbox driver as it reported it (`process`, `docker`; empty from a worker of an older release). */
  sandbox: string;
  /** The isolation promises its driver keeps (world-worker/sandboxes/isolation.ts). */
  isolates: string[];
  /** Whether it may be given tenant code (its driver isolates it, or its operator trusts every tenant). */
  runs_tenant_code: boolean;
}

export interface WorkerStatus extends WorkerRecord {
  status: 'up' | 'unreachable' | 'lost';
}

/** Who holds a worker id: its incarnation (a worker of an older release sends none: its address). */
const holderOf = (info: WorkerInfo): string => info.incarnation || `address:${info.address ?? ''}`;

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

  /**
   * Gives worker `info.id` to the process registering or heartbeating (its incarnation), or
   * refuses it (`conflict`, naming the live incarnation's address and when it was last
   * seen) while another incarnation holds the id: two processes started with one WORKER_ID
   * would otherwise flip the registry between their addresses and reap each other's
   * sandboxes. The hold is a lease renewed by each heartbeat and lapsing when the worker
   * counts as lost ({@link WORKER_LOST_AFTER_MS}), or given up by {@link deregister}; a
   * worker restarted after a crash therefore registers once its predecessor is lost.
   */
  async claim(info: WorkerInfo): Promise<void> {
    if (!info.id) throw new ServiceError('bad_request', 'a worker needs an id and an address');
    const key = ID_LEASE_PREFIX + info.id;
    const owner = holderOf(info);
    if (await this.#leases.renew(key, owner, WORKER_LOST_AFTER_MS)) return;
    if (await this.#leases.acquire(key, owner, WORKER_LOST_AFTER_MS)) return;
    const live = (await this.#leases.hgetall(REGISTRY_KEY))[info.id];
    const rec = live ? (JSON.parse(live) as WorkerRecord) : null;
    const seen = rec ? new Date(rec.last_seen_ms).toISOString() : 'just now';
    const retryAfterMs = rec ? Math.max(0, rec.last_seen_ms + WORKER_LOST_AFTER_MS - Date.now()) : WORKER_LOST_AFTER_MS;
    this.#logger.warn(
      { worker: info.id, refused: info.address, live: rec?.address, liveIncarnation: rec?.incarnation },
      'refused a second process registering as a live world-worker id',
    );
    throw new ServiceError(
      'conflict',
      `world-worker ${info.id} is already live at ${rec?.address ?? '(registering)'} ` +
        `(incarnation ${rec?.incarnation || '?'}, last seen ${seen}); this process at ${info.address} is refused ` +
        `until that one deregisters or is declared lost (${WORKER_LOST_AFTER_MS / 1000} s without a heartbeat): ` +
        'give each worker its own WORKER_ID',
      {
        details: {
          worker_id: info.id,
          live_address: rec?.address ?? null,
          last_seen: seen,
          retry_after_ms: retryAfterMs,
        },
      },
    );
  }

  /**
   * The worker process shut down (its sandboxes stopped): its id is free at once for the
   * next process, which otherwise waits until this one is declared lost. Its record stays
   * until then or until the next incarnation registers over it. Answers whether this
   * incarnation held the id.
   */
  async deregister(info: WorkerInfo): Promise<boolean> {
    if (!info.id) return false;
    return this.#leases.release(ID_LEASE_PREFIX + info.id, holderOf(info));
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
      sandbox: info.sandbox ?? '',
      isolates: info.isolates ?? [],
      runs_tenant_code: info.runs_tenant_code === true,
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
      // a record of an older release says nothing of its sandbox: it is given operator code only
      .map((w) => ({
        ...w,
        sandbox: w.sandbox ?? '',
        isolates: w.isolates ?? [],
        runs_tenant_code: w.runs_tenant_code === true,
        draining: w.id in draining,
      }))
      .sort((a, b) => a.id.localeCompare(b.id));
    // a worker restarted at an address gets a fresh connection (see WorldWorkerClients.registered),
    // which expects the id heard from last at that address
    const byAddress = new Map<string, WorkerRecord>();
    for (const w of records) {
      const other = byAddress.get(w.address);
      if (!other || other.last_seen_ms < w.last_seen_ms) byAddress.set(w.address, w);
    }
    for (const w of byAddress.values()) this.clients.registered(w.address, w.incarnation ?? '', w.id);
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
          const pong = await this.clients.ping(w.address, timeoutMs, w.id);
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
