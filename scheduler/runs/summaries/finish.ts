import { Collections } from '../../../core/index.js';
import { EventLog } from '../../../core/index.js';
import { nowIso } from '../../../core/index.js';
import type { SchedulerDeps } from '../../context.js';
import { computeSummary, runEpisodes } from './summary.js';
import type { RunDoc, RunEpisodeDoc } from '../types.js';

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
  if (status === 'finished') {
    // the last guard: whatever ended the run, it is not `finished` with an episode that never ran
    const missing = await unranSlots(deps, run);
    if (missing) [status, error] = ['failed', missing];
  }
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

/**
 * Null when every planned episode of the run has a standing attempt that ran to its end
 * (`finished`, or `failed` by its world while its actor ran it: scored as excluded);
 * otherwise a sentence saying how many did not and why the first did not. The coordinator
 * checks it before it succeeds, and finishRun once more, so a run is never `finished` with a hole in it.
 */
export async function unranSlots(deps: SchedulerDeps, run: Pick<RunDoc, '_id' | 'episodes'>): Promise<string | null> {
  const store = deps.adapters.store;
  const standing = { run_id: run._id, replaced_by: null };
  const ran =
    (await store.count(Collections.runEpisodes, { ...standing, status: 'finished' })) +
    (await store.count(Collections.runEpisodes, { ...standing, status: 'failed', lost: { $ne: true } }));
  if (ran >= run.episodes) return null;
  const first =
    (await store.findOne<RunEpisodeDoc>(Collections.runEpisodes, { ...standing, lost: true })) ??
    (await store.findOne<RunEpisodeDoc>(Collections.runEpisodes, {
      ...standing,
      status: { $in: ['queued', 'running'] },
    }));
  const why = first
    ? `; slot ${first.slot} (${first.scenario_id}, ${first.profile}, repeat ${first.repeat}) is ${first.status}${first.environment_error ? `: ${first.environment_error}` : ''}`
    : '';
  return `${run.episodes - ran} of ${run.episodes} planned episodes did not run${why}`;
}
