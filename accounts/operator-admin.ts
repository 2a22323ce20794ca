import { PLANS, effectiveLimits, type BillingDeps, type PlanLimits, type PlanName } from '../billing/index.js';
import { Collections } from '../core/index.js';
import { notFound, type FieldProblem, ValidationFailedError } from '../core/index.js';
import { newId, nowIso } from '../core/index.js';
import type { DocumentStore } from '../core/index.js';
import { created, ok, type HandlerTable } from '../core/index.js';
import { body, param, requirePrincipal } from '../core/index.js';
import { planOf, type OrganizationDoc, type UserDoc } from './workspaces.js';
import { monthOf, organizationUsage, type CreditDoc } from '../billing/index.js';
import { okPage, pageOf, pageRequest } from '../core/index.js';

/** Limits an operator may override: the numeric ones (null = no limit). */
const NUMERIC_LIMITS = (Object.keys(PLANS.free.limits) as Array<keyof PlanLimits>).filter(
  (k) => typeof PLANS.free.limits[k] !== 'boolean',
);
/** The only limit measured in money; every other one counts things. */
const FRACTIONAL_LIMITS = new Set<string>(['allowance_usd']);
/** Limits that are switches (true/false), e.g. `quiet_hours_only`. */
const BOOLEAN_LIMITS = (Object.keys(PLANS.free.limits) as Array<keyof PlanLimits>).filter(
  (k) => typeof PLANS.free.limits[k] === 'boolean',
);

/**
 * One organization as operators see it: plan, limits in force, owner and this month's use
 * (counted by billing through the deps' ports: `billedAccounts`, and the scheduler's `billedWork`).
 */
async function organizationView(deps: BillingDeps, org: OrganizationDoc): Promise<Record<string, unknown>> {
  const store = deps.adapters.store;
  const owner = org.owner_user_id ? await store.get<UserDoc>(Collections.users, org.owner_user_id) : null;
  return {
    id: org._id,
    name: org.name,
    plan: planOf(org),
    subscribed_plan: org.plan,
    plan_override: org.plan_override,
    limits_override: org.limits_override,
    limits: effectiveLimits(planOf(org), org.limits_override),
    owner: owner ? { id: owner._id, email: owner.email, name: owner.name } : null,
    projects: await store.count(Collections.projects, { organization_id: org._id }),
    usage: await organizationUsage(store, deps, org._id),
    created_at: org.created_at,
  };
}

async function loadOrganization(store: DocumentStore, id: string): Promise<OrganizationDoc> {
  const org = await store.get<OrganizationDoc>(Collections.organizations, id);
  if (!org) throw notFound(`organization ${id}`);
  return org;
}

/** Checks an override against the limit names; counts must be whole numbers. */
function checkLimitsOverride(override: Record<string, number | boolean | null>): void {
  const problems: FieldProblem[] = [];
  for (const [name, value] of Object.entries(override)) {
    const field = `limits_override.${name}`;
    if ((BOOLEAN_LIMITS as string[]).includes(name)) {
      if (typeof value !== 'boolean') problems.push({ field, message: 'must be true or false' });
    } else if (!(NUMERIC_LIMITS as string[]).includes(name))
      problems.push({
        field,
        message: `not a limit that can be overridden; one of ${[...NUMERIC_LIMITS, ...BOOLEAN_LIMITS].join(', ')}`,
      });
    else if (typeof value === 'boolean') problems.push({ field, message: 'must be a number, or null for no limit' });
    else if (value !== null && !FRACTIONAL_LIMITS.has(name) && !Number.isInteger(value))
      problems.push({ field, message: 'must be a whole number, or null for no limit' });
  }
  if (problems.length > 0) throw new ValidationFailedError('limits_override is not valid', problems);
}

/**
 * Operator administration. The gateway admits only a console session of a user named an
 * operator (accounts/operators.ts; x-access `operator`; every key is refused), so
 * these handlers act across all organizations. They run with billing's deps: the month's use
 * is read through billing's ports, which the scheduler hands in.
 */
export const operatorAdminHandlers: HandlerTable<BillingDeps> = {
  async admin_list_organizations(ctx, deps) {
    const { adapters } = deps;
    const page = await pageOf<OrganizationDoc>(
      adapters.store,
      Collections.organizations,
      {},
      [{ field: 'created_at', direction: 'asc' }],
      pageRequest(ctx.query),
    );
    return okPage(await Promise.all(page.items.map((o) => organizationView(deps, o))), page.next);
  },

  /**
   * Sets the plan without payment (`plan_override`; null removes it) and single limits
   * (`limits_override`, which replaces the previous override as a whole; a limit set to
   * null means no limit; `{}` removes every override). Fields left out stay as they are.
   */
  async admin_update_organization(ctx, deps) {
    const { adapters, logger } = deps;
    const p = requirePrincipal(ctx);
    const id = param(ctx, 'org_id');
    await loadOrganization(adapters.store, id);
    const b = body<{ plan_override?: PlanName | null; limits_override?: Record<string, number | boolean | null> }>(ctx);
    const patch: Record<string, unknown> = {};
    if ('plan_override' in b) patch.plan_override = b.plan_override ?? null;
    if (b.limits_override !== undefined) {
      checkLimitsOverride(b.limits_override);
      patch.limits_override = Object.keys(b.limits_override).length > 0 ? b.limits_override : null;
    }
    if (Object.keys(patch).length === 0) {
      throw new ValidationFailedError('nothing to change', [
        { field: 'body', message: 'give plan_override, limits_override or both' },
      ]);
    }
    const updated = await adapters.store.update<OrganizationDoc>(Collections.organizations, id, patch);
    if (!updated) throw notFound(`organization ${id}`);
    logger
      .child({ component: 'operator-admin' })
      .info({ organization: id, by: p.userId, change: patch }, 'organization plan or limits changed');
    return ok(await organizationView(deps, updated));
  },

  /** Adds builds or episodes to an organization for the current month (UTC). */
  async admin_add_credits(ctx, deps) {
    const { adapters, logger } = deps;
    const p = requirePrincipal(ctx);
    const id = param(ctx, 'org_id');
    await loadOrganization(adapters.store, id);
    const b = body<{ kind: CreditDoc['kind']; quantity: number; note?: string }>(ctx);
    const month = monthOf();
    const credit = await adapters.store.insert<CreditDoc>(Collections.credits, {
      _id: newId('crd'),
      organization_id: id,
      month: month.month,
      kind: b.kind,
      quantity: b.quantity,
      note: b.note ?? '',
      created_by: p.userId,
      created_at: nowIso(),
    });
    logger
      .child({ component: 'operator-admin' })
      .info({ organization: id, by: p.userId, kind: b.kind, quantity: b.quantity }, 'credits added');
    const usage = await organizationUsage(adapters.store, deps, id, month);
    return created({
      id: credit._id,
      organization_id: id,
      month: credit.month,
      kind: credit.kind,
      quantity: credit.quantity,
      note: credit.note,
      created_at: credit.created_at,
      month_credits: usage.credits,
    });
  },
};
