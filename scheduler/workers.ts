import type { Logger } from '../core/log.js';
import type { LeaseStore } from '../core/ports.js';
import { grpc, workerProto, peerChannelOptions, unary } from '../core/grpc.js';
import type { WorldWorkerClient } from '../proto/generated/crucible/v1/WorldWorker.js';
import type { WorkerInfo } from '../proto/generated/crucible/v1/WorkerInfo.js';
import type { PingResponse__Output } from '../proto/generated/crucible/v1/PingResponse.js';
import type { WorkRequest } from '../proto/generated/crucible/v1/WorkRequest.js';
import type { WorkResponse__Output } from '../proto/generated/crucible/v1/WorkResponse.js';
import { ServiceError } from '../core/errors.js';
import { inProcessWorker } from '../world-worker/service.js';

const REGISTRY_KEY = 'crucible:workers';
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
  readonly #clients = new Map<string, { client: WorldWorkerClient; incarnation: string }>();
  /** The incarnation each address was last registered with, as last read from the registry. */
  readonly #incarnations = new Map<string, string>();
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
      incarnation: info.incarnation ?? '',
    };
    await this.#leases.hset(REGISTRY_KEY, info.id, JSON.stringify(record));
  }

  async remove(id: string): Promise<void> {
    await this.#leases.hdel(REGISTRY_KEY, id);
  }

  /** Registered workers, including ones whose heartbeat stopped (status `lost`). */
  async list(): Promise<WorkerRecord[]> {
    const all = await this.#leases.hgetall(REGISTRY_KEY);
    const records = Object.values(all)
      .map((v) => JSON.parse(v) as WorkerRecord)
      .sort((a, b) => a.id.localeCompare(b.id));
    for (const w of records) this.#incarnations.set(w.address, w.incarnation ?? '');
    return records;
  }

  /** Workers whose heartbeat is current. */
  async live(): Promise<WorkerRecord[]> {
    const now = Date.now();
    return (await this.list()).filter((w) => now - w.last_seen_ms <= WORKER_LOST_AFTER_MS);
  }

  /**
   * The client of the worker at `address`. A worker that registered again with a new
   * incarnation (restarted) gets a new connection at once: the old one may still be backing
   * off from the dead process, and would fail calls to the new one for seconds.
   */
  client(address: string): WorldWorkerClient {
    const incarnation = this.#incarnations.get(address) ?? '';
    let c = this.#clients.get(address);
    if (c && c.incarnation !== incarnation) {
      c.client.close();
      c = undefined;
    }
    if (!c) {
      c = {
        client: new this.#proto.crucible.v1.WorldWorker(address, grpc.credentials.createInsecure(), peerChannelOptions),
        incarnation,
      };
      this.#clients.set(address, c);
    }
    return c.client;
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
    for (const c of this.#clients.values()) c.client.close();
    this.#clients.clear();
  }
}
