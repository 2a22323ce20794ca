import { ServiceError } from '../core/index.js';
import { grpc, handleUnary, workerProto } from '../core/index.js';
import type { PingResponse } from '../proto/index.js';
import type { WorkRequest__Output } from '../proto/index.js';
import type { WorkResponse } from '../proto/index.js';
import type { WorkHandler, WorkKind } from './work-kinds.js';

/**
 * The world-worker's gRPC face: Ping for health and placement, Execute for work, each
 * kind routed to its handler.
 */
export class WorldWorkerService {
  readonly #id: string;
  readonly #capacity: number;
  readonly #started = Date.now();
  /** Kind -> handler; `register` keeps each handler's payload and answer matched to its kind. */
  readonly #handlers = new Map<string, (payload: unknown) => Promise<unknown>>();
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

  register<K extends WorkKind>(kind: K, handler: WorkHandler<K>): void {
    // The payload arrives as decoded JSON (or, in-process, as the caller's typed value): the
    // kind names its shape, and the client side is typed against the same WorkKinds map.
    this.#handlers.set(kind, handler as (payload: unknown) => Promise<unknown>);
  }

  async ping(): Promise<PingResponse> {
    return {
      worker_id: this.#id,
      capacity: this.#capacity,
      active: this.#active,
      uptime_ms: String(Date.now() - this.#started),
    };
  }

  async execute(req: Pick<WorkRequest__Output, 'kind' | 'payload_json'>): Promise<WorkResponse> {
    const result = await this.#run(req.kind, req.payload_json ? JSON.parse(req.payload_json) : null);
    return { result_json: JSON.stringify(result ?? null) };
  }

  async #run(kind: string, payload: unknown): Promise<unknown> {
    const handler = this.#handlers.get(kind);
    if (!handler)
      throw new ServiceError('not_implemented', `world-worker ${this.#id} has no handler for work of kind "${kind}"`);
    this.#active++;
    try {
      return await handler(payload);
    } finally {
      this.#active--;
    }
  }

  /**
   * Execute for a caller in this process: the same handler and deadline, without the JSON
   * text in between. So the caller passes a payload of plain JSON values that it does not
   * touch afterwards, and reads the answer without changing it: the answer may be an
   * object the handler keeps (an actor's observation is shared by every poll of a turn).
   */
  async executeInProcess(kind: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ServiceError('timeout', 'the request took too long inside the service')),
        timeoutMs,
      );
    });
    try {
      return (await Promise.race([this.#run(kind, payload ?? null), deadline])) ?? null;
    } finally {
      clearTimeout(timer);
    }
  }

  addToServer(server: grpc.Server): void {
    server.addService(workerProto().crucible.v1.WorldWorker.service, {
      Ping: handleUnary(() => this.ping()),
      Execute: handleUnary((req: WorkRequest__Output) => this.execute(req)),
    });
  }
}
