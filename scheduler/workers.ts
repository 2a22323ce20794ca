import type { Logger } from '../core/log.js';
import type { LeaseStore } from '../core/ports.js';
import { grpc, workerProto, channelOptions, unary } from '../core/grpc.js';
import type { WorldWorkerClient } from '../proto/generated/crucible/v1/WorldWorker.js';
import type { WorkerInfo } from '../proto/generated/crucible/v1/WorkerInfo.js';
import type { PingResponse__Output } from '../proto/generated/crucible/v1/PingResponse.js';
import type { WorkRequest } from '../proto/generated/crucible/v1/WorkRequest.js';
import type { WorkResponse__Output } from '../proto/generated/crucible/v1/WorkResponse.js';
import { ServiceError } from '../core/errors.js';
import { inProcessWorker } from '../world-worker/service.js';

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
  readonly #clients = new Map<string, WorldWorkerClient>();
  readonly #proto = workerProto();
  readonly #inProcess: boolean;

  constructor(leases: LeaseStore, logger: Logger, options: { inProcess?: boolean } = {}) {
    this.#leases = leases;
    this.#logger = logger;
    this.#inProcess = options.inProcess ?? false;
  }

  async upsert(info: WorkerInfo): Promise<void> {
    if (!info.id || !info.address) throw new ServiceError('bad_request', 'a worker needs an id and an address');
    const record: WorkerRecord = {
      id: info.id,
      address: info.address,
      capacity: info.capacity ?? 0,
      active: info.active ?? 0,
      last_seen_ms: Date.now(),
    };
    await this.#leases.hset(REGISTRY_KEY, info.id, JSON.stringify(record));
  }

  async remove(id: string): Promise<void> {
    await this.#leases.hdel(REGISTRY_KEY, id);
  }

  /** Registered workers, including ones whose heartbeat stopped (status `lost`). */
  async list(): Promise<WorkerRecord[]> {
    const [all, draining] = await Promise.all([this.#leases.hgetall(REGISTRY_KEY), this.#leases.hgetall(DRAINING_KEY)]);
    return Object.values(all)
      .map((v) => JSON.parse(v) as WorkerRecord)
      .map((w) => ({ ...w, draining: w.id in draining }))
      .sort((a, b) => a.id.localeCompare(b.id));
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

  client(address: string): WorldWorkerClient {
    let c = this.#clients.get(address);
    if (!c) {
      c = new this.#proto.crucible.v1.WorldWorker(address, grpc.credentials.createInsecure(), channelOptions);
      this.#clients.set(address, c);
    }
    return c;
  }

  /** Pings every registered worker live; this is what /v1/health reports. */
  async probe(timeoutMs = 2_000): Promise<WorkerStatus[]> {
    const now = Date.now();
    return Promise.all(
      (await this.list()).map(async (w): Promise<WorkerStatus> => {
        if (now - w.last_seen_ms > WORKER_LOST_AFTER_MS) return { ...w, status: 'lost' };
        try {
          const c = this.client(w.address);
          const pong = await unary<object, PingResponse__Output>(c.Ping, c, {}, timeoutMs);
          return { ...w, capacity: pong.capacity, active: pong.active, status: 'up' };
        } catch (err) {
          this.#logger.warn({ worker: w.id, err }, 'worker did not answer ping');
          return { ...w, status: 'unreachable' };
        }
      }),
    );
  }

  /**
   * Runs one unit of work on a worker. With `inProcess` (the gateway's fast path), a worker
   * of this very process is called directly instead of over loopback gRPC.
   */
  async execute(address: string, kind: string, payload: unknown, timeoutMs = 600_000): Promise<unknown> {
    const local = this.#inProcess ? inProcessWorker(address) : undefined;
    if (local) return local.executeInProcess(kind, payload, timeoutMs);
    const c = this.client(address);
    const res = await unary<WorkRequest, WorkResponse__Output>(
      c.Execute,
      c,
      { kind, payload_json: JSON.stringify(payload ?? null) },
      timeoutMs,
    );
    return res.result_json ? JSON.parse(res.result_json) : null;
  }

  close(): void {
    for (const c of this.#clients.values()) c.close();
    this.#clients.clear();
  }
}
