import type { DocumentStore } from '../core/index.js';
import { monthOf, organizationUsage, type Month, type OrganizationUsage } from './organization-usage.js';
import type { BillingPorts } from './organizations.js';
import type { PlanLimits } from './plans.js';

/**
 * Spend buckets of `by_kind`, keyed by what the money went to. A job kind the map does not
 * name lands in `other`, so the buckets always add up to `spent_usd`.
 */
const BUCKET_OF_JOB_KIND: Readonly<Record<string, string>> = Object.freeze({
  world_build: 'builds',
  world_validation: 'validation',
  improvement: 'improvements',
  dataset_export: 'exports',
  bundle: 'exports',
});

/** Job kinds whose spend is the spend of their episodes (counted from the episodes themselves). */
const EPISODE_JOB_KINDS: ReadonlySet<string> = new Set(['run', 'run_shard']);

/** Spec section 2, Usage: this month's model spend against the allowance. */
export interface Usage {
  /** `YYYY-MM` (UTC calendar month). */
  month: string;
  /** USD spent this month; always the sum of `by_kind`. */
  spent_usd: number;
  /** USD per kind of work: builds, validation, episodes, improvements, exports, other (zero buckets kept). */
  by_kind: Record<string, number>;
  /** The plan's monthly model-spend allowance after operator overrides; null means no limit. */
  allowance_usd: number | null;
  /** max(0, allowance - spent), or null when there is no limit. */
  left_usd: number | null;
  /** First instant of the next month (ISO, UTC): when the allowance renews. */
  renews: string;
}

/** The usage figures together with the counts the plan limits and the dashboard use. */
export interface UsageReport extends Usage {
  counts: OrganizationUsage;
}

const round = (usd: number): number => Math.round(usd * 1e6) / 1e6;

/**
 * This month's spend of one organization, from the records that exist (nothing is kept
 * twice), read through the scheduler's `billedWork`: the `spent_usd` of server jobs created
 * in the month in any of its projects, by job kind, and the `cost_usd` of episodes (run
 * attempts) created in the month, for a running attempt what its actor has spent so far
 * (`live_cost_usd` on the attempt's compact record, kept by the episode's persistence). Run and
 * shard jobs are left out of the job buckets because what they spend is exactly what their
 * episodes cost; counting the episodes instead keeps `episodes` current while a run's
 * coordinator has not yet summed its shards. Counts and operator credits come from
 * `organizationUsage`.
 */
export async function usageOf(
  store: DocumentStore,
  ports: BillingPorts,
  organizationId: string,
  limits: PlanLimits,
  month: Month = monthOf(),
): Promise<UsageReport> {
  const by_kind: Record<string, number> = {
    builds: 0,
    validation: 0,
    episodes: 0,
    improvements: 0,
    exports: 0,
    other: 0,
  };
  const counts = await organizationUsage(store, ports, organizationId, month);
  const projectIds = await ports.billedAccounts.projectIds(organizationId);
  if (projectIds.length > 0) {
    for (const job of await ports.billedWork.jobs(projectIds, month)) {
      if (EPISODE_JOB_KINDS.has(job.kind)) continue;
      const bucket = BUCKET_OF_JOB_KIND[job.kind] ?? 'other';
      by_kind[bucket] = (by_kind[bucket] ?? 0) + job.spent_usd;
    }
    by_kind.episodes! += await ports.billedWork.episodeSpend(projectIds, month);
  }
  for (const k of Object.keys(by_kind)) by_kind[k] = round(by_kind[k]!);
  const spent_usd = round(Object.values(by_kind).reduce((a, b) => a + b, 0));
  const allowance_usd = limits.allowance_usd;
  return {
    month: month.month,
    spent_usd,
    by_kind,
    allowance_usd,
    left_usd: allowance_usd === null ? null : round(Math.max(0, allowance_usd - spent_usd)),
    renews: month.end,
    counts,
  };
}

/** The public Usage fields of a report (drops the internal counts). */
export function usageView(u: UsageReport): Usage {
  return {
    month: u.month,
    spent_usd: u.spent_usd,
    by_kind: u.by_kind,
    allowance_usd: u.allowance_usd,
    left_usd: u.left_usd,
    renews: u.renews,
  };
}
