import type { Month } from './organization-usage.js';

/** One server job as billing counts it. */
export interface BilledJob {
  /** The job's kind (`world_build`, `improvement`, …). */
  kind: string;
  /** The model spend recorded on the job, in USD; 0 when none is. */
  spent_usd: number;
}

/**
 * How billing reaches the work it counts: server jobs and episode attempts. The scheduler
 * owns those collections (core/collections.ts) and sits above billing (it composes billing's
 * handlers), so billing cannot import their record types or readers: it names what it needs
 * here, the scheduler answers it (`billedWork`, over its own records) and hands it in with its
 * deps, beside accounts' `billedAccounts`.
 */
export interface BilledWork {
  /** The server jobs created in the month in any of the projects. */
  jobs(projectIds: string[], month: Month): Promise<BilledJob[]>;
  /** How many episodes (run attempts) were created in the month in any of the projects. */
  episodeCount(projectIds: string[], month: Month): Promise<number>;
  /**
   * What the episodes created in the month in any of the projects spent, in USD: each one's
   * `cost_usd`, or for an attempt still running what its actor has spent so far when that is
   * more.
   */
  episodeSpend(projectIds: string[], month: Month): Promise<number>;
}
