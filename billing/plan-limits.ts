import { ServiceError } from '../core/index.js';
import { organizationUsage } from './organization-usage.js';
import { limitsOf, planOf, type BilledAccounts, type BillingDeps } from './organizations.js';
import { runStartsAt, type QuietWindow } from './quiet-hours.js';

/**
 * The plan's monthly limits on what an organization starts (402, spec section 7 rule 3,
 * when the plan does not cover it). Each counts what was started this calendar month (UTC)
 * in any of the organization's projects against the plan's limit (or the operator's
 * override) plus the credits added for the month (operator credits and top-ups). The
 * model-spend allowance is checked apart (`assertAllowanceLeft`).
 */

/** A new run: episodes started this month plus this run's stay within `episodes_per_month` + episode credits. */
export async function checkRunAllowed(deps: BillingDeps, projectId: string, episodes: number): Promise<void> {
  const m = await monthly(deps, projectId, 'episodes');
  if (m && m.used + episodes > m.allowed) {
    throw new ServiceError(
      'payment_required',
      `the ${m.plan} plan allows ${m.allowed} episodes in ${m.month}; ${m.used} have run and this run needs ${episodes}. Run fewer (splits, scenario_ids, repeats), add credits or change plan`,
    );
  }
}

/**
 * When a run asked for now may start (docs/runs.md, Quiet hours): null at once, or the
 * next start of the quiet window when the organization's limits (plan, then operator
 * override) say `quiet_hours_only` and now is outside it.
 */
export async function runStartTime(
  accounts: BilledAccounts,
  projectId: string,
  window: QuietWindow,
  now = new Date(),
): Promise<string | null> {
  const organization = await accounts.organizationOfProject(projectId);
  return runStartsAt(limitsOf(organization).quiet_hours_only === true, now, window);
}

/** A new world build: builds started this month stay within `builds_per_month` + build credits. */
export async function checkBuildAllowed(deps: BillingDeps, projectId: string): Promise<void> {
  const m = await monthly(deps, projectId, 'builds');
  if (m && m.used + 1 > m.allowed) {
    throw new ServiceError(
      'payment_required',
      `the ${m.plan} plan allows ${m.allowed} world builds in ${m.month} and ${m.used} have been started; add build credits or change plan`,
    );
  }
}

/** This month's count of `kind` and what the plan plus the month's credits allow; null without a limit. */
async function monthly(
  deps: BillingDeps,
  projectId: string,
  kind: 'episodes' | 'builds',
): Promise<{ plan: string; month: string; used: number; allowed: number } | null> {
  const organization = await deps.billedAccounts.organizationOfProject(projectId);
  const limits = limitsOf(organization);
  const limit = kind === 'episodes' ? limits.episodes_per_month : limits.builds_per_month;
  if (limit === null) return null;
  const usage = await organizationUsage(deps.adapters.store, deps, organization._id);
  return { plan: planOf(organization), month: usage.month, used: usage[kind], allowed: limit + usage.credits[kind] };
}
