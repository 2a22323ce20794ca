/**
 * Helpers of the run and external-agent tests: a workspace on the team plan with catalog
 * worlds built and published, profiles, evaluations, and waiting for runs. Everything goes
 * through the HTTP API except the plan override, which an operator would set.
 */
import { nextPageOf } from '../../cli/api-client.js';
import { Collections } from '../../core/collections.js';
import { buildAndWait } from './builds.js';
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
    const { build, job } = await buildAndWait(admin, {
      application_id: app.id,
      scenario_target: opts.scenarioTarget ?? 6,
    });
    if (job.status !== 'succeeded') throw new Error(`the build of ${app.name} ended ${job.status}: ${job.error}`);
    worlds.set(app.name, build.world_version_id);
  }
  return { ws, admin, worlds };
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
