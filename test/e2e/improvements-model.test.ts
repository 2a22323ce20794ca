import { expect } from 'chai';
import { waitJob } from '../support/builds.js';
import { startModelServer, type ChatRequestBody, type ModelServer } from '../support/model-server.js';
import {
  catalogWorkspace,
  evaluate,
  makeProfile,
  runEpisodes,
  waitRun,
  type CatalogWorkspace,
} from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

const MODEL_PROMPT =
  'You help shop customers. Read before you write, and confirm the change with a read before you complete.';

/** Episode ids the fake improver cites on top of the ones it was shown: a holdout one and an invented one. */
const extraCitations: string[] = ['ep_invented'];

/** The scriptable improver: a new prompt citing the first episode it was shown (plus the extras). */
let nanoCalls = 0;

function improver(b: ChatRequestBody) {
  if (b.response_format?.json_schema?.name !== 'profile_version')
    return { tool_call: { name: 'wait', arguments: {} }, usage: { prompt_tokens: 10, completion_tokens: 1 } };
  // gpt-4.1-nano first answers something unusable, then empty prompts: the job repairs once, then fails
  if (b.model === 'gpt-4.1-nano') {
    nanoCalls += 1;
    const content =
      nanoCalls === 1
        ? 'Sure! Here is a better prompt.'
        : JSON.stringify({ system_prompt: ' ', tool_guidance: [], changes: [] });
    return { content, usage: { prompt_tokens: 1000, completion_tokens: 100 } };
  }
  const shown = JSON.parse(b.messages.find((m) => m.role === 'user')!.content!) as {
    episodes: Array<{ episode_id: string }>;
    tools: string[];
  };
  const cited = [shown.episodes[0]!.episode_id, ...extraCitations];
  return {
    content: JSON.stringify({
      system_prompt: MODEL_PROMPT,
      tool_guidance: [{ tool: shown.tools[0], guidance: 'Check the record first.' }],
      changes: [
        {
          field: 'system_prompt',
          change: 'Read before you write, and confirm the change with a read before you complete.',
          reason: 'The episodes completed without reading the record back.',
          episodes: cited,
        },
      ],
    }),
    // 0.15 + 0.6 per Mtok (gpt-4o-mini): 100000 in, 10000 out = $0.021
    usage: { prompt_tokens: 100_000, completion_tokens: 10_000 },
  };
}

const improverRequests = (m: ModelServer) =>
  m.requests.filter((r) => r.body.response_format?.json_schema?.name === 'profile_version');

/**
 * docs/improvements.md, With a model and Checking on dev: a model writes the next profile
 * version from train and dev evidence only (holdout never reaches a request), its spend
 * counts against `budget_usd`, and the candidate can be run on dev with both scores reported.
 */
describe('improvements with a model, checked on dev', function () {
  this.timeout(900_000);
  let t: TestService;
  let models: ModelServer;
  let cw: CatalogWorkspace;
  let naive: any;
  let runId: string;
  let episodes: any[];

  before(async () => {
    models = await startModelServer(improver);
    t = await startTestService({
      OPENAI_BASE_URL: models.baseUrl,
      WORKER_CAPACITY: '2',
      SERVICE_IMPROVEMENT_MODEL: 'gpt-4o-mini',
    });
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
    await cw.admin.post('/v1/credentials', {
      name: 'models',
      kind: 'model_provider',
      env_var: 'CRUCIBLE_TEST_IMPROVE_MODEL_KEY',
    });
    process.env.CRUCIBLE_TEST_IMPROVE_MODEL_KEY = 'sk-test';
    naive = await makeProfile(cw.admin, {
      name: 'naive',
      model: 'builtin:naive',
      system_prompt: 'You help shop customers.',
    });
    const started = await evaluate(cw.admin, {
      world_version_id: cw.worlds.get('shop-support')!,
      profile_ids: [naive.id],
      repeats: 1,
    });
    runId = started.run_id;
    expect((await waitRun(cw.admin, runId)).status).to.equal('finished');
    episodes = await runEpisodes(cw.admin, runId);
    const holdout = episodes.filter((e) => e.split === 'holdout');
    expect(holdout.length, 'the source run has holdout episodes to keep out').to.be.greaterThan(0);
    extraCitations.push(holdout[0].id);
  });
  after(async () => {
    await t?.close();
    await models?.close();
  });

  it('lands the model-written version, never shows holdout to the model, and checks it on dev with both scores', async () => {
    const before = improverRequests(models).length;
    const r = await cw.admin.post('/v1/improvements', {
      profile_id: naive.id,
      run_id: runId,
      model: 'gpt-4o-mini',
      check_on_dev: true,
      budget_usd: 5,
    });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    const job = await waitJob(cw.admin, r.body.job_id, undefined, 600_000);
    expect(job.status, JSON.stringify(job)).to.equal('succeeded');
    const res = job.result;
    expect(res).to.include({ method: 'model', profile: 'naive@v2' });
    expect(res.model).to.include({ calls: 1, cost_usd: 0.021 });
    expect(res.model.answered_by).to.match(/^gpt-4o-mini/);

    // the stored version holds the model's text, and keeps the base's settings
    const v2 = (await cw.admin.get(`/v1/agent-profiles/${res.profile_id}`)).body;
    expect(v2).to.include({ name: 'naive', version: 2, system_prompt: MODEL_PROMPT, model: 'builtin:naive' });
    expect(Object.values(v2.tool_guidance)).to.deep.equal(['Check the record first.']);

    // cited evidence keeps only train/dev episodes: the holdout id and the invented one are dropped
    const trainDev = new Set(episodes.filter((e) => e.split === 'train' || e.split === 'dev').map((e) => e.id));
    expect(res.changes).to.have.length(1);
    expect(res.changes[0].evidence.count).to.equal(1);
    for (const id of res.changes[0].evidence.episodes) expect(trainDev.has(id)).to.equal(true);

    // holdout never reached the model: no holdout episode id, no holdout scenario, in any request
    const sent = improverRequests(models).slice(before);
    expect(sent).to.have.length(1);
    const text = JSON.stringify(sent.map((s) => s.body.messages));
    const holdout = episodes.filter((e) => e.split === 'holdout');
    const trainDevScenarios = new Set(episodes.filter((e) => e.split !== 'holdout').map((e) => e.scenario));
    for (const e of holdout) {
      expect(text).to.not.include(e.id);
      if (!trainDevScenarios.has(e.scenario)) expect(text).to.not.include(`\\"scenario\\":\\"${e.scenario}\\"`);
    }
    // but the train/dev evidence did
    expect(text).to.include([...trainDev][0]);
    expect(sent[0]!.body.response_format?.json_schema?.strict).to.equal(true);

    // the dev check: a real run of the candidate on the source run's dev scenarios
    const check = res.dev_check;
    expect(check).to.not.equal(null);
    const checkRun = await waitRun(cw.admin, check.run_id);
    expect(checkRun.status).to.equal('finished');
    expect(checkRun.config.profile_ids).to.deep.equal([res.profile_id]);
    const checkEps = await runEpisodes(cw.admin, check.run_id);
    expect(new Set(checkEps.map((e) => e.split))).to.deep.equal(new Set(['dev']));
    const devScenarios = new Set(episodes.filter((e) => e.split === 'dev').map((e) => e.scenario));
    expect(new Set(checkEps.map((e) => e.scenario))).to.deep.equal(devScenarios);
    expect(check.scenarios).to.equal(devScenarios.size);
    expect(check.base_dev_score).to.be.a('number');
    expect(check.candidate_dev_score).to.be.a('number');
    expect(check.difference).to.be.closeTo(check.candidate_dev_score - check.base_dev_score, 1e-3);
    // compare answers not_enough_data below 6 paired scenarios (docs/scoring.md), as a small dev split may be
    expect(['better', 'worse', 'within_noise', 'not_enough_data']).to.include(check.verdict);
    const plain = {
      better: 'scored better than',
      worse: 'scored worse than',
      within_noise: 'are within noise',
      not_enough_data: 'could not be compared with',
    }[check.verdict as 'better'];
    expect(check.statement).to.include(plain);
    expect(res.summary).to.include(plain);
    // the base's dev score is the source run's own: the mean reward of its dev episodes
    const devRewards = episodes.filter((e) => e.split === 'dev' && e.reward !== null).map((e) => e.reward);
    expect(check.base_dev_score).to.be.closeTo(devRewards.reduce((a, b) => a + b, 0) / devRewards.length, 1e-3);
    // the job's spend is the model call; the check run's is its own (billed as its episodes)
    expect(job.spent_usd).to.equal(0.021);
    expect(check.cost_usd).to.equal(checkRun.spent_usd ?? 0);
    expect(job.budget_usd).to.equal(5);
  });

  it('stops at a budget the model call reaches, with the budget sentence, and stores no version', async () => {
    const profilesBefore = (await cw.admin.get('/v1/agent-profiles')).body.length;
    const r = await cw.admin.post('/v1/improvements', { profile_id: naive.id, run_id: runId, budget_usd: 0.001 });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    const job = await waitJob(cw.admin, r.body.job_id);
    expect(job.status).to.equal('failed');
    expect(job.error).to.match(/the job stopped itself: it spent \$0\.0210, reaching its budget of \$0\.0010/);
    expect(job.spent_usd).to.equal(0.021);
    expect((await cw.admin.get('/v1/agent-profiles')).body.length).to.equal(profilesBefore);
  });

  it('uses the server default model when none is named, and the rules when asked for builtin:rules', async () => {
    const before = improverRequests(models).length;
    const byDefault = await cw.admin.post('/v1/improvements', { profile_id: naive.id, run_id: runId });
    const a = await waitJob(cw.admin, byDefault.body.job_id);
    expect(a.status, JSON.stringify(a)).to.equal('succeeded');
    expect(a.result).to.include({ method: 'model', dev_check: null });
    expect(improverRequests(models).length).to.equal(before + 1);

    const rules = await cw.admin.post('/v1/improvements', {
      profile_id: naive.id,
      run_id: runId,
      model: 'builtin:rules',
      check_on_dev: true, // the rules' candidate can be checked on dev too
    });
    const b = await waitJob(cw.admin, rules.body.job_id);
    expect(b.status, JSON.stringify(b)).to.equal('succeeded');
    expect(b.result).to.include({ method: 'rules', model: null });
    expect(b.spent_usd).to.equal(0);
    expect(b.result.changes.length).to.be.greaterThan(0);
    expect(b.result.dev_check.run_id).to.match(/^run_/);
    expect(b.result.dev_check.candidate_dev_score).to.be.a('number');
    expect(b.result.summary).to.include(b.result.dev_check.statement);
    expect(improverRequests(models).length).to.equal(before + 1);
  });

  it('sends an unusable answer back once with what was wrong, then fails the job saying why', async () => {
    const r = await cw.admin.post('/v1/improvements', { profile_id: naive.id, run_id: runId, model: 'gpt-4.1-nano' });
    expect(r.status).to.equal(202);
    const job = await waitJob(cw.admin, r.body.job_id);
    expect(job.status).to.equal('failed');
    expect(job.error).to.match(/no usable proposal after 2 answers: system_prompt is missing or empty/);
    expect(nanoCalls).to.equal(2);
    const repair = models.requests.filter((x) => x.body.model === 'gpt-4.1-nano')[1]!.body.messages;
    expect(repair.at(-1)!.content).to.match(/cannot be used: it is not JSON/);
    expect(job.spent_usd).to.be.greaterThan(0);
  });

  it('refuses hostile or impossible requests before a job exists', async () => {
    const base = { profile_id: naive.id, run_id: runId };
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ model: 'no-such-model' }, 422, /no price/],
      [{ model: 'builtin:naive' }, 422, /builtin:rules/],
      [{ model: ' , ' }, 422, /names no model/],
      [{ model: 'x'.repeat(501) }, 422, /./],
      [{ budget_usd: -1 }, 422, /./],
      [{ check_on_dev: 'yes' }, 422, /./],
      [{ temperature: 2 }, 422, /./],
    ];
    for (const [extra, status, detail] of cases) {
      const r = await cw.admin.post('/v1/improvements', { ...base, ...extra });
      expect(r.status, `${JSON.stringify(extra).slice(0, 80)}: ${JSON.stringify(r.body)}`).to.equal(status);
      expect(JSON.stringify(r.body.detail)).to.match(detail);
    }
    // a run without dev episodes cannot check a candidate on dev
    const trainOnly = await evaluate(cw.admin, {
      world_version_id: cw.worlds.get('shop-support')!,
      profile_ids: [naive.id],
      splits: ['train'],
      repeats: 1,
    });
    await waitRun(cw.admin, trainOnly.run_id);
    const r = await cw.admin.post('/v1/improvements', { ...base, run_id: trainOnly.run_id, check_on_dev: true });
    expect(r.status).to.equal(422);
    expect(JSON.stringify(r.body.detail)).to.match(/no finished dev episodes/);
  });
});

/**
 * docs/improvements.md, With a model: a server default model with no price is refused when
 * the improvement is asked for (422 on `model`, no job), as a named one is, rather than
 * failing the job later; it applies only where the project has a model endpoint, so a
 * project without one keeps the rules.
 */
describe('improvements with an unpriced SERVICE_IMPROVEMENT_MODEL', function () {
  this.timeout(300_000);
  const KEY_VAR = 'CRUCIBLE_TEST_UNPRICED_IMPROVER_KEY';
  let t: TestService;
  let cw: CatalogWorkspace;
  let base: { profile_id: string; run_id: string };

  before(async () => {
    t = await startTestService({ WORKER_CAPACITY: '2', SERVICE_IMPROVEMENT_MODEL: 'no-such-model-9' });
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 6 });
    const naive = await makeProfile(cw.admin, { name: 'naive', model: 'builtin:naive' });
    const started = await evaluate(cw.admin, {
      world_version_id: cw.worlds.get('shop-support')!,
      profile_ids: [naive.id],
      splits: ['train'],
      repeats: 1,
    });
    expect((await waitRun(cw.admin, started.run_id)).status).to.equal('finished');
    base = { profile_id: naive.id, run_id: started.run_id };
  });
  after(async () => {
    await t?.close();
    delete process.env[KEY_VAR];
  });

  it('refuses it before a job exists once the project has a model endpoint; before that the rules run', async () => {
    const rules = await cw.admin.post('/v1/improvements', base);
    expect(rules.status, JSON.stringify(rules.body)).to.equal(202);
    const ruled = await waitJob(cw.admin, rules.body.job_id);
    expect(ruled.status, JSON.stringify(ruled)).to.equal('succeeded');
    expect(ruled.result).to.include({ method: 'rules', model: null });

    await cw.admin.post('/v1/credentials', { name: 'models', kind: 'model_provider', env_var: KEY_VAR });
    process.env[KEY_VAR] = 'sk-test';
    const jobs = (await cw.admin.get('/v1/jobs?kind=improvement')).body.length;
    const r = await cw.admin.post('/v1/improvements', base);
    expect(r.status, JSON.stringify(r.body)).to.equal(422);
    expect(r.body.detail[0].field).to.equal('model');
    expect(r.body.detail[0].message).to.match(
      /^none was named, and the server's default SERVICE_IMPROVEMENT_MODEL \("no-such-model-9"\) cannot be used: model "no-such-model-9" has no price in the price file.*name a priced model, or builtin:rules$/,
    );
    expect((await cw.admin.get('/v1/jobs?kind=improvement')).body.length).to.equal(jobs);
    // the rules, asked for by name, still run
    const asked = await cw.admin.post('/v1/improvements', { ...base, model: 'builtin:rules' });
    expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
  });
});
