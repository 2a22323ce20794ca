import { ServiceError } from '../core/index.js';
import { type grpc, handleUnary, workerProto, type ControlPlane } from '../core/index.js';
import type { PingResponse } from '../proto/index.js';
import type { WorkRequest__Output } from '../proto/index.js';
import type { WorkResponse } from '../proto/index.js';
import type { WorkHandler, WorkKind } from './work-kinds.js';
import { EPISODE_WORK } from './episode-work.js';

/** The work a gateway may send a worker: the external-agent path's episode operations. */
const GATEWAY_WORK = [EPISODE_WORK.observe, EPISODE_WORK.action, EPISODE_WORK.act, EPISODE_WORK.intervene] as const;
export type GatewayWorkKind = (typeof GATEWAY_WORK)[number];
const GATEWAY_WORK_KINDS: ReadonlySet<string> = new Set(GATEWAY_WORK);

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
  /** Work waits for this (start-up cleanup after registration); Ping does not. */
  #ready: Promise<unknown> = Promise.resolve();

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

  /** Holds work back until `until` settles: what a start must finish before it takes work. */
  holdWorkUntil(until: Promise<unknown>): void {
    this.#ready = until.catch(() => undefined);
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
      await this.#ready;
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

  /**
   * Serves Ping and Execute to the schedulers (with certificates; see ControlPlane), and to
   * gateways only the episode operations of the external-agent path.
   */
  addToServer(server: grpc.Server, controlPlane: ControlPlane): void {
    server.addService(workerProto().crucible.v1.WorldWorker.service, {
      Ping: handleUnary(async (_req, call) => {
        controlPlane.authorize(call, ['scheduler', 'gateway'], 'Ping');
        return this.ping();
      }),
      Execute: handleUnary(async (req: WorkRequest__Output, call) => {
        const peer = controlPlane.authorize(call, ['scheduler', 'gateway'], 'Execute');
        if (peer?.role === 'gateway' && !GATEWAY_WORK_KINDS.has(req.kind))
          throw new ServiceError('forbidden', `a gateway may not run work of kind "${req.kind}" on a world-worker`);
        return this.execute(req);
      }),
    });
  }
}
