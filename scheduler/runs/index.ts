/**
 * Evaluations and runs (docs/runs.md): POST /v1/evaluations plans a run of scenarios x
 * profiles x repeats, split into `run_shard` jobs that place episodes on world-workers,
 * watched by the run's coordinator job (`run`); run reads, commands, episode lists,
 * summaries and comparisons.
 */
import type { DocumentStore } from '../../core/index.js';
import { Collections } from '../../core/index.js';
import type { JobKind } from '../jobs/index.js';
import { coordinatorKind } from './summaries/coordinator-kind.js';
import { shardKind } from './shards/shard-kind.js';

export { runHandlers } from './handlers.js';
export { computeSummary, scoreBlock, finalAttempts, refreshSummary, runEpisodes } from './summaries/summary.js';
export { loadRun } from './views.js';
export { comparePair, splitScenarioSets } from './compare.js';
export {
  BOOTSTRAP_RESAMPLES,
  clopperPearson,
  clusterBootstrapMean,
  clusteredDf,
  clusteredWilson,
  effectiveSize,
  mulberry32,
  t975,
  t80,
  MIN_INTERVAL_SCENARIOS,
  MIN_DECIDING_SCENARIOS,
  pairedTest,
  summaryInterval,
  wilson,
} from './summaries/statistics.js';
export * from './types.js';

/** The job kinds of runs, for `startJobEngine`. */
export const runJobKinds: readonly JobKind[] = [coordinatorKind, shardKind];

/** Indexes of runs and their episode attempts; idempotent, run at scheduler start. */
export async function ensureRunIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.runs, [{ fields: ['project_id', 'created_at'] }]);
  await store.ensureIndexes(Collections.runEpisodes, [
    { fields: ['run_id', 'slot'] },
    { fields: ['shard_id', 'status'] },
    { fields: ['project_id', 'created_at'] },
    { fields: ['project_id', 'status'] },
  ]);
  // Collections.episodes (the full records) is only read by id: no index, because each index on a
  // document of tens of kilobytes makes every save of the episode parse it twice more
  // (data folders from before 2026-11-22 still have this one)
  await store.dropIndexes(Collections.episodes, [{ fields: ['project_id', 'created_at'] }]);
  // actions are no longer written apart from their episode (2026-11-27): their index goes too
  await store.dropIndexes(Collections.actions, [{ fields: ['episode_id', 'index'] }]);
}
