import { C } from '../../core/collections.js';
import { ServiceError, notFound, toServiceError } from '../../core/errors.js';
import type { DocumentStore } from '../../core/ports.js';
import type { EpisodeDoc, RunEpisodeDoc } from '../runs/index.js';

/** How long an episode operation waits for the worker hosting the episode. */
const WORKER_CALL_MS = 30_000;

/**
 * What the episode operations need: the store, and a way to run work on a world-worker
 * (`WorkerRegistry.execute`). The scheduler's handlers and the gateway's fast path give
 * their own.
 */
export interface EpisodeOpsDeps {
  store: DocumentStore;
  execute(address: string, kind: string, payload: unknown, timeoutMs?: number): Promise<unknown>;
}

/** An episode attempt of the caller's project; 404 for unknown ids and other projects' episodes alike. */
export async function loadAttempt(store: DocumentStore, projectId: string, id: string): Promise<RunEpisodeDoc> {
  const ep = await store.get<RunEpisodeDoc>(C.runEpisodes, id);
  if (!ep || ep.project_id !== projectId) throw notFound(`episode ${id}`);
  return ep;
}

/** The episode's full record (its actor's saved state once it started). */
export async function loadRecord(store: DocumentStore, id: string): Promise<EpisodeDoc> {
  const doc = await store.get<EpisodeDoc>(C.episodes, id);
  if (!doc) throw notFound(`episode ${id}`);
  return doc;
}

/**
 * Runs an episode operation on the world-worker hosting the episode's actor.
 *
 * @returns the worker's answer, or null when the worker does not host it (any more, or
 *   not yet): the caller answers from the stored record instead.
 * @throws the actor's own refusals (409, 422 ...) unchanged; ServiceError('unavailable')
 *   when the hosting worker cannot be reached (its episodes are about to be failed over).
 */
export async function onWorker<T>(
  d: EpisodeOpsDeps,
  ep: RunEpisodeDoc,
  kind: string,
  payload: Record<string, unknown>,
): Promise<T | null> {
  if (!ep.worker_address) return null;
  try {
    return (await d.execute(ep.worker_address, kind, { episode_id: ep._id, ...payload }, WORKER_CALL_MS)) as T;
  } catch (err) {
    const e = toServiceError(err);
    if (e.code === 'not_found' && (e.details as { not_hosted?: boolean } | undefined)?.not_hosted) return null;
    if (e.code === 'unavailable' || e.code === 'timeout') {
      throw new ServiceError(
        'unavailable',
        `the world-worker hosting episode ${ep._id} (${ep.worker_id}) is not reachable; if it is gone the episode ends with environment_error and is re-queued`,
        { cause: err },
      );
    }
    throw e;
  }
}

/** Whether an episode status is one of the ended ones. */
export const hasEnded = (status: string): boolean =>
  status === 'finished' || status === 'failed' || status === 'cancelled';
