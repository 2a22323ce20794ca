import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminCreateWorkspace } from '../../cli/admin.js';
import { loadConfig } from '../../core/config.js';
import { events, waitEvent, waitJob } from '../support/builds.js';
import { client } from '../support/service.js';
import { distributedEnv, exited, role, stopRoles, workersUp } from '../support/roles.js';

/**
 * A world build in the distributed shape: scheduler, two world-workers (each with its own
 * data folder, so neither has the other's sources) and a gateway as separate processes
 * over real NATS and Redis. Mid-build one worker is killed and the scheduler is killed and
 * started again: the build's lease lapses in Redis, the new scheduler takes the job over,
 * the remaining worker is handed the source archive it lacks, and the build publishes.
 */
describe('a world build survives a killed worker and a killed scheduler (NATS + Redis)', function () {
  this.timeout(600_000);
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  let env: Record<string, string>;
  let gatewayUrl: string;

  before(async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'crucible-dist-build-'));
    dirs.push(dataDir);
    ({ env, gatewayUrl } = await distributedEnv(dataDir));
    children.push(role('scheduler', env));
    for (const name of ['a', 'b']) {
      const own = mkdtempSync(path.join(tmpdir(), `crucible-dist-worker-${name}-`));
      dirs.push(own);
      children.push(role('worker', { ...env, SERVICE_DATA_DIR: own, WORKER_ID: `build-${name}-${process.pid}` }));
    }
    children.push(role('gateway', env));
  });

  after(async () => {
    await stopRoles(children);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('publishes with every scenario validated once', async () => {
    await workersUp(gatewayUrl, 2);
    const ws = await adminCreateWorkspace(loadConfig(env), {
      organization: 'Distributed builds',
      project: 'default',
      keyName: 'first',
    });
    const c = client(gatewayUrl, ws.api_key);
    const app = (await c.post('/v1/applications/import-catalog')).body.registered[0];
    const build = await c.post('/v1/world-builds', { application_id: app.id, scenario_target: 6 });
    expect(build.status).to.equal(202);
    await waitEvent(c, build.body.job_id, (e) => e.type === 'build.scenario.validated');

    children[1]!.kill('SIGKILL'); // worker a
    await exited(children[1]!);
    children[0]!.kill('SIGKILL'); // the scheduler, holding the job's lease
    await exited(children[0]!);
    children[0] = role('scheduler', env);

    const done = await waitJob(
      c,
      build.body.job_id,
      (j) => ['succeeded', 'failed', 'cancelled'].includes(j.status),
      300_000,
    );
    expect(done.status, done.error).to.equal('succeeded');
    expect(done.attempts).to.equal(1);
    expect(done.result.scenarios).to.equal(6);
    const all = await events(c, build.body.job_id);
    const ids = all.filter((e) => e.type === 'build.scenario.validated').map((e) => e.data.scenario_id);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(ids).to.have.length(6);
    const v = await c.get(`/v1/world-versions/${build.body.world_version_id}`);
    expect(v.body.status).to.equal('published');
  });
});
