import { Collections } from '../../core/index.js';
import { stateKey, type SchedulerDeps } from '../context.js';
import { refreshSummary } from './summary.js';
import type { RunDoc } from './types.js';

/** A run's stored summary is refreshed at most this often while its episodes end. */
const REFRESH_MS = 500;

/** Runs whose summary refresh is due, with its timer. */
const PENDING = stateKey('summary-refresh', () => new Map<string, NodeJS.Timeout>());

/**
 * Asks for a run's stored summary to be recomputed soon. Episodes of a run end in bursts
 * across shards; recomputing reads every attempt of the run, so ends within REFRESH_MS
 * share one recomputation. Reads of an active run compute the summary fresh anyway; this
 * keeps the stored one (lists, compare) close behind. Failures are logged.
 */
export function scheduleSummary(deps: SchedulerDeps, runId: string): void {
  const pending = deps.state.get(PENDING);
  if (pending.has(runId)) return;
  const timer = setTimeout(() => {
    pending.delete(runId);
    void (async () => {
      const run = await deps.adapters.store.get<RunDoc>(Collections.runs, runId);
      if (run) await refreshSummary(deps.adapters.store, run);
    })().catch((err: unknown) => deps.logger.warn({ err, run: runId }, 'run summary could not be refreshed'));
  }, REFRESH_MS);
  timer.unref();
  pending.set(runId, timer);
}
