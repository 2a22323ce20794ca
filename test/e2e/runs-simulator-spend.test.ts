import { expect } from 'chai';
import { Collections } from '../../core/collections.js';
import { buildAndWait } from '../support/builds.js';
import { startModelServer, type ChatRequestBody, type ModelServer } from '../support/model-server.js';
import { evaluate, makeProfile, runEpisodes, waitRun } from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';

/** One call of gpt-4o-mini with 1000 prompt and 50 completion tokens (the shipped price file). */
const CALL = 0.00018;

/**
 * Money the service spends on the tenant's behalf is counted (docs/runs.md, Spend and
 * budgets): a run whose customer and judge are priced models (SERVICE_CUSTOMER_MODEL,
 * SERVICE_JUDGE_MODEL on a loopback OpenAI-compatible server) played by a free built-in
 * agent shows their spend in each episode's `cost_breakdown` and `cost_usd`, in the run's
 * `spent_usd` and summary, and in GET /v1/usage; `max_episode_cost_usd` binds on it.
 */
describe('runs: the customer simulator and the judges spend the tenant’s money', function () {
  this.timeout(600_000);
  let t: TestService;
  let models: ModelServer;
  let admin: ReturnType<typeof client>;
  let wv: string;
  let reference: any;
  const kind = (b: ChatRequestBody) => b.response_format?.json_schema?.name ?? 'agent';

  before(async () => {
    models = await startModelServer((b) => {
      const usage = { prompt_tokens: 1000, completion_tokens: 50 };
      if (kind(b) === 'customer_reply')
        return { content: JSON.stringify({ reply: 'Thanks, that helps.', disclosed: [] }), usage };
      // the build's judge-addressing calibration agent only orders the judge to pass: it fails
      if (kind(b) === 'verdict' && b.messages.some((m) => m.content?.includes('pass this episode')))
        return { content: JSON.stringify({ passed: false, reason: 'an order to the judge' }), usage };
      if (kind(b) === 'verdict')
        return { content: JSON.stringify({ passed: true, reason: 'the agent said so' }), usage };
      return { tool_call: { name: 'wait', arguments: {} }, usage };
    });
    t = await startTestService({
      OPENAI_BASE_URL: models.baseUrl,
      SERVICE_CUSTOMER_MODEL: 'gpt-4o-mini',
      SERVICE_JUDGE_MODEL: 'gpt-4o-mini',
    });
    const ws = await t.workspace();
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    admin = client(t.url, ws.key);
    process.env.CRUCIBLE_TEST_SIM_SPEND_KEY = 'sk-test';
    await admin.post('/v1/credentials', {
      name: 'models',
      kind: 'model_provider',
      env_var: 'CRUCIBLE_TEST_SIM_SPEND_KEY',
    });
    const imported = await admin.post('/v1/applications/import-catalog');
    const app = (imported.body.registered as any[]).find((a) => a.name === 'shop-support');
    const { build, job } = await buildAndWait(admin, { application_id: app.id, scenario_target: 3 });
    expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
    wv = build.world_version_id;
    reference = await makeProfile(admin, { name: 'reference', model: 'builtin:reference' });
  });
  after(async () => {
    await t?.close();
    await models?.close();
    delete process.env.CRUCIBLE_TEST_SIM_SPEND_KEY;
  });

  it('counts the customer’s and the judges’ calls in the episode, the run and the month’s usage', async () => {
    const usageBefore = (await admin.get('/v1/usage')).body;
    const started = await evaluate(admin, { world_version_id: wv, profile_ids: [reference.id], repeats: 1 });
    const run = await waitRun(admin, started.run_id);
    expect(run.status).to.equal('finished');
    const eps = await runEpisodes(admin, started.run_id);
    let total = 0;
    for (const e of eps) {
      const b = e.cost_breakdown;
      // the built-in agent is free; the customer answered the agent's messages, the judge its told checks
      expect(b.agent, e.id).to.equal(0);
      expect(b.customer, e.id).to.be.closeTo(e.oracle.customer.cost_usd, 1e-9);
      expect(b.customer, e.id).to.be.at.least(CALL - 1e-9);
      const judged = (e.oracle.judgements ?? []).reduce((n: number, j: any) => n + (j.cost_usd ?? 0), 0);
      expect(b.judges, e.id).to.be.closeTo(judged, 1e-9);
      expect(b.judges, e.id).to.be.at.least(CALL - 1e-9);
      expect(e.cost_usd, e.id).to.be.closeTo(b.agent + b.customer + b.judges, 1e-9);
      const full = (await admin.get(`/v1/episodes/${e.id}`)).body;
      expect(full.cost_usd, e.id).to.be.closeTo(e.cost_usd, 1e-9);
      expect(full.cost_breakdown, e.id).to.deep.equal(b);
      total += e.cost_usd;
    }
    // every episode.finished on the run's stream carries the same sum and breakdown
    const finished = await t.svc.adapters.store.find<any>(Collections.events, {
      stream: started.run_id,
      type: 'episode.finished',
    });
    expect(finished).to.have.length(eps.length);
    for (const ev of finished) {
      const e = eps.find((x) => x.id === ev.episode_id)!;
      expect(ev.data.cost_usd, e.id).to.be.closeTo(e.cost_usd, 1e-9);
      expect(ev.data.cost_breakdown, e.id).to.deep.equal(e.cost_breakdown);
    }
    expect(run.spent_usd).to.be.closeTo(total, 1e-6);
    expect(run.summary.cost_usd).to.be.closeTo(total, 1e-6);
    const usage = (await admin.get('/v1/usage')).body;
    expect(usage.by_kind.episodes - usageBefore.by_kind.episodes).to.be.closeTo(total, 1e-6);
  });

  it('ends an episode with `budget` once the customer’s spend reaches max_episode_cost_usd, though the agent spent nothing', async () => {
    const started = await evaluate(admin, {
      world_version_id: wv,
      profile_ids: [reference.id],
      repeats: 1,
      max_episode_cost_usd: CALL / 2,
    });
    await waitRun(admin, started.run_id);
    const eps = await runEpisodes(admin, started.run_id);
    const withCustomer = eps.filter((e) => e.cost_breakdown.customer > 0);
    expect(withCustomer.length).to.be.greaterThan(0);
    for (const e of withCustomer) {
      expect(e.termination, e.id).to.equal('budget');
      expect(e.cost_breakdown.agent).to.equal(0);
      // the call that crossed the cap is the only one
      expect(e.cost_breakdown.customer).to.be.closeTo(CALL, 1e-9);
    }
  });
});
