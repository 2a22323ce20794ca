import { expect } from 'chai';
import { readCatalogIndex } from '../../catalog/index.js';
import { Collections } from '../../core/collections.js';
import { buildAndWait, events } from '../support/builds.js';
import { client, startTestService, type TestService } from '../support/service.js';

const PHASES = ['fetch_source', 'analyse', 'derive_tools', 'generate_scenarios', 'validate', 'repair', 'publish'];

describe('world builds of every catalog application', function () {
  this.timeout(600_000);
  let t: TestService;
  let admin: ReturnType<typeof client>;
  let ws: Awaited<ReturnType<TestService['workspace']>>;
  const built = new Map<string, { build: any; job: any }>();
  let apps: Array<{ id: string; name: string }>;

  before(async () => {
    t = await startTestService();
    ws = await t.workspace('Builders');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    admin = client(t.url, ws.key);
    apps = (await admin.post('/v1/applications/import-catalog')).body.registered;
    expect(apps.map((a) => a.name)).to.deep.equal((await readCatalogIndex()).map((e) => e.name));
    for (const app of apps)
      built.set(app.name, await buildAndWait(admin, { application_id: app.id, scenario_target: 9 }));
  });
  after(async () => t?.close());

  it('each build answers 202 with job, world, world version and version 1, and its job succeeds through every phase', () => {
    for (const [name, { build, job }] of built) {
      expect(build, name).to.have.keys('job_id', 'world_id', 'world_version_id', 'version');
      expect(build.version, name).to.equal(1);
      expect(job, name).to.include({
        kind: 'world_build',
        status: 'succeeded',
        attempts: 1,
        spent_usd: 0,
        budget_usd: null,
        error: null,
      });
      expect(job.completed_phases, name).to.deep.equal(PHASES);
      expect(job.result, name).to.include({ world_version_id: build.world_version_id, scenarios: 9, withdrawn: 0 });
    }
  });

  it('publishes 9 approved scenarios across train, dev and holdout, each passing its reference replay twice with identical results', async () => {
    for (const [name, { build }] of built) {
      const r = await admin.get(`/v1/world-versions/${build.world_version_id}/scenarios`);
      expect(r.status, name).to.equal(200);
      const scenarios = r.body.filter((s: any) => s.status !== 'withdrawn');
      expect(scenarios, name).to.have.length(9);
      expect(new Set(scenarios.map((s: any) => s.split)), name).to.deep.equal(new Set(['train', 'dev', 'holdout']));
      for (const s of scenarios) {
        expect(s.status, s.scenario_id).to.equal('approved');
        expect(s.specification.id, s.scenario_id).to.equal(s.scenario_id);
        expect(s.specification.reference_plan, s.scenario_id).to.be.an('object');
        expect(s.validation_report, s.scenario_id).to.include({ passed: true, deterministic: true });
        expect(s.validation_report.replays, s.scenario_id).to.have.length(2);
        expect(
          s.validation_report.replays.every((x: any) => x.passed && x.check_results.every((c: any) => c.passed)),
          s.scenario_id,
        ).to.equal(true);
        expect(s.validation_report.replays[0].fingerprint, s.scenario_id).to.equal(
          s.validation_report.replays[1].fingerprint,
        );
      }
      const one = await admin.get(`/v1/scenarios/${scenarios[0].id}`);
      expect(one.status).to.equal(200);
      expect(one.body).to.deep.equal(scenarios[0]);
    }
  });

  it('the world version holds the manifest, validation report, provenance and content hash', async () => {
    for (const [name, { build }] of built) {
      const r = await admin.get(`/v1/world-versions/${build.world_version_id}`);
      expect(r.status).to.equal(200);
      const v = r.body;
      expect(v).to.include({ id: build.world_version_id, world_id: build.world_id, version: 1, status: 'published' });
      expect(v.world_content_hash).to.match(/^[0-9a-f]{64}$/);
      expect(v.manifest.name).to.equal(name);
      expect(v.manifest.services.length).to.be.greaterThan(0);
      expect(v.manifest.roles.filter((x: any) => x.complete)).to.have.length(1);
      expect(v.manifest.tools.length).to.be.greaterThan(3);
      expect(v.validation_report).to.include({
        passed: 9,
        withdrawn: 0,
        determinism_checked: true,
        replays_per_scenario: 2,
      });
      const entry = (await readCatalogIndex()).find((e) => e.name === name)!;
      expect(v.provenance.application).to.deep.equal({ id: apps.find((a) => a.name === name)!.id, name });
      expect(v.provenance.source).to.include({ kind: 'upload', digest: entry.digest });
      expect(v.provenance.source.catalog).to.deep.equal({ name, digest: entry.digest });
      expect(v.provenance.build_options).to.deep.equal({
        model: 'builtin:reference',
        budget_usd: null,
        auto_approve: true,
        scenario_target: 9,
        max_repair_rounds: 2,
        check_determinism: true,
        // the customer and judge options default to none: the scripted customer, string matching
        customer_model: null,
        judge_model: null,
      });
      expect(v.provenance.builder_version).to.be.a('string');
    }
  });

  it('a second build of the same pinned input gives version 2 with the same content hash', async () => {
    const app = apps[0]!;
    const first = built.get(app.name)!;
    const again = await buildAndWait(admin, { application_id: app.id, scenario_target: 9 });
    expect(again.build.world_id).to.equal(first.build.world_id);
    expect(again.build.version).to.equal(2);
    expect(again.job.status).to.equal('succeeded');
    expect(again.job.result.world_content_hash).to.equal(first.job.result.world_content_hash);
    const other = await buildAndWait(admin, { application_id: app.id, scenario_target: 8 });
    expect(other.job.result.world_content_hash, 'other options, other scenarios, other hash').not.to.equal(
      first.job.result.world_content_hash,
    );
  });

  it('records compiler.phase.started/finished around every phase and job.status_changed on every status', async () => {
    const { build } = built.values().next().value!;
    const all = await events(admin, build.job_id);
    const phases = all
      .filter((e) => e.type.startsWith('compiler.phase.'))
      .map((e) => `${e.type.slice('compiler.phase.'.length)} ${e.data.phase}`);
    expect(phases).to.deep.equal(PHASES.flatMap((p) => [`started ${p}`, `finished ${p}`]));
    expect(all.filter((e) => e.type === 'job.status_changed').map((e) => e.data.status)).to.deep.equal([
      'queued',
      'running',
      'succeeded',
    ]);
    expect(all.filter((e) => e.type === 'build.scenario.validated')).to.have.length(9);
    expect(all.some((e) => e.type === 'build.published')).to.equal(true);
  });

  it('lists worlds with their versions; lists jobs newest first with a kind filter', async () => {
    const worlds = await admin.get('/v1/worlds');
    expect(worlds.status).to.equal(200);
    expect(worlds.body.map((w: any) => w.name).sort()).to.deep.equal(apps.map((a) => a.name).sort());
    const first = worlds.body.find((w: any) => w.name === apps[0]!.name);
    expect(first.versions.map((v: any) => v.version)).to.deep.equal([3, 2, 1]);
    expect(first.versions.every((v: any) => v.status === 'published')).to.equal(true);

    const jobs = await admin.get('/v1/jobs?kind=world_build');
    expect(jobs.status).to.equal(200);
    expect(jobs.body).to.have.length(5);
    const created = jobs.body.map((j: any) => j.created_at);
    expect(created).to.deep.equal([...created].sort().reverse());
    expect(jobs.body[0]).to.include.keys(
      'id',
      'kind',
      'status',
      'attempts',
      'spent_usd',
      'budget_usd',
      'completed_phases',
      'result',
      'error',
    );
    expect((await admin.get('/v1/jobs?kind=dataset_export')).body).to.deep.equal([]);
  });

  it('access: jobs and world versions need evaluator; a read key gets 403; other projects get 404', async () => {
    const { build } = built.values().next().value!;
    const reader = client(t.url, await t.key(ws.projectId, ['read']));
    const writer = client(t.url, await t.key(ws.projectId, ['write']));
    const evaluator = client(t.url, await t.key(ws.projectId, ['evaluator']));
    expect((await reader.get('/v1/jobs')).status).to.equal(403);
    expect((await writer.get(`/v1/jobs/${build.job_id}`)).status).to.equal(403);
    expect((await reader.get(`/v1/world-versions/${build.world_version_id}`)).status).to.equal(403);
    expect((await reader.get('/v1/worlds')).status).to.equal(200);
    expect((await evaluator.get('/v1/jobs')).status).to.equal(200);
    expect((await evaluator.get(`/v1/world-versions/${build.world_version_id}/scenarios`)).status).to.equal(200);
    expect((await evaluator.post('/v1/world-builds', { application_id: apps[0]!.id })).status).to.equal(403);
    const other = client(t.url, (await t.workspace('Elsewhere')).key);
    expect((await other.get(`/v1/jobs/${build.job_id}`)).status).to.equal(404);
    expect((await other.get(`/v1/world-versions/${build.world_version_id}`)).status).to.equal(404);
    expect((await other.post('/v1/world-builds', { application_id: apps[0]!.id })).status).to.equal(404);
  });

  it("402 past the plan's world builds for the month; the month's build credits make room for more", async () => {
    const store = t.svc.adapters.store;
    const month = new Date().toISOString().slice(0, 7);
    // the builds the tests above started this month: the limit is set right at it
    const started = (await admin.get('/v1/jobs?kind=world_build')).body.length;
    expect(started).to.be.at.least(3);
    await store.update(Collections.organizations, ws.organizationId, {
      limits_override: { builds_per_month: started },
    });
    try {
      const over = await admin.post('/v1/world-builds', { application_id: apps[0]!.id });
      expect(over.status).to.equal(402);
      expect(over.body.detail).to.equal(
        `the team plan allows ${started} world builds in ${month} and ${started} have been started; add build credits or change plan`,
      );
      await store.insert(Collections.credits, {
        _id: `crd_test_${Date.now()}`,
        organization_id: ws.organizationId,
        month,
        kind: 'builds',
        quantity: 1,
        note: 'test',
        created_by: null,
        created_at: new Date().toISOString(),
      });
      const credited = await admin.post('/v1/world-builds', { application_id: apps[0]!.id, scenario_target: 3 });
      expect(credited.status, JSON.stringify(credited.body)).to.equal(202);
      await admin.post(`/v1/jobs/${credited.body.job_id}/commands`, { command: 'stop' });
      const again = await admin.post('/v1/world-builds', { application_id: apps[0]!.id });
      expect(again.status).to.equal(402);
      expect(again.body.detail).to.equal(
        `the team plan allows ${started + 1} world builds in ${month} and ${started + 1} have been started; add build credits or change plan`,
      );
    } finally {
      await store.update(Collections.organizations, ws.organizationId, { limits_override: null });
    }
  });
});
