/**
 * The work the scale-out tests and bench/cluster.ts give a {@link Cluster}: a workspace on the
 * team plan (set in the store, as an operator would), shop-support built, and a profile played
 * by the lab's latency-bound loopback model ({@link startLatencyModel}), whose key the workers
 * read from CRUCIBLE_AGENT_LOOPBACK_KEY. Everything else goes through a gateway's HTTP API.
 */
import { adminCreateWorkspace } from '../../cli/admin.js';
import { Collections, chooseAdapters, createLogger, loadConfig } from '../../core/index.js';
import { buildAndWait } from './builds.js';
import type { Cluster } from './netns-cluster.js';
import { makeProfile, runEpisodes } from './runs.js';
import { client } from './service.js';

type Client = ReturnType<typeof client>;

/** The variable the workers read the loopback model's key from (a tenant-nameable one). */
export const LOOPBACK_KEY_VAR = 'CRUCIBLE_AGENT_LOOPBACK_KEY';

export interface ClusterWorkload {
  apiKey: string;
  /** A client of `gateway`. */
  admin: Client;
  worldVersionId: string;
  /** The profile played by the loopback model (at most `turns` turns per actor). */
  profileId: string;
}

export async function clusterWorkload(
  cluster: Cluster,
  gateway: string,
  opts: { scenarioTarget?: number; turns?: number; name?: string } = {},
): Promise<ClusterWorkload> {
  const config = loadConfig(cluster.envOf(gateway));
  const ws = await adminCreateWorkspace(config, {
    organization: opts.name ?? 'Hosts',
    project: 'default',
    keyName: 'first',
  });
  const adapters = await chooseAdapters(config, createLogger('silent'));
  try {
    await adapters.store.update(Collections.organizations, ws.organization_id, { plan_override: 'team' });
  } finally {
    await adapters.close();
  }
  const admin = client(cluster.gatewayUrl(gateway), ws.api_key);
  const imported = await admin.post('/v1/applications/import-catalog');
  if (imported.status !== 201) throw new Error(`import-catalog answered ${imported.status}`);
  const app = (imported.body.registered as Array<{ id: string; name: string }>).find((a) => a.name === 'shop-support')!;
  const { build, job } = await buildAndWait(admin, {
    application_id: app.id,
    scenario_target: opts.scenarioTarget ?? 6,
  });
  if (job.status !== 'succeeded') throw new Error(`the build ended ${job.status}: ${job.error}`);
  const cred = await admin.post('/v1/credentials', {
    name: 'loopback',
    kind: 'model_provider',
    env_var: LOOPBACK_KEY_VAR,
  });
  if (cred.status !== 201)
    throw new Error(`POST /v1/credentials answered ${cred.status}: ${JSON.stringify(cred.body)}`);
  const profile = await makeProfile(admin, {
    name: 'loopback',
    model: 'gpt-4o-mini',
    max_turns_per_actor: opts.turns ?? 4,
  });
  return { apiKey: ws.api_key, admin, worldVersionId: build.world_version_id, profileId: profile.id };
}

/** Resolves once `fn` answers true (errors count as false); rejects naming `what` after `ms`. */
export async function until(what: string, fn: () => Promise<boolean>, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Attempts of the run on worker `workerId` in one of `statuses` (running by default). */
export async function attemptsOn(
  admin: Client,
  runId: string,
  workerId: string,
  statuses = ['running'],
): Promise<number> {
  return (await runEpisodes(admin, runId)).filter((e) => e.worker_id === workerId && statuses.includes(e.status))
    .length;
}
