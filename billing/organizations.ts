import { Collections } from '../core/index.js';
import { ServiceError, notFound } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import { effectiveLimits, type PlanLimits, type PlanName } from './plans.js';

/**
 * The fields of an organization that billing reads and writes: its plan, the operator's
 * overrides. The whole record (`OrganizationDoc` in accounts/) extends this, so billing
 * takes any organization without depending on the accounts component.
 */
export interface BilledOrganization extends Doc {
  name: string;
  plan: PlanName;
  plan_override: PlanName | null;
  limits_override: Record<string, number | null> | null;
}

/** The fields of a project that billing reads: which organization pays for it. */
export interface BilledProject extends Doc {
  organization_id: string;
}

/** A project and the organization that pays for it; 404 when the project is gone. */
export async function organizationOfProject<O extends BilledOrganization = BilledOrganization>(
  store: DocumentStore,
  projectId: string,
): Promise<{ project: BilledProject; organization: O }> {
  const project = await store.get<BilledProject>(Collections.projects, projectId);
  if (!project) throw notFound('project');
  const organization = await store.get<O>(Collections.organizations, project.organization_id);
  if (!organization) throw new ServiceError('internal', `project ${projectId} has no organization`);
  return { project, organization };
}

/** The plan in force: the operator's override, else the subscribed plan. */
export function planOf(org: BilledOrganization): PlanName {
  return org.plan_override ?? org.plan;
}

/** The limits in force: the plan's, with the operator's per-limit overrides applied. */
export function limitsOf(org: BilledOrganization): PlanLimits {
  return effectiveLimits(planOf(org), org.limits_override);
}
