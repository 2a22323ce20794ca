import { usageOf } from './usage.js';
import { ServiceError } from '../core/index.js';
import { limitsOf, planOf, type BillingDeps } from './organizations.js';

/**
 * Refuses new model-spending work (402 payment_required) when the organization's monthly
 * model-spend allowance is used up (`left_usd` 0). No limit (`allowance_usd` null) always
 * passes. Spend already under way is not stopped: the allowance gates starting work.
 */
export async function assertAllowanceLeft(deps: BillingDeps, organizationId: string): Promise<void> {
  const org = await deps.billedAccounts.organization(organizationId);
  if (!org) return;
  const limits = limitsOf(org);
  if (limits.allowance_usd === null) return;
  const usage = await usageOf(deps.adapters.store, deps, org._id, limits);
  if (usage.left_usd === 0) {
    throw new ServiceError(
      'payment_required',
      `the monthly model-spend allowance is used up: the ${planOf(org)} plan allows $${limits.allowance_usd} in ${usage.month} and $${usage.spent_usd} is spent; it renews ${usage.renews}. Change plan with POST /v1/billing/checkout`,
    );
  }
}
