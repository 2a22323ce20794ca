export { PLANS, PLAN_NAMES, DEFAULT_PLAN, effectiveLimits, isPlanName } from './plans.js';
export type { Plan, PlanLimits, PlanName } from './plans.js';
