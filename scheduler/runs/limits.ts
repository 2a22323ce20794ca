import { ServiceError } from '../../core/errors.js';
import type { DocumentStore } from '../../core/ports.js';
import { organizationUsage } from '../accounts/organization-usage.js';
import { limitsOf, loadProject, planOf } from '../workspaces.js';

/**
 * Holds a new run to the organization's monthly episode limit (402, spec section 7 rule 3,
 * when the plan does not cover it): episodes started this month plus this run's must stay
 * within the plan's `episodes_per_month` plus the operator's episode credits for the month.
 * (The model-spend allowance is checked by billing, `assertAllowanceLeft`.)
 */
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
