import { ServiceError } from '../core/errors.js';
import { grpc, handleUnary, workerProto } from '../core/grpc.js';
import type { PingResponse } from '../proto/generated/crucible/v1/PingResponse.js';
import type { WorkRequest__Output } from '../proto/generated/crucible/v1/WorkRequest.js';
import type { WorkResponse } from '../proto/generated/crucible/v1/WorkResponse.js';

/** A kind of work a world-worker carries out (a build phase, hosting an episode...). */
export type WorkHandler = (payload: unknown) => Promise<unknown>;

/**
 * The world-worker's gRPC face: Ping for health and placement, Execute for work, each
 * kind routed to its handler.
 */
export class WorldWorkerService {
  readonly #id: string;
  readonly #capacity: number;
  readonly #started = Date.now();
  readonly #handlers = new Map<string, WorkHandler>();
  #active = 0;

  constructor(id: string, capacity: number) {
    this.#id = id;
    this.#capacity = capacity;
  }

  get id(): string {
    return this.#id;
  }

  get active(): number {
    return this.#active;
  }

  get capacity(): number {
    return this.#capacity;
  }

  register(kind: string, handler: WorkHandler): void {
    this.#handlers.set(kind, handler);
  }

  async ping(): Promise<PingResponse> {
    return { worker_id: this.#id, capacity: this.#capacity, active: this.#active, uptime_ms: String(Date.now() - this.#started) };
  }

  async execute(req: WorkRequest__Output): Promise<WorkResponse> {
    const handler = this.#handlers.get(req.kind);
    if (!handler) throw new ServiceError('not_implemented', `world-worker ${this.#id} has no handler for work of kind "${req.kind}"`);
    this.#active++;
    try {
      const result = await handler(req.payload_json ? JSON.parse(req.payload_json) : null);
      return { result_json: JSON.stringify(result ?? null) };
    } finally {
      this.#active--;
    }
  }

  addToServer(server: grpc.Server): void {
    server.addService(workerProto().crucible.v1.WorldWorker.service, {
      Ping: handleUnary(() => this.ping()),
      Execute: handleUnary((req: WorkRequest__Output) => this.execute(req)),
    });
  }
}
