import type { WorldWorkerService } from './service.js';

/**
 * The world-workers running in one process, by the address they advertise. Built once by
 * the composition root (cli/roles.ts `startEmbedded`) and given to the worker, which joins,
 * and to the gateway, whose external-agent path then reaches a worker of its own process
 * without the gRPC round trip (docs/architecture.md). Every other caller, and every caller
 * in another process, goes through gRPC.
 */
export class LocalWorkers {
  readonly #byAddress = new Map<string, WorldWorkerService>();

  /** Makes `service` reachable in-process under `address` until {@link leave}. */
  join(address: string, service: WorldWorkerService): void {
    this.#byAddress.set(address, service);
  }

  /** Removes `service` (only if it still holds `address`: a successor may have joined). */
  leave(address: string, service: WorldWorkerService): void {
    if (this.#byAddress.get(address) === service) this.#byAddress.delete(address);
  }

  /** The worker of this process advertising `address`, if any. */
  at(address: string): WorldWorkerService | undefined {
    return this.#byAddress.get(address);
  }
}
