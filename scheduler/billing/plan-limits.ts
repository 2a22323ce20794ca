import { ServiceError } from '../../core/errors.js';
import type { DocumentStore } from '../../core/ports.js';
import { organizationUsage } from '../accounts/organization-usage.js';
import { limitsOf, loadProject, planOf } from '../workspaces.js';

/**
 * The plan's monthly limits on what an organization starts (402, spec section 7 rule 3,
 * when the plan does not cover it). Each counts what was started this calendar month (UTC)
 * in any of the organization's projects against the plan's limit (or the operator's
 * override) plus the credits added for the month (operator credits and top-ups). The
 * model-spend allowance is checked apart (`assertAllowanceLeft`).
 */

/** A new run: episodes started this month plus this run's stay within `episodes_per_month` + episode credits. */
export async function checkRunAllowed(store: DocumentStore, projectId: string, episodes: number): Promise<void> {
  const { organization } = await loadProject(store, projectId);
  const limit = limitsOf(organization).episodes_per_month;
  if (limit === null) return;
  const usage = await organizationUsage(store, organization._id);
  const allowed = limit + usage.credits.episodes;
  if (usage.episodes + episodes > allowed) {
    throw new ServiceError(
      'payment_required',
      `the ${planOf(organization)} plan allows ${allowed} episodes in ${usage.month}; ${usage.episodes} have run and this run needs ${episodes}. Run fewer (splits, scenario_ids, repeats), add credits or change plan`,
    );
  }
}

/** A new world build: builds started this month stay within `builds_per_month` + build credits. */
export async function checkBuildAllowed(store: DocumentStore, projectId: string): Promise<void> {
  const { organization } = await loadProject(store, projectId);
  const limit = limitsOf(organization).builds_per_month;
  if (limit === null) return;
  const usage = await organizationUsage(store, organization._id);
  const allowed = limit + usage.credits.builds;
  if (usage.builds + 1 > allowed) {
    throw new ServiceError(
      'payment_required',
      `the ${planOf(organization)} plan allows ${allowed} world builds in ${usage.month} and ${usage.builds} have been started; add build credits or change plan`,
    );
  }
}
