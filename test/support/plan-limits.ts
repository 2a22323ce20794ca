import type { PlanLimits } from '../../billing/index.js';

/** Plan limits with nothing limited but what `set` names (tests of usage and budgets). */
export function limitsWith(set: Partial<PlanLimits>): PlanLimits {
  return {
    applications: null,
    builds_per_month: null,
    episodes_per_month: null,
    allowance_usd: null,
    concurrent_episodes: null,
    api_keys: null,
    quiet_hours_only: false,
    ...set,
  };
}
