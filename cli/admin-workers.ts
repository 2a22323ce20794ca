import { chooseAdapters, createLogger, type Config } from '../core/index.js';
import { WorkerRegistry, setWorkerDraining, workerView } from '../scheduler/index.js';

/**
 * `crucible admin workers [drain|undrain <id>]`, run with the installation's environment:
 * reads and marks the worker registry in the shared lease store (Redis), which every
 * scheduler's placement reads. The embedded lease store lives inside the one `crucible
 * start` process, so there the operator API (`/v1/admin/workers`) is the way in.
 *
 * @returns the workers (list) or the one changed, as the operator API shows them.
 */
export async function adminWorkers(
  config: Config,
  action: { kind: 'list' } | { kind: 'drain' | 'undrain'; id: string },
): Promise<Record<string, unknown>[]> {
  const logger = createLogger('silent');
  const adapters = await chooseAdapters(config, logger);
  try {
    if (adapters.engines.leases === 'memory')
      throw new Error(
        'the worker registry is in the memory of the `crucible start` process (REDIS_URL is not set): ' +
          'use GET /v1/admin/workers and POST /v1/admin/workers/{id}/drain from an operator session instead',
      );
    const workers = new WorkerRegistry(adapters.leases, logger);
    try {
      if (action.kind === 'list') {
        const now = Date.now();
        return (await workers.list()).map((w) => workerView(w, now, workers.lostAfterMs));
      }
      return [await setWorkerDraining({ workers }, action.id, action.kind === 'drain')];
    } finally {
      workers.close();
    }
  } finally {
    await adapters.close();
  }
}
