/**
 * Plans and their limits. A limit of `null` means no limit. Operators may override single
 * limits per organization (`limits_override`, where null also means no limit).
 */
export const PLAN_NAMES = ['free', 'pro', 'team', 'enterprise', 'internal'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  /** Applications registered in one project. */
  applications: number | null;
  /** World builds started per calendar month (UTC). */
  builds_per_month: number | null;
  /** Episodes started per calendar month (UTC). */
  episodes_per_month: number | null;
  /** Monthly model-spend allowance in USD (`allowance_usd`). */
  allowance_usd: number | null;
  /** Episodes running at once in one organization. */
  concurrent_episodes: number | null;
  /** API keys per project. */
  api_keys: number | null;
  /** Whether runs wait for quiet hours (UTC) before they start. */
  quiet_hours_only: boolean;
}

export interface Plan {
  name: PlanName;
  title: string;
  /** USD per month; yearly is ten months' price. */
  price_monthly_usd: number | null;
  limits: PlanLimits;
}

export const PLANS: Readonly<Record<PlanName, Plan>> = Object.freeze({
  free: {
    name: 'free',
    title: 'Free',
    price_monthly_usd: 0,
    limits: {
      applications: 1,
      builds_per_month: 5,
      episodes_per_month: 500,
      allowance_usd: 5,
      concurrent_episodes: 4,
      api_keys: 25,
      quiet_hours_only: false,
    },
  },
  pro: {
    name: 'pro',
    title: 'Pro',
    price_monthly_usd: 49,
    limits: {
      applications: 10,
      builds_per_month: 50,
      episodes_per_month: 10_000,
      allowance_usd: 100,
      concurrent_episodes: 32,
      api_keys: 50,
      quiet_hours_only: false,
    },
  },
  team: {
    name: 'team',
    title: 'Team',
    price_monthly_usd: 199,
    limits: {
      applications: 50,
      builds_per_month: 250,
      episodes_per_month: 100_000,
      allowance_usd: 500,
      concurrent_episodes: 128,
      api_keys: 200,
      quiet_hours_only: false,
    },
  },
  enterprise: {
    name: 'enterprise',
    title: 'Enterprise',
    price_monthly_usd: null,
    limits: {
      applications: null,
      builds_per_month: null,
      episodes_per_month: null,
      allowance_usd: null,
      concurrent_episodes: 1024,
      api_keys: null,
      quiet_hours_only: false,
    },
  },
  internal: {
    name: 'internal',
    title: 'Internal',
    price_monthly_usd: null,
    limits: {
      applications: null,
      builds_per_month: null,
      episodes_per_month: null,
      allowance_usd: null,
      concurrent_episodes: null,
      api_keys: null,
      quiet_hours_only: false,
    },
  },
});

export const DEFAULT_PLAN: PlanName = 'free';

/** The limits in force: the plan's, with the operator's overrides laid over them. */
export function effectiveLimits(
  plan: PlanName,
  override?: Partial<Record<keyof PlanLimits, number | boolean | null>> | null,
): PlanLimits {
  const limits: PlanLimits = { ...PLANS[plan].limits };
  if (override) {
    for (const [k, v] of Object.entries(override)) {
      if (k in limits) (limits as unknown as Record<string, unknown>)[k] = v;
    }
  }
  return limits;
}
