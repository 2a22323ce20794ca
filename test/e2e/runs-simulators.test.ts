import { expect } from 'chai';
import { buildAndWait, events } from '../support/builds.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

const KEY_VAR = 'CRUCIBLE_TEST_SIMULATORS_KEY';

/**
 * Pinned simulators (docs/runs.md, Pinned simulators): with the server's default judge set
 * (SERVICE_JUDGE_MODEL), a project without a model credential still runs (scripted customer,
 * no judge, recorded on the run); once it has one its runs pin the judge with its price; two
 * runs with different judges are compared with a caveat naming both; a world version built with the judge pins it
 * in its manifest and content hash; and a run on it is refused at creation (422) once the
 * project's credential is unusable.
 */
describe('runs: pinned customer and judge', function () {
  this.timeout(600_000);
  let t: TestService;
  let models: ModelServer;
  let cw: CatalogWorkspace;
  let wv: string;
  let appId: string;
  let profileId: string;
  let scripted: string;
  let judged: string;

  before(async () => {
    // every model call here is the judge's: it finds each check kept, but not for the builds'
    // judge-addressing calibration agent, whose conversation only orders the judge to pass
    models = await startModelServer((b) => ({
      content: JSON.stringify(
        b.messages.some((m) => m.content?.includes('pass this episode'))
          ? { passed: false, reason: 'an order to the judge does no work' }
          : { passed: true, reason: 'kept' },
      ),
    }));
    t = await startTestService({ OPENAI_BASE_URL: models.baseUrl, SERVICE_JUDGE_MODEL: 'gpt-4o-mini' });
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 2, name: 'Simulators' });
    wv = cw.worlds.get('shop-support')!;
    appId = (await cw.admin.get(`/v1/world-versions/${wv}`)).body.application_id;
    profileId = (await makeProfile(cw.admin, { name: 'ref', model: 'builtin:reference' })).id;
  });
  after(async () => {
    await t?.close();
    await models?.close();
    delete process.env[KEY_VAR];
  });

  it('without a model credential the server default judge does not apply: the run records the scripted customer and no judge, and its episodes run', async () => {
    const v = (await cw.admin.get(`/v1/world-versions/${wv}`)).body;
    expect(v.manifest.judge).to.equal(undefined);
    const run = await evaluate(cw.admin, { world_version_id: wv, profile_ids: [profileId], repeats: 1 });
    const done = await waitRun(cw.admin, run.run_id);
    expect(done.status).to.equal('finished');
    expect(done.simulators).to.deep.equal({
      customer: { model: 'builtin:scripted', from: 'none', prices: [] },
      judge: { model: null, from: 'none', prices: [] },
    });
    const eps = await runEpisodes(cw.admin, run.run_id);
    expect(eps.map((e) => e.environment_error)).to.deep.equal(eps.map(() => null));
    expect(models.requests).to.have.length(0);
    scripted = run.run_id;
  });

  it("with a credential the run pins the server's judge with its price, and its episodes use it", async () => {
    process.env[KEY_VAR] = 'sk-simulators';
    const made = await cw.admin.post('/v1/credentials', { name: 'provider', kind: 'model_provider', env_var: KEY_VAR });
    expect(made.status).to.equal(201);
    const run = await evaluate(cw.admin, { world_version_id: wv, profile_ids: [profileId], repeats: 1 });
    const done = await waitRun(cw.admin, run.run_id);
    expect(done.status).to.equal('finished');
    const price = (await cw.admin.get('/v1/pricing')).body.models.find((m: any) => m.model === 'gpt-4o-mini');
    expect(done.simulators.customer).to.deep.equal({ model: 'builtin:scripted', from: 'none', prices: [] });
    expect(done.simulators.judge).to.include({ model: 'gpt-4o-mini', from: 'server_default' });
    expect(done.simulators.judge.prices).to.have.length(1);
    expect(done.simulators.judge.prices[0]).to.include({
      model: 'gpt-4o-mini',
      input_per_mtok: price.input_per_mtok,
      output_per_mtok: price.output_per_mtok,
    });
    // the judge judged this run's told checks: its verdicts are in the oracles
    expect(models.requests.length).to.be.greaterThan(0);
    expect(models.requests.every((r) => r.body.model === 'gpt-4o-mini')).to.equal(true);
    const eps = await runEpisodes(cw.admin, run.run_id);
    const verdicts = eps.flatMap((e) => e.oracle?.judgements ?? []);
    expect(verdicts.length, JSON.stringify(eps[0]?.oracle)).to.be.greaterThan(0);
    expect(
      verdicts.every((j: any) => j.model.startsWith('gpt-4o-mini')),
      JSON.stringify(verdicts),
    ).to.equal(true);
    const started = (await events(cw.admin, run.run_id)).find((e) => e.type === 'run.started');
    expect(started.data.simulators).to.deep.equal({ customer: 'builtin:scripted', judge: 'gpt-4o-mini' });
    judged = run.run_id;
  });

  it('compare answers 200 for runs with different judges, naming both as a caveat, and the simulators for the same ones', async () => {
    // clarification 11: two runs of one world version compare over their shared scenarios
    const diff = await cw.admin.get(`/v1/compare?run_a=${scripted}&run_b=${judged}`);
    expect(diff.status, JSON.stringify(diff.body)).to.equal(200);
    expect(diff.body.simulators).to.include({ same: false, difference: 'models' });
    expect(diff.body.simulators.caveat).to.match(/different simulators/);
    expect(diff.body.simulators.caveat).to.contain('judge gpt-4o-mini');
    expect(diff.body.simulators.caveat).to.contain('no judge');
    expect(diff.body.caveats).to.deep.equal([diff.body.simulators.caveat]);
    expect(diff.body.comparisons).to.have.length(1);
    const same = await cw.admin.get(`/v1/compare?run_a=${judged}&run_b=${judged}`);
    expect(same.status, JSON.stringify(same.body)).to.equal(200);
    expect(same.body.simulators).to.include({ same: true });
    expect(same.body.simulators.judge.model).to.equal('gpt-4o-mini');
    const one = await cw.admin.get(`/v1/compare?run_a=${scripted}`);
    expect(one.status).to.equal(200);
    expect(one.body.simulators.judge.model).to.equal(null);
  });

  let pinnedWv: string;
  it("a build pins the server's default judge in the version's manifest and content hash", async () => {
    const { build, job } = await buildAndWait(cw.admin, { application_id: appId, scenario_target: 2 });
    expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
    pinnedWv = build.world_version_id;
    const before = (await cw.admin.get(`/v1/world-versions/${wv}`)).body;
    const after = (await cw.admin.get(`/v1/world-versions/${pinnedWv}`)).body;
    expect(after.manifest.judge).to.deep.equal({ model: 'gpt-4o-mini' });
    expect(after.world_content_hash).to.not.equal(before.world_content_hash);
  });

  it('a run whose pinned judge cannot run for the project is refused at creation with a 422 saying why', async () => {
    delete process.env[KEY_VAR];
    const r = await cw.admin.post('/v1/evaluations', {
      world_version_id: pinnedWv,
      profile_ids: [profileId],
      repeats: 1,
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(422);
    expect(r.body.detail[0].field).to.equal('world_version_id');
    expect(r.body.detail[0].message).to.match(/judge model gpt-4o-mini cannot run for this project/);
    expect(r.body.detail[0].message).to.match(/model provider/);
    // nothing was stored for it
    const runs = (await cw.admin.get('/v1/runs')).body as any[];
    expect(runs.filter((x) => x.world_version_id === pinnedWv)).to.deep.equal([]);
    // the version built without a pinned judge still runs, without the server's default it cannot pay for
    const ok = await cw.admin.post('/v1/evaluations', { world_version_id: wv, profile_ids: [profileId], repeats: 1 });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(202);
    const done = await waitRun(cw.admin, ok.body.run_id);
    expect(done.simulators.judge).to.deep.equal({ model: null, from: 'none', prices: [] });
  });
});
