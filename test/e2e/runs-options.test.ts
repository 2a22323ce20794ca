import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import { startModelServer, type ModelServer } from '../support/model-server.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';

/**
 * POST /v1/evaluations with every field: defaults, splits, scenario_ids, repeats,
 * default_stress, max_episode_cost_usd and budget_usd (against a priced model on a local
 * OpenAI-compatible server), and the refusals: 404, 409 (not published), 422 and 402.
 */
describe('runs: evaluation options and refusals', function () {
  this.timeout(600_000);
  let t: TestService;
  let models: ModelServer;
  let cw: CatalogWorkspace;
  let wv: string;
  let reference: any;
  let priced: any;
  let scenarios: any[];

  before(async () => {
    models = await startModelServer(() => ({
      tool_call: { name: 'wait', arguments: {} },
      usage: { prompt_tokens: 1000, completion_tokens: 50 },
    }));
    t = await startTestService({ OPENAI_BASE_URL: models.baseUrl, WORKER_CAPACITY: '2' });
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
    wv = cw.worlds.get('shop-support')!;
    reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
    await cw.admin.post('/v1/credentials', {
      name: 'models',
      kind: 'model_provider',
      env_var: 'CRUCIBLE_TEST_RUNS_MODEL_KEY',
    });
    process.env.CRUCIBLE_TEST_RUNS_MODEL_KEY = 'sk-test';
    priced = await makeProfile(cw.admin, { name: 'priced', model: 'gpt-4o-mini', max_turns_per_actor: 40 });
    scenarios = (await cw.admin.get(`/v1/world-versions/${wv}/scenarios`)).body;
  });
  after(async () => {
    await t?.close();
    await models?.close();
  });

  it('fills every default: all three splits, repeats 2, default stress on, no budgets; the run shows its configuration', async () => {
    const started = await evaluate(cw.admin, { world_version_id: wv, profile_ids: [reference.id] });
    expect(started).to.have.keys('run_id', 'job_id', 'episodes', 'shards');
    expect(started.episodes).to.equal(scenarios.length * 2);
    expect(started.shards).to.equal(1);
    const run = await waitRun(cw.admin, started.run_id);
    expect(run.config).to.deep.equal({
      world_version_id: wv,
      profile_ids: [reference.id],
      splits: ['train', 'dev', 'holdout'],
      scenario_ids: null,
      repeats: 2,
      default_stress: true,
      budget_usd: null,
      max_episode_cost_usd: null,
    });
    expect(run).to.include({
      run_id: started.run_id,
      status: 'finished',
      job_id: started.job_id,
      world_version_id: wv,
    });
    expect(run.world_content_hash).to.match(/^[0-9a-f]{64}$/);
    const job = (await cw.admin.get(`/v1/jobs/${started.job_id}`)).body;
    expect(job).to.include({ kind: 'run', status: 'succeeded' });
    for (const shard of run.shard_ids)
      expect((await cw.admin.get(`/v1/jobs/${shard}`)).body).to.include({ kind: 'run_shard', status: 'succeeded' });
    const listed = (await cw.admin.get('/v1/runs')).body;
    expect(listed[0].run_id).to.equal(started.run_id);
  });

  it('runs only the chosen splits, or only scenario_ids, and repeats each as asked; rejected scenarios never run', async () => {
    const holdout = scenarios.filter((s) => s.split === 'holdout');
    const bySplit = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [reference.id],
      splits: ['holdout'],
      repeats: 3,
    });
    expect(bySplit.episodes).to.equal(holdout.length * 3);
    await waitRun(cw.admin, bySplit.run_id);
    const items = await runEpisodes(cw.admin, bySplit.run_id);
    expect(new Set(items.map((e) => e.split))).to.deep.equal(new Set(['holdout']));
    expect(items.map((e) => e.repeat).sort()).to.deep.equal(holdout.flatMap(() => [1, 2, 3]).sort());

    const two = [scenarios[0].id, scenarios[1].scenario_id];
    const byId = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [reference.id],
      scenario_ids: two,
      repeats: 1,
      default_stress: false,
    });
    expect(byId.episodes).to.equal(2);
    const run = await waitRun(cw.admin, byId.run_id);
    expect(run.config).to.include({ default_stress: false, repeats: 1 });
    expect((await runEpisodes(cw.admin, byId.run_id)).map((e) => e.scenario).sort()).to.deep.equal(
      [scenarios[0].scenario_id, scenarios[1].scenario_id].sort(),
    );
    expect(run.summary.profiles['reference@v1']).to.include({ episodes: 2, k: 1 });

    const rejected = scenarios.find((s) => s.split === 'train')!;
    expect((await cw.admin.post(`/v1/scenarios/${rejected.id}/reject`)).status).to.equal(200);
    const train = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [reference.id],
      splits: ['train'],
      repeats: 1,
    });
    expect(train.episodes).to.equal(scenarios.filter((s) => s.split === 'train').length - 1);
    const refused = await cw.admin.post('/v1/evaluations', {
      world_version_id: wv,
      profile_ids: [reference.id],
      scenario_ids: [rejected.id],
    });
    expect(refused.status).to.equal(422);
    expect(refused.body.detail[0]).to.include({ field: 'scenario_ids[0]' });
    expect(refused.body.detail[0].message).to.match(/rejected; only approved scenarios run/);
    expect((await cw.admin.post(`/v1/scenarios/${rejected.id}/approve`)).status).to.equal(200);
    await waitRun(cw.admin, train.run_id);
  });

  it('ends an episode whose model spend reaches max_episode_cost_usd with termination budget', async () => {
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [priced.id],
      scenario_ids: [scenarios[0].id],
      repeats: 1,
      max_episode_cost_usd: 0.0005,
    });
    const run = await waitRun(cw.admin, started.run_id);
    expect(run.status).to.equal('finished');
    const [ep] = await runEpisodes(cw.admin, started.run_id);
    expect(ep).to.include({ status: 'finished', termination: 'budget' });
    // 1000 prompt + 50 completion tokens of gpt-4o-mini per turn: $0.00018, so the third turn crosses $0.0005
    expect(ep.cost_usd).to.be.closeTo(0.00054, 1e-9);
    expect(ep.tokens).to.deep.equal({ prompt: 3000, completion: 150, total: 3150 });
    expect(run.summary.profiles['priced@v1']).to.include({ tokens: 3150 });
    expect(run.summary.profiles['priced@v1'].cost_usd).to.be.closeTo(0.00054, 1e-9);
    expect(models.requests.every((r) => r.authorization === 'Bearer sk-test')).to.equal(true);
  });

  it('stops itself when its spend reaches budget_usd: the run fails naming the budget, and every episode is accounted for', async () => {
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [priced.id],
      repeats: 2,
      budget_usd: 0.001,
    });
    const run = await waitRun(cw.admin, started.run_id);
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/budget/);
    expect(run.spent_usd).to.be.at.least(0.001);
    expect(run.summary.episodes).to.include({ planned: started.episodes, queued: 0, running: 0 });
    const items = await runEpisodes(cw.admin, started.run_id);
    expect(items.some((e) => e.termination === 'budget')).to.equal(true);
    expect(items.some((e) => e.status === 'cancelled' && e.termination === 'stopped')).to.equal(true);
    const job = (await cw.admin.get(`/v1/jobs/${started.job_id}`)).body;
    expect(job).to.include({ status: 'failed', budget_usd: 0.001 });
    expect(job.spent_usd).to.equal(run.spent_usd);
  });

  it('holds budget_usd across episodes running at once: each placed episode reserves its share and stops at it', async () => {
    // one call of the priced model: 1000 prompt + 50 completion tokens of gpt-4o-mini
    const CALL = 0.00018;
    const started = await evaluate(cw.admin, {
      world_version_id: wv,
      profile_ids: [priced.id],
      repeats: 2,
      budget_usd: 0.002,
    });
    const run = await waitRun(cw.admin, started.run_id);
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/budget/);
    const attempts = await t.svc.adapters.store.find<any>(Collections.runEpisodes, { run_id: started.run_id });
    const ran = attempts.filter((e) => e.started_at !== null);
    expect(ran.length).to.be.at.least(2);
    for (const e of ran) {
      expect(e.reserved_usd, e._id).to.be.a('number');
      // an episode overshoots its share by at most the call that crossed it
      expect(e.cost_usd).to.be.at.most(e.reserved_usd + CALL + 1e-9);
    }
    // two ran at once (WORKER_CAPACITY 2) and split what was left instead of each holding all of it
    expect(ran[0]!.reserved_usd + ran[1]!.reserved_usd).to.be.at.most(0.002 + 1e-9);
    // so the run overshoots by at most one call per episode running when the money ran out
    expect(run.spent_usd).to.be.at.most(0.002 + 2 * CALL + 1e-9);
  });

  it('refuses what cannot run: 404 unknown world version or profile, 409 unpublished, 422 wrong fields, 402 past the monthly episodes', async () => {
    const post = (b: Record<string, unknown>) => cw.admin.post('/v1/evaluations', b);
    expect((await post({ world_version_id: 'wv_nope', profile_ids: [reference.id] })).status).to.equal(404);
    expect((await post({ world_version_id: wv, profile_ids: ['prof_nope'] })).status).to.equal(404);
    const other = await t.workspace('strangers');
    expect(
      (await client(t.url, other.key).post('/v1/evaluations', { world_version_id: wv, profile_ids: [reference.id] }))
        .status,
    ).to.equal(404);

    const apps = (await cw.admin.get('/v1/applications')).body;
    const building = await cw.admin.post('/v1/world-builds', {
      application_id: apps.find((a: any) => a.name === 'shop-support').id,
      scenario_target: 3,
    });
    const early = await post({ world_version_id: building.body.world_version_id, profile_ids: [reference.id] });
    expect(early.status).to.equal(409);
    expect(early.body.detail).to.match(/is not published/);
    await cw.admin.post(`/v1/jobs/${building.body.job_id}/commands`, { command: 'stop' });

    const twice = await post({ world_version_id: wv, profile_ids: [reference.id, reference.id] });
    expect(twice.status).to.equal(422);
    expect(twice.body.detail[0].field).to.equal('profile_ids[1]');
    const unknownBuiltin = await makeProfile(cw.admin, { name: 'odd', model: 'builtin:nonsense' });
    const odd = await post({ world_version_id: wv, profile_ids: [unknownBuiltin.id] });
    expect(odd.status).to.equal(422);
    expect(odd.body.detail[0].message).to.match(/unknown built-in model/);
    const foreign = await post({ world_version_id: wv, profile_ids: [reference.id], scenario_ids: ['sc_not_here'] });
    expect(foreign.status).to.equal(422);
    expect(foreign.body.detail[0]).to.include({ field: 'scenario_ids[0]' });
    for (const repeats of [0, 21])
      expect((await post({ world_version_id: wv, profile_ids: [reference.id], repeats })).status).to.equal(422);
    expect((await post({ world_version_id: wv, profile_ids: [reference.id], budget_usd: -1 })).status).to.equal(422);
    expect((await post({ world_version_id: wv, profile_ids: [] })).status).to.equal(422);

    await t.svc.adapters.store.update(Collections.organizations, cw.ws.organizationId, {
      limits_override: { episodes_per_month: 1 },
    });
    try {
      const over = await post({ world_version_id: wv, profile_ids: [reference.id] });
      expect(over.status).to.equal(402);
      expect(over.body.detail).to.match(/episodes/);
    } finally {
      await t.svc.adapters.store.update(Collections.organizations, cw.ws.organizationId, { limits_override: null });
    }
  });
});
