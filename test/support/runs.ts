/**
 * Helpers of the run and external-agent tests: a workspace on the team plan with catalog
 * worlds built and published, profiles, evaluations, and waiting for runs. Everything goes
 * through the HTTP API except the plan override, which an operator would set.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { nextPageOf } from '../../cli/api-client.js';
import { Collections } from '../../core/collections.js';
import { scenarioDocId } from '../../scheduler/worlds/publish.js';
import type { Doc } from '../../core/ports.js';
import { buildAndWait } from './builds.js';
import { runDir } from './job.js';
import { client, type TestService } from './service.js';

type Client = ReturnType<typeof client>;

export const RUN_ENDED = ['finished', 'failed', 'cancelled'];

export interface CatalogWorkspace {
  ws: Awaited<ReturnType<TestService['workspace']>>;
  admin: Client;
  /** Catalog application name -> its published world version id. */
  worlds: Map<string, string>;
}

/**
 * A new workspace on the team plan with the catalog imported and the named applications
 * (default: all) built with `scenario_target` scenarios each.
 */
export async function catalogWorkspace(
  t: TestService,
  opts: { apps?: string[]; scenarioTarget?: number; name?: string; workspace?: CatalogWorkspace['ws'] } = {},
): Promise<CatalogWorkspace> {
  const ws = opts.workspace ?? (await t.workspace(opts.name));
  await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
  const admin = client(t.url, ws.key);
  const imported = await admin.post('/v1/applications/import-catalog');
  if (imported.status !== 201)
    throw new Error(`import-catalog answered ${imported.status}: ${JSON.stringify(imported.body)}`);
  const worlds = new Map<string, string>();
  for (const app of imported.body.registered as Array<{ id: string; name: string }>) {
    if (opts.apps && !opts.apps.includes(app.name)) continue;
    worlds.set(app.name, await catalogWorld(t, ws, admin, app, opts.scenarioTarget ?? 6));
  }
  return { ws, admin, worlds };
}

/** What a built catalog world is, kept for the run: its records as the build left them. */
interface BuiltWorld {
  projectId: string;
  organizationId: string;
  applicationId: string;
  world: Doc;
  version: Doc & { job_id: string; world_id: string };
  scenarios: Doc[];
  job: Doc | null;
}

/**
 * The published world version of a catalog application, built once per test run (issue 32):
 * the first file to need (application, scenario target, models, sandbox driver) builds it
 * through the API and keeps the records the build wrote (world, world version, scenarios, job)
 * in the run's folder; every later need, in any job, copies them into its own store with ids of
 * its own (its project, its application, new world, version, scenario and job ids), as if it
 * had built them. A build is deterministic for these inputs (scenarios, reference plans, checks
 * and calibration come from the source and the options), so the copy is what a build would make.
 * CRUCIBLE_TEST_BUILD_WORLDS=1 builds every time.
 */
async function catalogWorld(
  t: TestService,
  ws: CatalogWorkspace['ws'],
  admin: Client,
  app: { id: string; name: string },
  scenarioTarget: number,
): Promise<string> {
  const c = t.config;
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        app.name,
        scenarioTarget,
        c.defaultModel,
        c.customerModel,
        c.judgeModel,
        c.validationModel,
        c.sandbox,
      ]),
    )
    .digest('hex')
    .slice(0, 24);
  const kept = path.join(runDir(), 'worlds', `${key}.json`);
  if (process.env.CRUCIBLE_TEST_BUILD_WORLDS !== '1' && existsSync(kept))
    return copyWorld(t, JSON.parse(readFileSync(kept, 'utf8')) as BuiltWorld, ws, app.id);

  const { build, job } = await buildAndWait(admin, { application_id: app.id, scenario_target: scenarioTarget });
  if (job.status !== 'succeeded') throw new Error(`the build of ${app.name} ended ${job.status}: ${job.error}`);
  const store = t.svc.adapters.store;
  const version = (await store.get(Collections.worldVersions, build.world_version_id)) as BuiltWorld['version'];
  const built: BuiltWorld = {
    projectId: ws.projectId,
    organizationId: ws.organizationId,
    applicationId: app.id,
    world: (await store.get(Collections.worlds, version.world_id))!,
    version,
    scenarios: await store.find(Collections.scenarios, { world_version_id: version._id }),
    job: await store.get(Collections.jobs, version.job_id),
  };
  mkdirSync(path.dirname(kept), { recursive: true });
  const partial = `${kept}.${process.pid}.${randomBytes(3).toString('hex')}`;
  writeFileSync(partial, JSON.stringify(built));
  renameSync(partial, kept);
  return build.world_version_id as string;
}

/** Puts a kept build into `t`'s store for `ws`'s application `appId`; answers the new version's id. */
async function copyWorld(
  t: TestService,
  built: BuiltWorld,
  ws: CatalogWorkspace['ws'],
  appId: string,
): Promise<string> {
  const store = t.svc.adapters.store;
  const fresh = (id: string) => `${id.split('_')[0]}_${randomBytes(12).toString('hex')}`;
  const worldId = fresh(built.world._id);
  const versionId = fresh(built.version._id);
  const ids = new Map<string, string>([
    [built.projectId, ws.projectId],
    [built.organizationId, ws.organizationId],
    [built.applicationId, appId],
    [built.world._id, worldId],
    [built.version._id, versionId],
    [built.version.job_id, fresh(built.version.job_id)],
    // a scenario record's id is made from its version's and the scenario's (publish.ts)
    ...built.scenarios.map((s) => [s._id, scenarioDocId(versionId, s.scenario_id as string)] as [string, string]),
  ]);
  // every string that is one of the old ids becomes the new one, wherever it sits in a record
  const renamed = <T>(v: T): T =>
    (typeof v === 'string'
      ? (ids.get(v) ?? v)
      : Array.isArray(v)
        ? v.map(renamed)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, renamed(x)]))
          : v) as T;
  await store.insert(Collections.worlds, renamed(built.world));
  // the number a build takes from the world's sequence, so a later build of it is the next one
  const version = { ...renamed(built.version), version: await store.nextSequence(`world_version:${worldId}`) };
  if (built.job) await store.insert(Collections.jobs, renamed(built.job));
  await store.insert(Collections.worldVersions, version);
  for (const s of built.scenarios) await store.insert(Collections.scenarios, renamed(s));
  return version._id;
}

/** Creates an agent profile and returns it. */
export async function makeProfile(c: Client, body: Record<string, unknown>): Promise<any> {
  const r = await c.post('/v1/agent-profiles', body);
  if (r.status !== 201) throw new Error(`POST /v1/agent-profiles answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Starts a run; throws unless the answer is 202. */
export async function evaluate(
  c: Client,
  body: Record<string, unknown>,
): Promise<{ run_id: string; job_id: string; episodes: number; shards: number }> {
  const r = await c.post('/v1/evaluations', body);
  if (r.status !== 202) throw new Error(`POST /v1/evaluations answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Polls GET /v1/runs/{id} until `until(run)` holds (default: the run ended). */
export async function waitRun(
  c: Client,
  runId: string,
  until: (run: any) => boolean = (r) => RUN_ENDED.includes(r.status),
  timeoutMs = 300_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await c.get(`/v1/runs/${runId}`);
    if (r.status !== 200) throw new Error(`GET /v1/runs/${runId} answered ${r.status}: ${JSON.stringify(r.body)}`);
    if (until(r.body)) return r.body;
    if (Date.now() > deadline)
      throw new Error(`run ${runId} did not get there in time; last seen ${JSON.stringify(r.body).slice(0, 800)}`);
    await new Promise((res) => setTimeout(res, 150));
  }
}

/** Every episode of a run (GET /v1/runs/{id}/episodes, all its pages). */
export async function runEpisodes(c: Client, runId: string): Promise<any[]> {
  const all: any[] = [];
  // every page: the list is paged (`Link: <...>; rel="next"`), 100 to a page by default
  for (let next: string | null = `/v1/runs/${runId}/episodes`; next;) {
    const r: { status: number; body: unknown; headers: Headers } = await c.get(next);
    if (r.status !== 200) throw new Error(`GET ${next} answered ${r.status}: ${JSON.stringify(r.body)}`);
    all.push(...(r.body as any[]));
    next = nextPageOf(r.headers.get('link'));
  }
  return all;
}
