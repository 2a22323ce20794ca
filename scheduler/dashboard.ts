import { C } from '../core/collections.js';
import type { DocumentStore } from '../core/ports.js';
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
    store.count(C.applications, mine),
    store.count(C.worlds, mine),
    store.count(C.worldVersions, mine),
    store.count(C.worldVersions, { ...mine, status: 'published' }),
    store.count(C.profiles, mine),
    store.count(C.runs, mine),
  ]);
  const runs_by_status: Record<string, number> = {};
  for (const s of RUN_STATUSES) runs_by_status[s] = await store.count(C.runs, { ...mine, status: s });
  const recent = await store.find<RunDoc>(C.runs, mine, {
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
