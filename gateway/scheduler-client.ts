import { connectSchedulers, grpc, neverSent, unary } from '../core/index.js';
import type { ControlPlane } from '../core/index.js';
import type { DispatchRequest } from '../proto/index.js';
import type { DispatchResponse__Output } from '../proto/index.js';
import type { HealthResponse__Output } from '../proto/index.js';
import type { SchedulerClient as GrpcSchedulerClient } from '../proto/index.js';

const { TRANSIENT_FAILURE } = grpc.connectivityState;

/**
 * The gateway's handle on the schedulers (SCHEDULER_ADDR: one address, a comma-separated
 * list, or one name resolving to several, balanced round robin by grpc-js). Calls rotate
 * over the targets, ones that failed to connect last; a call that certainly never reached a scheduler
 * (no connection) is sent to the next one, and so is a read whose scheduler died under it.
 * A write whose connection dropped mid-call is not repeated: it may have been carried out.
 */
export class SchedulerClient {
  #clients: GrpcSchedulerClient[];
  #next = 0;
  readonly #stopWatching: () => void;

  /**
   * `controlPlane`: the gateway's certificate (the schedulers answer Dispatch to gateways
   * only). When its revocation list changes, the connections are made anew, so a scheduler
   * whose certificate was revoked is refused at the next call, not at the next reconnect.
   */
  constructor(address: string, controlPlane: ControlPlane) {
    const connect = () => connectSchedulers(address, controlPlane);
    this.#clients = connect();
    if (this.#clients.length === 0) throw new Error('SCHEDULER_ADDR names no scheduler');
    this.#stopWatching = controlPlane.onRevocationsChange(() => {
      const old = this.#clients;
      this.#clients = connect();
      for (const c of old) c.close();
    });
  }

  /** `idempotent`: a read, safe to repeat on another scheduler when the first died during it. */
  dispatch(req: DispatchRequest, timeoutMs = 120_000, idempotent = false): Promise<DispatchResponse__Output> {
    return this.#call(
      (c) => unary<DispatchRequest, DispatchResponse__Output>(c.Dispatch, c, req, timeoutMs),
      idempotent,
    );
  }

  health(): Promise<HealthResponse__Output> {
    return this.#call((c) => unary<object, HealthResponse__Output>(c.Health, c, {}, 10_000), true);
  }

  close(): void {
    this.#stopWatching();
    for (const c of this.#clients) c.close();
  }

  /** The targets in the order to try them: from the next in turn, ones that failed to connect last. */
  #order(): GrpcSchedulerClient[] {
    const n = this.#clients.length;
    const start = this.#next++ % n;
    const turn = Array.from({ length: n }, (_, i) => this.#clients[(start + i) % n]!);
    const failing = (c: GrpcSchedulerClient) => c.getChannel().getConnectivityState(false) === TRANSIENT_FAILURE;
    return [...turn.filter((c) => !failing(c)), ...turn.filter(failing)];
  }

  async #call<T>(fn: (c: GrpcSchedulerClient) => Promise<T>, idempotent: boolean): Promise<T> {
    let last: unknown;
    for (const c of this.#order()) {
      try {
        return await fn(c);
      } catch (err) {
        last = err;
        if (!(neverSent(err) || (idempotent && transportFailure(err)))) throw err;
      }
    }
    throw last;
  }
}

/** The call failed in transport (the scheduler's connection went), not with an answer of the scheduler. */
function transportFailure(err: unknown): boolean {
  const cause = (err as { cause?: { code?: number; details?: string } } | null)?.cause;
  return cause?.code === grpc.status.UNAVAILABLE && !(cause.details ?? '').startsWith('{');
}
