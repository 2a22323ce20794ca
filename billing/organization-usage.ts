import { Collections } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import type { BillingPorts } from './organizations.js';

/** A calendar month in UTC: `YYYY-MM` and its bounds as ISO timestamps. */
export interface Month {
  month: string;
  start: string;
  end: string;
}

export function monthOf(date = new Date()): Month {
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  return {
    month: `${y}-${String(m + 1).padStart(2, '0')}`,
    start: new Date(Date.UTC(y, m, 1)).toISOString(),
    end: new Date(Date.UTC(y, m + 1, 1)).toISOString(),
  };
}

/** Builds or episodes an operator added to an organization for one month. */
export interface CreditDoc extends Doc {
  organization_id: string;
  month: string;
  kind: 'episodes' | 'builds';
  quantity: number;
  note: string;
  created_by: string | null;
  created_at: string;
}

export interface OrganizationUsage {
  month: string;
  /** World builds started this month (server jobs of kind `world_build`). */
  builds: number;
  /** Episodes started this month. */
  episodes: number;
  /** Model spend of this month's server jobs, in USD. */
  spent_usd: number;
  /** Operator credits for this month, by kind. */
  credits: { builds: number; episodes: number };
}

/**
 * One organization's use in a month, counted from the records themselves: jobs of kind
 * `world_build` and episodes created in the month in any of its projects, the sum of
 * those jobs' `spent_usd` (read through the scheduler's `billedWork`), and the operator
 * credits recorded for the month. Nothing is kept twice, so the figures cannot drift from
 * what happened.
 */
export async function organizationUsage(
  store: DocumentStore,
  ports: BillingPorts,
  organizationId: string,
  month: Month = monthOf(),
): Promise<OrganizationUsage> {
  const credits = { builds: 0, episodes: 0 };
  for (const c of await store.find<CreditDoc>(Collections.credits, {
    organization_id: organizationId,
    month: month.month,
  }))
    credits[c.kind] += c.quantity;
  const projectIds = await ports.billedAccounts.projectIds(organizationId);
  if (projectIds.length === 0) return { month: month.month, builds: 0, episodes: 0, spent_usd: 0, credits };
  const jobs = await ports.billedWork.jobs(projectIds, month);
  const spent = jobs.reduce((sum, j) => sum + j.spent_usd, 0);
  return {
    month: month.month,
    builds: jobs.filter((j) => j.kind === 'world_build').length,
    episodes: await ports.billedWork.episodeCount(projectIds, month),
    // rounded to a millionth of a dollar, so a float sum never prints 0.30000000000000004
    spent_usd: Math.round(spent * 1e6) / 1e6,
    credits,
  };
}
