import {
  AtCapacityError,
  NotHostedError,
  ShuttingDownError,
  SourceMissingError,
  neverSent,
  type ServiceError,
} from '../../../core/index.js';
import { EPISODE_WORK } from '../../../world-worker/index.js';

/**
 * What a failed `episode.run` or `episode.await` call means for its attempt (the shard
 * driver acts on it, shard-driver.ts):
 * - `refused`: nothing started; the attempt goes back to the queue, and the worker is
 *   marked `down` (the start never reached it), `full` (at capacity), `leaving` (shutting
 *   down), or the attempt's world sources are sent along next time (`archive`: a missing source);
 * - `shutting_down`: the worker is shutting down while the episode ran;
 * - `rejected`: the worker refused the episode itself (a payload it cannot run);
 * - `broken`: the call broke (unavailable, timeout, internal): the worker may be gone;
 * - `not_hosted`: the worker answers but no longer holds the episode.
 */
export type CallFailure =
  | { kind: 'refused'; mark: 'down' | 'full' | 'leaving' | 'archive' }
  | { kind: 'shutting_down' }
  | { kind: 'rejected' }
  | { kind: 'broken' }
  | { kind: 'not_hosted' };

/** Reads a failed call of kind `callKind` (EPISODE_WORK.run or .await). */
export function callFailure(err: ServiceError, callKind: string | undefined): CallFailure {
  // a start that never reached its worker (no connection: it died, or is not up yet)
  const unsent = callKind === EPISODE_WORK.run && neverSent(err);
  if (unsent) return { kind: 'refused', mark: 'down' };
  // refused before anything started: back to the queue, placed elsewhere (or later)
  if (err instanceof AtCapacityError) return { kind: 'refused', mark: 'full' };
  if (err instanceof SourceMissingError) return { kind: 'refused', mark: 'archive' };
  if (err instanceof ShuttingDownError)
    return err.notStarted ? { kind: 'refused', mark: 'leaving' } : { kind: 'shutting_down' };
  if (err instanceof NotHostedError) return { kind: 'not_hosted' };
  if (err.code !== 'unavailable' && err.code !== 'timeout' && err.code !== 'internal') return { kind: 'rejected' };
  return { kind: 'broken' };
}
