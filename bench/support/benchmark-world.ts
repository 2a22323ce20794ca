import path from 'node:path';
import { CATALOG_DIR } from '../../catalog/index.js';
import { waitJob } from '../../test/support/builds.js';
import type { CatalogWorkspace } from '../../test/support/runs.js';
import type { TestService } from '../../test/support/service.js';
import { packDir, uploadSource } from '../../test/support/sources.js';

/**
 * A catalog benchmark (index.yaml `benchmarks`, not registered by import-catalog) as a
 * published world version of `cw`'s project: its folder uploaded as the application's
 * source, as `crucible worlds import ... --upload` does, then built (`expand: all`: every
 * task a scenario, each validated). Answers the world version id.
 */
export async function benchmarkWorld(t: TestService, cw: CatalogWorkspace, name: string): Promise<string> {
  const created = await cw.admin.post('/v1/applications', { name, source: { kind: 'upload' } });
  if (created.status !== 201)
    throw new Error(`POST /v1/applications answered ${created.status}: ${JSON.stringify(created.body)}`);
  const key = await t.key(cw.ws.projectId, ['admin']);
  const up = await uploadSource(t.url, key, created.body.id, await packDir(path.join(CATALOG_DIR, 'apps', name)));
  if (up.status >= 300) throw new Error(`the upload answered ${up.status}: ${JSON.stringify(up.body)}`);
  const t0 = Date.now();
  const build = await cw.admin.post('/v1/world-builds', { application_id: created.body.id });
  if (build.status !== 202)
    throw new Error(`POST /v1/world-builds answered ${build.status}: ${JSON.stringify(build.body)}`);
  // every task is validated (replays, calibration, adversaries): longer than a catalog build
  const job = await waitJob(cw.admin, build.body.job_id, undefined, 1_800_000);
  if (job.status !== 'succeeded') throw new Error(`the build of ${name} ended ${job.status}: ${job.error}`);
  const version = (await cw.admin.get(`/v1/world-versions/${build.body.world_version_id}`)).body as {
    validation_report?: { splits?: unknown; withdrawn?: unknown };
  };
  console.log(
    `${name}: built in ${((Date.now() - t0) / 1000).toFixed(1)} s; splits ${JSON.stringify(version.validation_report?.splits)}`,
  );
  return build.body.world_version_id as string;
}
