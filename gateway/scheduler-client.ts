import { channelOptions, grpc, schedulerProto, unary } from '../core/index.js';
import type { DispatchRequest } from '../proto/index.js';
import type { DispatchResponse__Output } from '../proto/index.js';
import type { HealthResponse__Output } from '../proto/index.js';
import type { SchedulerClient as GrpcSchedulerClient } from '../proto/index.js';

/** The gateway's handle on the scheduler's gRPC service. */
export class SchedulerClient {
  readonly #client: GrpcSchedulerClient;

  constructor(address: string) {
    this.#client = new (schedulerProto().crucible.v1.Scheduler)(
      address,
      grpc.credentials.createInsecure(),
      channelOptions,
    );
  }

  dispatch(req: DispatchRequest, timeoutMs = 120_000): Promise<DispatchResponse__Output> {
    return unary<DispatchRequest, DispatchResponse__Output>(this.#client.Dispatch, this.#client, req, timeoutMs);
  }

  health(): Promise<HealthResponse__Output> {
    return unary<object, HealthResponse__Output>(this.#client.Health, this.#client, {}, 10_000);
  }

  close(): void {
    this.#client.close();
  }
}
