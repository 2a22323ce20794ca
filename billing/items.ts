import type { PlanName } from './plans.js';

/** What can be bought: a plan subscription or a one-time top-up for the current month. */
export type BillingItem = 'pro_monthly' | 'pro_yearly' | 'team_monthly' | 'team_yearly' | 'episodes_1000' | 'build_1';

export type ItemSpec =
  | {
      item: BillingItem;
      kind: 'plan';
      plan: PlanName;
      interval: 'month' | 'year';
      title: string;
      unit_amount_cents: number;
    }
  | {
      item: BillingItem;
      kind: 'topup';
      credit: 'episodes' | 'builds';
      per_unit: number;
      title: string;
      unit_amount_cents: number;
    };

/**
 * The catalogue. Yearly plans cost ten months (billing/plans.ts `price_monthly_usd`);
 * `episodes_1000` credits 1000 episodes and `build_1` one world build per unit bought, for
 * the month of purchase (UTC).
 */
export const ITEMS: Readonly<Record<BillingItem, ItemSpec>> = Object.freeze({
  pro_monthly: {
    item: 'pro_monthly',
    kind: 'plan',
    plan: 'pro',
    interval: 'month',
    title: 'Crucible Pro (monthly)',
    unit_amount_cents: 4_900,
  },
  pro_yearly: {
    item: 'pro_yearly',
    kind: 'plan',
    plan: 'pro',
    interval: 'year',
    title: 'Crucible Pro (yearly)',
    unit_amount_cents: 49_000,
  },
  team_monthly: {
    item: 'team_monthly',
    kind: 'plan',
    plan: 'team',
    interval: 'month',
    title: 'Crucible Team (monthly)',
    unit_amount_cents: 19_900,
  },
  team_yearly: {
    item: 'team_yearly',
    kind: 'plan',
    plan: 'team',
    interval: 'year',
    title: 'Crucible Team (yearly)',
    unit_amount_cents: 199_000,
  },
  episodes_1000: {
    item: 'episodes_1000',
    kind: 'topup',
    credit: 'episodes',
    per_unit: 1000,
    title: '1000 extra episodes this month',
    unit_amount_cents: 1_000,
  },
  build_1: {
    item: 'build_1',
    kind: 'topup',
    credit: 'builds',
    per_unit: 1,
    title: 'One extra world build this month',
    unit_amount_cents: 500,
  },
});

export function isBillingItem(v: unknown): v is BillingItem {
  return typeof v === 'string' && Object.prototype.hasOwnProperty.call(ITEMS, v);
}
