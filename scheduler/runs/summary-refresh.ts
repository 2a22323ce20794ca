import { Collections as C, nowIso, type Doc, type DocumentStore } from '../../core/index.js';
import { stateKey, type SchedulerDeps } from '../context.js';
import { combine, renderSummary, sameTally, tallyOf, type Tally } from './summary-tally.js';
import type { RunDoc, RunEpisodeDoc } from './types.js';

/** A shard's tally is recomputed at most this often while its episodes change. */
const REFRESH_MS = 500;
/** Compare-and-set rounds before a refresh gives up (the next one carries on). */
const ROUNDS = 50;

/**
 * One shard's part of its run's tally: `current` is what its attempts add up to now,
 * `applied` what the run tally holds of it. They differ only between the two writes of one
 * refresh; the next refresh finishes that first.
 */
interface ShardTallyDoc extends Doc {
  run_id: string;
  current: { v: number; tally: Tally };
  applied: { v: number; tally: Tally };
}

/** The run's tally: the sum of its shards' applied tallies, and which version of each it holds. */
interface RunTallyDoc extends Doc {
  rev: number;
  shards: Record<string, number>;
  tally: Tally;
}

const LIVE = ['queued', 'running', 'paused'];
/** Shards whose refresh is due, with its timer. */
const PENDING = stateKey('summary-refresh', () => new Map<string, NodeJS.Timeout>());

/**
 * Asks for the summary of `ep`'s run to take the changes of `ep`'s shard into account soon.
 * Changes within REFRESH_MS share one refresh; failures are logged (the next change, or
 * the run's end, refreshes again).
 */
export function scheduleSummary(deps: SchedulerDeps, ep: Pick<RunEpisodeDoc, 'run_id' | 'shard_id'>): void {
  const pending = deps.state.get(PENDING);
  if (pending.has(ep.shard_id)) return;
  const timer = setTimeout(() => {
    pending.delete(ep.shard_id);
    refreshShard(deps.adapters.store, ep.run_id, ep.shard_id).catch((err: unknown) =>
      deps.logger.warn({ err, run: ep.run_id, shard: ep.shard_id }, 'run summary could not be refreshed'),
    );
  }, REFRESH_MS);
  timer.unref();
  pending.set(ep.shard_id, timer);
}

/**
 * Brings the run's stored summary up to date with one shard: recomputes the shard's tally
 * from its own attempts (a bounded read), adds the difference to the run's tally, and
 * writes the summary rendered from it onto the run while the run lives. Idempotent and
 * safe to run at once from several schedulers: each step is a compare-and-set, a step
 * already done is recognised by the versions, and a refresh cut off between its writes is
 * finished by the next one. Reading a run therefore never reads its episodes.
 */
export async function refreshShard(store: DocumentStore, runId: string, shardId: string): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    const doc = await shardTally(store, runId, shardId);
    if (doc.current.v !== doc.applied.v) {
      await settle(store, runId, doc);
      continue;
    }
    const tally = tallyOf(await store.find<RunEpisodeDoc>(C.runEpisodes, { shard_id: shardId }));
    if (sameTally(tally, doc.current.tally)) return render(store, runId);
    const next = { v: doc.current.v + 1, tally };
    const moved = await store.update<ShardTallyDoc>(
      C.runShardTallies,
      shardId,
      { current: next },
      { 'current.v': doc.current.v, 'applied.v': doc.applied.v },
    );
    if (!moved) continue;
    await settle(store, runId, moved);
    return render(store, runId);
  }
  throw new Error(`shard ${shardId}: its tally kept changing under ${ROUNDS} refreshes`);
}

async function shardTally(store: DocumentStore, runId: string, shardId: string): Promise<ShardTallyDoc> {
  const found = await store.get<ShardTallyDoc>(C.runShardTallies, shardId);
  if (found) return found;
  const empty = { v: 0, tally: {} };
  try {
    return await store.insert<ShardTallyDoc>(C.runShardTallies, {
      _id: shardId,
      run_id: runId,
      current: empty,
      applied: empty,
    });
  } catch {
    return (await store.get<ShardTallyDoc>(C.runShardTallies, shardId))!; // made by a peer meanwhile
  }
}

/** Moves the run tally from the shard's `applied` to its `current` (once), then records that on the shard. */
async function settle(store: DocumentStore, runId: string, doc: ShardTallyDoc): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    const run = await runTally(store, runId);
    const holds = run.shards[doc._id] ?? 0;
    if (holds === doc.applied.v) {
      const moved = await store.update<RunTallyDoc>(
        C.runTallies,
        runId,
        {
          rev: run.rev + 1,
          shards: { ...run.shards, [doc._id]: doc.current.v },
          tally: combine(combine(run.tally, doc.applied.tally, -1), doc.current.tally),
        },
        { rev: run.rev },
      );
      if (!moved) continue;
    } else if (holds !== doc.current.v) {
      // another refresh moved the shard on since `doc` was read: read it again
      const fresh = await store.get<ShardTallyDoc>(C.runShardTallies, doc._id);
      if (!fresh) return;
      doc = fresh;
      if (fresh.current.v === fresh.applied.v) return;
      continue;
    }
    await store.update(C.runShardTallies, doc._id, { applied: doc.current }, { 'applied.v': doc.applied.v });
    return;
  }
  throw new Error(`run ${runId}: its tally kept changing under ${ROUNDS} attempts`);
}

async function runTally(store: DocumentStore, runId: string): Promise<RunTallyDoc> {
  const found = await store.get<RunTallyDoc>(C.runTallies, runId);
  if (found) return found;
  try {
    return await store.insert<RunTallyDoc>(C.runTallies, { _id: runId, rev: 0, shards: {}, tally: {} });
  } catch {
    return (await store.get<RunTallyDoc>(C.runTallies, runId))!;
  }
}

/** Writes the summary of the run's tally onto the run while it lives, never over a newer one. */
async function render(store: DocumentStore, runId: string): Promise<void> {
  const [run, tally] = await Promise.all([
    store.get<RunDoc>(C.runs, runId),
    store.get<RunTallyDoc>(C.runTallies, runId),
  ]);
  if (!run || !tally || !LIVE.includes(run.status)) return;
  const patch = { summary: renderSummary(run, tally.tally), summary_rev: tally.rev, updated_at: nowIso() };
  const live = { $in: LIVE };
  if (!(await store.update(C.runs, runId, patch, { status: live, summary_rev: { $lt: tally.rev } })))
    await store.update(C.runs, runId, patch, { status: live, summary_rev: null });
}

/** The run's tally rendered as its summary; null before any shard was counted. */
export async function tallySummary(store: DocumentStore, run: RunDoc): Promise<RunDoc['summary'] | null> {
  const t = await store.get<RunTallyDoc>(C.runTallies, run._id);
  return t ? renderSummary(run, t.tally) : null;
}
