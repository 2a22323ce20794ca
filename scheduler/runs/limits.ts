import { ServiceError } from '../../core/errors.js';
import type { DocumentStore } from '../../core/ports.js';
import { organizationUsage } from '../accounts/organization-usage.js';
import { limitsOf, loadProject, planOf } from '../workspaces.js';

/**
 * Holds a new run to the organization's plan (402, spec section 7 rule 3, when the plan does
 * not cover it):
 * - episodes started this month plus this run's must stay within `episodes_per_month`
 *   plus the operator's episode credits for the month;
 * - a run that spends model budget needs allowance left (`allowance_usd` minus this
 *   month's spend; null means no limit).
 */
export async function checkRunAllowed(store: DocumentStore, projectId: string, episodes: number, spendsModelBudget: boolean): Promise<void> {
  const { organization } = await loadProject(store, projectId);
  const limits = limitsOf(organization);
  const plan = planOf(organization);
  if (limits.episodes_per_month === null && (limits.allowance_usd === null || !spendsModelBudget)) return;
  const usage = await organizationUsage(store, organization._id);
  if (limits.episodes_per_month !== null) {
    const allowed = limits.episodes_per_month + usage.credits.episodes;
    if (usage.episodes + episodes > allowed) {
      throw new ServiceError(
        'payment_required',
        `the ${plan} plan allows ${allowed} episodes in ${usage.month}; ${usage.episodes} have run and this run needs ${episodes}. Run fewer (splits, scenario_ids, repeats), add credits or change plan`,
      );
    }
  }
  if (spendsModelBudget && limits.allowance_usd !== null && usage.spent_usd >= limits.allowance_usd) {
    throw new ServiceError('payment_required', `the ${plan} plan's model allowance of $${limits.allowance_usd} for ${usage.month} is spent ($${usage.spent_usd}); top up or change plan`);
  }
}
