import { Collections } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import type { BilledAccounts } from './organizations.js';

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
 * those jobs' `spent_usd`, and the operator credits recorded for the month. Nothing is
 * kept twice, so the figures cannot drift from what happened.
 */
export async function organizationUsage(
  store: DocumentStore,
  accounts: BilledAccounts,
  organizationId: string,
  month: Month = monthOf(),
): Promise<OrganizationUsage> {
  const credits = { builds: 0, episodes: 0 };
  for (const c of await store.find<CreditDoc>(Collections.credits, {
    organization_id: organizationId,
    month: month.month,
  }))
    credits[c.kind] += c.quantity;
  const projectIds = await accounts.projectIds(organizationId);
  if (projectIds.length === 0) return { month: month.month, builds: 0, episodes: 0, spent_usd: 0, credits };
  const inMonth = { project_id: { $in: projectIds }, created_at: { $gte: month.start, $lt: month.end } };
  const jobs = await store.find<Doc & { kind?: string; spent_usd?: unknown }>(Collections.jobs, inMonth);
  const spent = jobs.reduce(
    (sum, j) => sum + (typeof j.spent_usd === 'number' && Number.isFinite(j.spent_usd) ? j.spent_usd : 0),
    0,
  );
  return {
    month: month.month,
    builds: jobs.filter((j) => j.kind === 'world_build').length,
    // the compact records (same id, project and created_at as the full ones), indexed for this
    episodes: await store.count(Collections.runEpisodes, inMonth),
    // rounded to a millionth of a dollar, so a float sum never prints 0.30000000000000004
    spent_usd: Math.round(spent * 1e6) / 1e6,
    credits,
  };
}
