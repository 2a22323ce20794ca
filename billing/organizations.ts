import type { Doc, HandlerDeps } from '../core/index.js';
import type { BilledWork } from './billed-work.js';
import { effectiveLimits, type PlanLimits, type PlanName } from './plans.js';

/**
 * The fields of an organization that billing reads: its plan, the operator's overrides.
 * The record is accounts' (`OrganizationDoc`, which extends this), so billing takes any
 * organization without depending on the accounts component.
 */
export interface BilledOrganization extends Doc {
  name: string;
  plan: PlanName;
  plan_override: PlanName | null;
  limits_override: Record<string, number | null> | null;
}

/**
 * How billing reaches the organizations and projects it bills. Accounts owns those
 * collections (core/collections.ts) and sits above billing (it imports the plans), so billing
 * cannot import their record types or readers: it names what it needs here, accounts answers
 * it (`billedAccounts`, over its own records), and whoever composes billing hands it in (the
 * scheduler's deps, the gateway's local billing pages, accounts' operator views).
 */
export interface BilledAccounts {
  /** The organization, or null when there is none. */
  organization(id: string): Promise<BilledOrganization | null>;
  /** The organization that pays for a project; 404 when the project is gone. */
  organizationOfProject(projectId: string): Promise<BilledOrganization>;
  /** The ids of the organization's projects. */
  projectIds(organizationId: string): Promise<string[]>;
  /** Sets the subscribed plan: a payment started, moved or ended the subscription. */
  setPlan(organizationId: string, plan: PlanName): Promise<void>;
}

/**
 * Handler deps with billing's ports: onto accounts (organizations, projects) and onto the
 * scheduler (jobs, episode attempts), what billing's reads of other components' records run with.
 */
export interface BillingDeps extends HandlerDeps {
  readonly billedAccounts: BilledAccounts;
  readonly billedWork: BilledWork;
}

/** The ports alone, for the month's usage counts (a test hands in just these). */
export type BillingPorts = Pick<BillingDeps, 'billedAccounts' | 'billedWork'>;

/** The plan in force: the operator's override, else the subscribed plan. */
export function planOf(org: BilledOrganization): PlanName {
  return org.plan_override ?? org.plan;
}

/** The limits in force: the plan's, with the operator's per-limit overrides applied. */
export function limitsOf(org: BilledOrganization): PlanLimits {
  return effectiveLimits(planOf(org), org.limits_override);
}
