import { mergeHandlerTables, type HandlerTable } from '../core/index.js';
import { paymentHandlers, type PaymentDeps } from './payment-handlers.js';
import { usageHandlers } from './usage-handlers.js';

export { assertAllowanceLeft } from './allowance.js';
export type { PaymentDeps } from './payment-handlers.js';

/** Every usage and billing operation of spec section 4. */
export const billingHandlers: HandlerTable<PaymentDeps> = mergeHandlerTables<PaymentDeps>(
  usageHandlers,
  paymentHandlers,
);

export { PLANS, DEFAULT_PLAN, effectiveLimits } from './plans.js';
export type { PlanLimits, PlanName } from './plans.js';
export { limitsOf, planOf, type BilledAccounts, type BilledOrganization, type BillingDeps } from './organizations.js';
export type { BilledJob, BilledWork } from './billed-work.js';
export { organizationReport, planView } from './usage-handlers.js';
export { usageView } from './usage.js';

export { localBillingPages } from './local-pages.js';
export { monthOf, organizationUsage } from './organization-usage.js';
export type { CreditDoc, Month } from './organization-usage.js';
export { checkBuildAllowed, checkRunAllowed, runStartTime } from './plan-limits.js';
export { paymentProviderFor, publicUrlOf } from './provider.js';
