import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminCreateWorkspace } from '../../cli/admin.js';
import { Collections } from '../../core/collections.js';
import { loadConfig } from '../../core/config.js';
import { SqliteStore } from '../../core/adapters/index.js';
import { SQLITE_FILE } from '../../core/choose-adapters.js';
import { buildAndWait } from '../support/builds.js';
import { AgentClient } from '../support/http-agent.js';
import { playRefund } from '../support/refund-agent.js';
import { evaluate, makeProfile, runEpisodes, waitRun } from '../support/runs.js';
import { client } from '../support/service.js';
import { connect } from '../support/sse.js';
import { distributedEnv, role, stopRoles, workersUp } from '../support/roles.js';

/**
 * Runs in the distributed shape: scheduler, two world-workers and a gateway as separate
 * processes on real NATS and Redis. Episodes spread over both workers, the actors on the
 * workers save to the store and publish their events through NATS (the run's stream shows
 * them live), and an external agent's actions reach a worker process through the gateway.
 */
describe('runs across separate scheduler, worker and gateway processes (NATS + Redis)', function () {
  this.timeout(600_000);
  const children: ChildProcess[] = [];
  let dataDir: string;
  let url: string;
  let admin: ReturnType<typeof client>;
  let key: string;
  let wv: string;

  const start = (name: string, env: Record<string, string>) => children.push(role(name, env));

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'crucible-runs-dist-'));
    const { env, gatewayUrl } = await distributedEnv(dataDir);
    start('scheduler', env);
    start('worker', { ...env, WORKER_ID: `runs-a-${process.pid}`, WORKER_CAPACITY: '3' });
    start('worker', { ...env, WORKER_ID: `runs-b-${process.pid}`, WORKER_CAPACITY: '3' });
    start('gateway', env);
    url = gatewayUrl;
    await workersUp(url, 2, 60_000);
    const ws = await adminCreateWorkspace(loadConfig(env), {
      organization: 'Distributed runs',
      project: 'default',
      keyName: 'first',
    });
    key = ws.api_key;
    // an operator would set the plan; the store is the SQLite file every role shares
    const store = new SqliteStore(path.join(dataDir, SQLITE_FILE));
    await store.update(Collections.organizations, ws.organization_id, { plan_override: 'team' });
    await store.close();
    admin = client(url, key);
    const apps = (await admin.post('/v1/applications/import-catalog')).body.registered;
    const { build, job } = await buildAndWait(admin, {
      application_id: apps.find((a: any) => a.name === 'shop-support').id,
      scenario_target: 9,
    });
    expect(job.status, job.error).to.equal('succeeded');
    wv = build.world_version_id;
  });

  after(async () => {
    await stopRoles(children);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('spreads a run over both workers, streams its events live, and scores the reference agent', async () => {
    const reference = await makeProfile(admin, { name: 'reference', model: 'builtin:reference' });
    const started = await evaluate(admin, { world_version_id: wv, profile_ids: [reference.id], repeats: 2 });
    const sse = await connect(`${url}/v1/runs/${started.run_id}/events`, key);
    const streamed = await sse.collect();
    sse.close();
    const run = await waitRun(admin, started.run_id);
    expect(run.status, run.error).to.equal('finished');
    expect(run.summary.profiles['reference@v1'].mean_reward).to.be.at.least(0.95);
    const items = await runEpisodes(admin, started.run_id);
    expect(new Set(items.map((e) => e.worker_id))).to.deep.equal(
      new Set([`runs-a-${process.pid}`, `runs-b-${process.pid}`]),
    );
    const types = streamed.map((s) => s.event.type);
    expect(types[types.length - 1]).to.equal('stream.end');
    expect(types.filter((t) => t === 'episode.finished')).to.have.length(started.episodes);
    expect(types).to.include.members(['turn.offered', 'action.accepted', 'checks.finished', 'run.finished']);
  });

  it('an external agent acts through the gateway on an episode hosted by a worker process', async () => {
    const byo = await makeProfile(admin, { name: 'byo', driver: 'external' });
    const started = await evaluate(admin, {
      world_version_id: wv,
      profile_ids: [byo.id],
      scenario_ids: ['refund-damaged--v1'],
      repeats: 2,
      default_stress: false,
    });
    const agentKey = (await admin.post('/v1/api-keys', { name: 'agent', scopes: ['agent'] })).body.api_key;
    const agent = new AgentClient(url, agentKey);
    const logs = await Promise.all((await runEpisodes(admin, started.run_id)).map((e) => playRefund(agent, e.id)));
    expect(logs.map((l) => l.status)).to.deep.equal(['finished', 'finished']);
    const run = await waitRun(admin, started.run_id);
    expect(run.summary.profiles['byo@v1']).to.include({ mean_reward: 1, scored: 2 });
  });
});
