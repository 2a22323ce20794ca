import { ServiceError, SourceMissingError, toServiceError } from '../../core/index.js';
import { getArchive } from '../applications/index.js';
import type { CodeRef, WorkAnswer, WorkKind, WorkPayload } from '../../world-worker/index.js';
import { codeTrust, mayTake } from '../code-trust.js';
import type { PhaseContext } from '../jobs/index.js';

/** A work payload without its source reference, which `callWorker` adds from `code`. */
export type SourcelessPayload<K extends WorkKind> = Omit<WorkPayload<K>, 'digest' | 'archive_b64' | 'origin'>;

/** How long a phase waits for a world-worker to appear or come back before the job fails. */
const WORKER_WAIT_MS = 120_000;

/**
 * Runs one unit of work on a live world-worker (the least busy one) from inside a job
 * phase. It survives the worker side of the distributed shape:
 *
 * - no live worker, or the chosen one unreachable (`unavailable`): waits and tries again
 *   (another worker, or the same one back), checking for pause/stop in between, for up to
 *   two minutes;
 * - the worker lacks the source (a SourceMissingError): repeats the
 *   call carrying the source archive from the store.
 *
 * Work handlers report application failures as answers, so `unavailable` here always
 * means the worker, never the application.
 *
 * `code` is the source the work is about (its digest and how the build obtained it): work
 * on tenant code goes only to workers that reported they run it (their driver isolates it,
 * code-trust.ts), and the worker judges the code again before it starts anything.
 * `placeFor` chooses the worker the same way for work whose payload carries the source
 * itself (fetching an upload): a tenant's bytes reach no worker that would not run them.
 */
export async function callWorker<K extends WorkKind>(
  ctx: PhaseContext,
  kind: K,
  payload: SourcelessPayload<K>,
  code?: CodeRef,
  placeFor?: CodeRef,
): Promise<WorkAnswer<K>> {
  const { workers, adapters } = ctx.deps;
  const sourceDigest = code?.digest;
  const judged = code ?? placeFor;
  const trust = judged ? await codeTrust(ctx.deps, judged) : 'operator';
  const deadline = Date.now() + WORKER_WAIT_MS;
  let withArchive: string | null = null;
  let backoff = 200;
  let lastProblem = 'no world-worker is registered';
  for (;;) {
    await ctx.stopIfRequested();
    const all = await workers.live();
    const live = all
      .filter((w) => mayTake(w, trust))
      .sort((a, b) => a.active / Math.max(1, a.capacity) - b.active / Math.max(1, b.capacity));
    const worker = live[0];
    if (!worker && all.length > 0)
      lastProblem = `the source is tenant code, and none of the ${all.length} live world-workers isolates it (container sandboxes)`;
    if (worker) {
      try {
        // the source reference is the one part of the payload filled in here
        const body = (
          sourceDigest
            ? {
                ...payload,
                digest: sourceDigest,
                origin: code?.origin ?? null,
                ...(withArchive ? { archive_b64: withArchive } : {}),
              }
            : payload
        ) as WorkPayload<K>;
        return await workers.execute(worker.address, kind, body);
      } catch (err) {
        const e = toServiceError(err);
        if (e instanceof SourceMissingError && sourceDigest && !withArchive) {
          const archive = await getArchive(adapters.store, sourceDigest);
          if (!archive)
            throw new ServiceError(
              'gone',
              `the archive of source ${sourceDigest} is no longer stored, so no worker can get the source`,
            );
          withArchive = archive.toString('base64');
          continue;
        }
        if (e.code !== 'unavailable' && e.code !== 'timeout') throw e;
        lastProblem = `world-worker ${worker.id} did not answer (${e.message})`;
      }
    }
    if (Date.now() > deadline) {
      throw new ServiceError(
        'unavailable',
        `no world-worker could run ${kind} for two minutes: ${lastProblem}; start a worker (crucible worker) or check the running ones`,
      );
    }
    await ctx.sleep(backoff);
    backoff = Math.min(backoff * 2, 5_000);
  }
}
