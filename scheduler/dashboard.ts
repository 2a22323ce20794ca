import { organizationReport, planView, usageView } from '../billing/index.js';
import { Collections } from '../core/index.js';
import { ok, requirePrincipal } from '../core/index.js';
import type { HandlerTable } from './context.js';
import type { DocumentStore } from '../core/index.js';
import { RUN_STATUSES, type RunDoc } from './runs/types.js';
import { runView } from './runs/views.js';

/** How many recent runs the overview lists. */
export const RECENT_RUNS = 5;

/**
 * What the overview screen shows about one project (GET /v1/dashboard adds usage and plan):
 * - `counts`: applications, worlds, world versions (all and published), agent profiles, runs;
 * - `runs_by_status`: every run status with its count (zero included, so a client can draw
 *   the same bars every time);
 * - `recent_runs`: the newest runs, as GET /v1/runs/{id} shows them (summary included).
 */
export async function dashboardOf(store: DocumentStore, projectId: string): Promise<Record<string, unknown>> {
  const mine = { project_id: projectId };
  const [applications, worlds, versions, published, profiles, runs] = await Promise.all([
    store.count(Collections.applications, mine),
    store.count(Collections.worlds, mine),
    store.count(Collections.worldVersions, mine),
    store.count(Collections.worldVersions, { ...mine, status: 'published' }),
    store.count(Collections.profiles, mine),
    store.count(Collections.runs, mine),
  ]);
  const runs_by_status: Record<string, number> = {};
  for (const s of RUN_STATUSES) runs_by_status[s] = await store.count(Collections.runs, { ...mine, status: s });
  const recent = await store.find<RunDoc>(Collections.runs, mine, {
    sort: { field: 'created_at', direction: 'desc' },
    limit: RECENT_RUNS,
  });
  return {
    project_id: projectId,
    counts: { applications, worlds, world_versions: versions, published_versions: published, profiles, runs },
    runs_by_status,
    recent_runs: recent.map((r) => runView(r)),
  };
}

/** GET /v1/dashboard: the project's overview plus its organization's usage and plan. */
export const dashboardHandlers: HandlerTable = {
  async get_dashboard(ctx, deps) {
    const p = requirePrincipal(ctx);
    const { organization, usage } = await organizationReport(deps, p.projectId);
    return ok({
      ...(await dashboardOf(deps.adapters.store, p.projectId)),
      usage: usageView(usage),
      plan: planView(organization),
    });
  },
};
