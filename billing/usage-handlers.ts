import { PLANS } from './plans.js';
import { pricing } from './pricing.js';
import { nextQuietStart } from './quiet-hours.js';
import { subscriptionOf, subscriptionView } from './records.js';
import { usageOf, usageView, type UsageReport } from './usage.js';
import { ok, type HandlerTable } from '../core/index.js';
import { requirePrincipal } from '../core/index.js';
import { limitsOf, planOf, type BilledOrganization, type BillingDeps } from './organizations.js';

/** The organization of the caller's project, its usage this month, and its plan in force. */
export async function organizationReport(
  deps: BillingDeps,
  projectId: string,
): Promise<{ organization: BilledOrganization; usage: UsageReport }> {
  const organization = await deps.billedAccounts.organizationOfProject(projectId);
  return {
    organization,
    usage: await usageOf(deps.adapters.store, deps, organization._id, limitsOf(organization)),
  };
}

/** The plan in force with its limits (operator overrides applied) and whether it is overridden. */
export function planView(org: BilledOrganization): Record<string, unknown> {
  const plan = PLANS[planOf(org)];
  return {
    name: plan.name,
    title: plan.title,
    price_monthly_usd: plan.price_monthly_usd,
    limits: limitsOf(org),
    subscribed: org.plan,
    overridden: org.plan_override !== null || !!org.limits_override,
  };
}

/** Spec section 4, Usage and billing: the reads. */
export const usageHandlers: HandlerTable<BillingDeps> = {
  async get_usage(ctx, deps) {
    const { usage } = await organizationReport(deps, requirePrincipal(ctx).projectId);
    return ok(usageView(usage));
  },

  async get_billing(ctx, deps) {
    const { organization, usage } = await organizationReport(deps, requirePrincipal(ctx).projectId);
    const sub = await subscriptionOf(deps.adapters.store, organization._id);
    return ok({
      plan: planView(organization),
      usage: usageView(usage),
      month: usage.month,
      renews: sub?.status === 'active' && sub.current_period_end ? sub.current_period_end : usage.renews,
      quiet_hours_utc: deps.config.quietHoursUtc,
      next_quiet_start: nextQuietStart(new Date(), deps.config.quietHoursUtc),
      subscription: subscriptionView(sub),
      counts: { builds: usage.counts.builds, episodes: usage.counts.episodes, credits: usage.counts.credits },
    });
  },

  async get_pricing(ctx, deps) {
    requirePrincipal(ctx);
    return ok(pricing(deps.config));
  },
};
