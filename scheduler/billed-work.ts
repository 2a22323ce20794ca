import type { BilledJob, BilledWork, Month } from '../billing/index.js';
import { Collections } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import type { JobDoc } from './jobs/index.js';
import type { RunEpisodeDoc } from './runs/index.js';

/** A recorded amount of USD; 0 for a record that has none (or not a number). */
const money = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * Billing's port onto the work it counts (billing/billed-work.ts), answered over the
 * scheduler's own records: the jobs and the compact episode records (Collections.runEpisodes,
 * same id, project and created_at as the full ones, indexed for this). Billing sits below the
 * scheduler and cannot import them.
 */
export function billedWork(store: DocumentStore): BilledWork {
  const inMonth = (projectIds: string[], month: Month) => ({
    project_id: { $in: projectIds },
    created_at: { $gte: month.start, $lt: month.end },
  });
  return {
    jobs: async (projectIds, month) =>
      (await store.find<JobDoc>(Collections.jobs, inMonth(projectIds, month))).map((job): BilledJob => ({
        kind: String(job.kind ?? ''),
        spent_usd: money(job.spent_usd),
      })),
    episodeCount: (projectIds, month) => store.count(Collections.runEpisodes, inMonth(projectIds, month)),
    episodeSpend: async (projectIds, month) => {
      let spent = 0;
      for (const ep of await store.find<RunEpisodeDoc>(Collections.runEpisodes, inMonth(projectIds, month))) {
        // an attempt still running has spent what its actor last recorded on it (live_cost_usd,
        // written with the save of every step that spent): spend counts as it happens, not when
        // the episode ends, without reading the episodes' full documents
        const live = ep.status === 'running' ? money(ep.live_cost_usd) : 0;
        spent += Math.max(money(ep.cost_usd), live);
      }
      return spent;
    },
  };
}
