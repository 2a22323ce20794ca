import { Collections } from '../../core/index.js';
import { EventLog } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import type { SchedulerDeps } from '../context.js';
import { computeSummary, runEpisodes } from './summary.js';
import type { RunDoc } from './types.js';

/**
 * Ends a run: computes its final summary from every attempt, stores status, summary, spend
 * and error with a compare-and-set on a live status (so the run ends once, whichever hook
 * call gets there first), and announces `run.finished`, after which the run's event
 * streams send `stream.end`.
 */
export async function finishRun(
  deps: SchedulerDeps,
  runId: string,
  status: 'finished' | 'failed' | 'cancelled',
  error: string | null,
): Promise<void> {
  const store = deps.adapters.store;
  const run = await store.get<RunDoc>(Collections.runs, runId);
  if (!run) return;
  const episodes = await runEpisodes(store, runId);
  const summary = computeSummary(run, episodes);
  const now = nowIso();
  const ended = await store.update<RunDoc>(
    Collections.runs,
    runId,
    { status, error, summary, ended_at: now, updated_at: now },
    { status: { $in: ['queued', 'running', 'paused'] } },
  );
  if (!ended) return;
  const labels = Object.entries(summary.profiles)
    .map(([label, p]) => `${label} ${p.mean_reward ?? '-'}`)
    .join(', ');
  await new EventLog(store, deps.adapters.bus).append({
    stream: runId,
    project_id: run.project_id,
    type: 'run.finished',
    summary: `run ${status}${error ? `: ${error}` : ''} (mean reward: ${labels})`,
    data: {
      status,
      episodes: episodes.filter((e) => e.status !== 'queued' && e.status !== 'running').length,
      spent_usd: run.spent_usd,
      error,
    },
  });
}
