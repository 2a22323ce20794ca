import { PLANS, type PlanLimits } from '../../billing/index.js';

/**
 * Plan limits with nothing limited but what `set` names (tests of usage and budgets): every
 * limit the plans have, from billing's own table, set to no limit (null; false for the
 * yes-or-no ones), so a limit added to billing is unlimited here without a change.
 */
export function limitsWith(set: Partial<PlanLimits>): PlanLimits {
  const none = Object.fromEntries(
    Object.entries(PLANS.free.limits).map(([name, value]) => [name, typeof value === 'boolean' ? false : null]),
  ) as unknown as PlanLimits;
  return { ...none, ...set };
}
