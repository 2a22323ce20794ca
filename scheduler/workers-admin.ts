import { notFound, ok, okPage, pageArray, pageRequest, param } from '../core/index.js';
import type { HandlerTable, SchedulerDeps } from './context.js';
import type { WorkerRecord } from './workers.js';

/** A world-worker as operators see it: `up` while its heartbeat is current, else `lost`; `draining` when drained. */
export function workerView(w: WorkerRecord, now = Date.now(), lostAfterMs: number): Record<string, unknown> {
  return {
    id: w.id,
    address: w.address,
    status: now - w.last_seen_ms > lostAfterMs ? 'lost' : 'up',
    draining: w.draining ?? false,
    capacity: w.capacity,
    active: w.active,
    last_seen_at: new Date(w.last_seen_ms).toISOString(),
  };
}

/**
 * Drains or undrains a registered worker (every scheduler's placement reads the flag): a
 * draining worker takes no new episode; the ones it runs go on to their end.
 * @throws not_found for an id no worker registered with.
 */
export async function setWorkerDraining(
  deps: Pick<SchedulerDeps, 'workers'>,
  id: string,
  draining: boolean,
): Promise<Record<string, unknown>> {
  const w = (await deps.workers.list()).find((x) => x.id === id);
  if (!w) throw notFound(`world-worker ${id}`);
  await deps.workers.setDraining(id, draining);
  return workerView({ ...w, draining }, Date.now(), deps.workers.lostAfterMs);
}

/** Operator administration of the world-workers (docs/operations.md). */
export const workerAdminHandlers: HandlerTable = {
  async admin_list_workers(ctx, deps) {
    const now = Date.now();
    const page = pageArray(await deps.workers.list(), (w) => w.id, pageRequest(ctx.query));
    return okPage(
      page.items.map((w) => workerView(w, now, deps.workers.lostAfterMs)),
      page.next,
    );
  },
  async admin_drain_worker(ctx, deps) {
    return ok(await setWorkerDraining(deps, param(ctx, 'worker_id'), param(ctx, 'action') === 'drain'));
  },
};
