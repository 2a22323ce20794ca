import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { startEmbedded, type EmbeddedService } from '../../cli/roles.js';
import { Collections } from '../../core/collections.js';
import { createLogger } from '../../core/log.js';
import { events, waitEvent, waitJob } from '../support/builds.js';
import { client, startTestService, type TestService } from '../support/service.js';

/** Scenarios validated more than once in a build's stream (a resumed build must not redo saved work). */
const validatedTwice = (all: any[]) => {
  const ids = all.filter((e) => e.type === 'build.scenario.validated').map((e) => e.data.scenario_id);
  return ids.filter((id, i) => ids.indexOf(id) !== i);
};

describe('world build jobs: pause, resume, stop, retry and a restart mid-build', function () {
  this.timeout(600_000);
  let t: TestService;
  let admin: ReturnType<typeof client>;
  let appId: string;

  before(async () => {
    t = await startTestService();
    const ws = await t.workspace('Commands');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    admin = client(t.url, ws.key);
    appId = (await admin.post('/v1/applications/import-catalog')).body.registered[0].id;
  });
  after(async () => t?.close());

  async function startBuild(): Promise<any> {
    const r = await admin.post('/v1/world-builds', { application_id: appId, scenario_target: 6 });
    expect(r.status).to.equal(202);
    await waitEvent(admin, r.body.job_id, (e) => e.type === 'build.scenario.validated');
    return r.body;
  }

  it('pause stops at a safe point inside validation; resume continues from the saved verdicts and publishes', async () => {
    const build = await startBuild();
    const asked = await admin.post(`/v1/jobs/${build.job_id}/commands`, { command: 'pause' });
    expect(asked.status).to.equal(200);
    expect(asked.body).to.include({ pause_requested: true, cancel_requested: false });
    expect(asked.body.status).to.be.oneOf(['running', 'paused']);
    const paused = await waitJob(admin, build.job_id, (j) => j.status === 'paused');
    expect(paused.completed_phases).to.deep.equal(['fetch_source', 'analyse', 'derive_tools', 'generate_scenarios']);
    expect((await admin.get(`/v1/world-versions/${build.world_version_id}`)).body.status).to.equal('paused');

    const resumed = await admin.post(`/v1/jobs/${build.job_id}/commands`, { command: 'resume' });
    expect(resumed.body).to.include({ pause_requested: false, cancel_requested: false });
    const done = await waitJob(admin, build.job_id);
    expect(done).to.include({ status: 'succeeded', attempts: 1 });
    expect(validatedTwice(await events(admin, build.job_id))).to.deep.equal([]);
    expect((await admin.get(`/v1/world-versions/${build.world_version_id}`)).body.status).to.equal('published');
  });

  it('stop cancels a running build (its version too); retry continues it from the last saved phase with attempts 2', async () => {
    const build = await startBuild();
    const asked = await admin.post(`/v1/jobs/${build.job_id}/commands`, { command: 'stop' });
    expect(asked.body).to.include({ cancel_requested: true });
    const cancelled = await waitJob(admin, build.job_id);
    expect(cancelled.status).to.equal('cancelled');
    expect(cancelled.error).to.match(/stop/);
    expect((await admin.get(`/v1/world-versions/${build.world_version_id}`)).body.status).to.equal('cancelled');

    const resume = await admin.post(`/v1/jobs/${build.job_id}/commands`, { command: 'resume' });
    expect(resume.status).to.equal(409);
    const retried = await admin.post(`/v1/jobs/${build.job_id}/commands`, { command: 'retry' });
    expect(retried.status).to.equal(200);
    expect(retried.body).to.include({ pause_requested: false, cancel_requested: false });
    const done = await waitJob(admin, build.job_id);
    expect(done).to.include({ status: 'succeeded', attempts: 2, error: null });
    const all = await events(admin, build.job_id);
    expect(validatedTwice(all)).to.deep.equal([]);
    // phases saved before the stop were not started again
    expect(all.filter((e) => e.type === 'compiler.phase.started' && e.data.phase === 'fetch_source')).to.have.length(1);
    expect(
      all.filter((e) => e.type === 'compiler.phase.started' && e.data.phase === 'validate').map((e) => e.data.attempt),
    ).to.deep.equal([1, 2]);
    expect((await admin.get(`/v1/world-versions/${build.world_version_id}`)).body.status).to.equal('published');

    const again = await admin.post(`/v1/jobs/${build.job_id}/commands`, { command: 'retry' });
    expect(again.status).to.equal(409);
    expect(again.body.detail).to.match(/only a failed or cancelled job can be retried/);
  });

  it('deleting the application stops its running build; the world and version stay readable', async () => {
    const ws = await t.workspace('Deleting');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    const c = client(t.url, ws.key);
    const id = (await c.post('/v1/applications/import-catalog')).body.registered[0].id;
    const r = await c.post('/v1/world-builds', { application_id: id, scenario_target: 6 });
    await waitEvent(c, r.body.job_id, (e) => e.type === 'build.scenario.validated');
    const del = await c.del(`/v1/applications/${id}`);
    expect(del.status).to.equal(200);
    expect(del.body.stopped_builds).to.deep.equal([r.body.job_id]);
    expect((await waitJob(c, r.body.job_id)).status).to.equal('cancelled');
    const worlds = await c.get('/v1/worlds');
    expect(worlds.body[0].versions[0]).to.include({ id: r.body.world_version_id, status: 'cancelled' });
    expect((await c.get(`/v1/world-versions/${r.body.world_version_id}`)).status).to.equal(200);
  });

  it('a build survives a restart of the whole service on the same data folder and publishes', async () => {
    const restart = await startTestService();
    let svc: EmbeddedService | null = null;
    try {
      const ws = await restart.workspace('Restart');
      const c = client(restart.url, ws.key);
      const id = (await c.post('/v1/applications/import-catalog')).body.registered[0].id;
      const r = await c.post('/v1/world-builds', { application_id: id, scenario_target: 6 });
      await waitEvent(c, r.body.job_id, (e) => e.type === 'build.scenario.validated');
      await restart.svc.close();

      svc = await startEmbedded(restart.config, createLogger('silent'));
      const again = client(svc.gateway.url, ws.key);
      const done = await waitJob(again, r.body.job_id);
      expect(done).to.include({ status: 'succeeded', attempts: 1 });
      expect(done.result.scenarios).to.equal(6);
      expect(validatedTwice(await events(again, r.body.job_id))).to.deep.equal([]);
      const v = await again.get(`/v1/world-versions/${r.body.world_version_id}`);
      expect(v.body.status).to.equal('published');
    } finally {
      await svc?.close();
      rmSync(restart.dataDir, { recursive: true, force: true });
    }
  });

  it('commands answer 404 for unknown jobs, 422 for unknown commands, 403 without write', async () => {
    expect((await admin.post('/v1/jobs/job_nope/commands', { command: 'pause' })).status).to.equal(404);
    expect((await admin.post('/v1/jobs/job_nope/commands', { command: 'explode' })).status).to.equal(422);
    const jobs = (await admin.get('/v1/jobs')).body;
    const evaluatorOnly = client(t.url, await t.key((await admin.get('/v1/me')).body.project_id, ['evaluator']));
    expect((await evaluatorOnly.post(`/v1/jobs/${jobs[0].id}/commands`, { command: 'pause' })).status).to.equal(403);
  });
});
