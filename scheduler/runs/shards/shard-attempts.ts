import { Collections, ServiceError } from '../../../core/index.js';
import type { DocumentStore } from '../../../core/index.js';
import type { RunEpisodeDoc } from '../types.js';

/** Every attempt of one shard job (at most SHARD_SIZE slots, so the same cost in a run of any size). */
export function shardAttempts(store: DocumentStore, shardId: string): Promise<RunEpisodeDoc[]> {
  return store.find<RunEpisodeDoc>(Collections.runEpisodes, { shard_id: shardId });
}

/** The standing (latest) attempt of each slot. */
export function latestBySlot(all: RunEpisodeDoc[]): Map<number, RunEpisodeDoc> {
  const latest = new Map<number, RunEpisodeDoc>();
  for (const e of all) if ((latest.get(e.slot)?.attempt ?? 0) < e.attempt) latest.set(e.slot, e);
  return latest;
}

/**
 * Takes a queued or running attempt over for the job engine `owner`: from now on the
 * previous owner's writes to it are refused. Answers the attempt as it is now (an ended
 * one unchanged).
 */
export async function takeOver(store: DocumentStore, ep: RunEpisodeDoc, owner: string): Promise<RunEpisodeDoc> {
  if (ep.status !== 'queued' && ep.status !== 'running') return ep;
  return (
    (await store.update<RunEpisodeDoc>(
      Collections.runEpisodes,
      ep._id,
      { owner },
      { status: { $in: ['queued', 'running'] } },
    )) ??
    (await store.get<RunEpisodeDoc>(Collections.runEpisodes, ep._id)) ??
    ep
  );
}

/**
 * The shard succeeds only when every slot's standing attempt ran to its end: a slot whose
 * attempts all could not run (world not started, worker lost: `lost`) did not run, and the
 * shard (so the run) fails saying which and why instead of finishing with a hole in it.
 *
 * @param slots the shard's planned slots (those with attempts when the input does not list them).
 * @throws ServiceError('unavailable') naming the first slot that did not run.
 */
export async function checkAllRan(store: DocumentStore, shardId: string, slots?: number[]): Promise<void> {
  const latest = latestBySlot(await shardAttempts(store, shardId));
  const planned = slots ?? [...latest.keys()];
  const ran = (e: RunEpisodeDoc | undefined) => e?.status === 'finished' || (e?.status === 'failed' && !e.lost);
  const missing = planned.filter((slot) => !ran(latest.get(slot)));
  if (missing.length === 0) return;
  const first = latest.get(missing[0]!);
  const why = first
    ? `slot ${first.slot} (${first.scenario_id}, ${first.profile}, repeat ${first.repeat}) ended ${first.status} after ${first.attempt} attempts: ${first.environment_error ?? first.termination ?? 'no reason recorded'}`
    : `slot ${missing[0]} has no attempt`;
  throw new ServiceError(
    'unavailable',
    `${missing.length} of ${planned.length} planned episodes of the shard did not run; ${why}`,
  );
}
