import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Collections } from '../../core/collections.js';
import { waitJob } from '../support/builds.js';
import {
  startModelServer,
  type ChatRequestBody,
  type ModelServer,
  type ScriptedReply,
} from '../support/model-server.js';
import { catalogWorkspace, type CatalogWorkspace } from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { catalogApp } from '../support/sources.js';

const template = (name: string): any =>
  parseYaml(readFileSync(path.join(catalogApp('shop-support'), 'scenarios', `${name}.yaml`), 'utf8'));

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/;

/**
 * A model on the loopback OpenAI-compatible server that plays shop-support's frontline from
 * what the conversation shows, nothing else: for an order-status question it asks for the
 * e-mail address, finds the customer and their orders, tells the order number and that it
 * shipped, and completes; for any other request it completes at once (and fails). Roles
 * without reply_to_customer wait.
 */
function frontlineModel(b: ChatRequestBody): ScriptedReply {
  const tools = new Set((b.tools ?? []).map((t) => t.function.name));
  if (!tools.has('reply_to_customer')) return { tool_call: { name: 'wait', arguments: {} } };
  const calls = b.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name));
  const later = b.messages.slice(1);
  const text = later.map((m) => m.content ?? '').join('\n');
  if (!/Has it shipped yet\?/.test(text)) return { tool_call: { name: 'complete', arguments: { summary: 'done' } } };
  const resultOf = (tool: string): string => {
    const i = b.messages.findIndex((m) => m.tool_calls?.some((c) => c.function.name === tool));
    return b.messages[i + 1]?.content ?? '';
  };
  const said = later.filter((m) => m.role === 'user').map((m) => m.content ?? '');
  const email = said.map((s) => EMAIL.exec(s)?.[0]).find(Boolean);
  if (!calls.includes('reply_to_customer'))
    return {
      tool_call: { name: 'reply_to_customer', arguments: { text: 'Which e-mail address is on your account?' } },
    };
  if (!email) return { tool_call: { name: 'wait', arguments: {} } };
  if (!calls.includes('find_customer')) return { tool_call: { name: 'find_customer', arguments: { email } } };
  if (!calls.includes('list_orders')) {
    const id = /"id"\s*:\s*"([^"]+)"/.exec(resultOf('find_customer'))?.[1] ?? 'unknown';
    return { tool_call: { name: 'list_orders', arguments: { customer_id: id } } };
  }
  if (calls.filter((c) => c === 'reply_to_customer').length < 2) {
    const number = /"number"\s*:\s*"([^"]+)"/.exec(resultOf('list_orders'))?.[1] ?? 'unknown';
    return {
      tool_call: {
        name: 'reply_to_customer',
        arguments: { text: `Your order ${number} has shipped and is on its way.` },
      },
    };
  }
  return { tool_call: { name: 'complete', arguments: { summary: 'told the customer it shipped' } } };
}

/**
 * POST /v1/world-versions/{id}/validate with a model agent (docs/scoring.md, The model
 * agent): it plays each fair scenario without the answer key on a loopback
 * OpenAI-compatible server, its spend lands on the job and the organization's usage, and
 * the scenario it could not solve is flagged `unsolved_without_key`, not withdrawn.
 */
describe('validate: the model agent without the answer key', function () {
  this.timeout(900_000);
  let t: TestService;
  let models: ModelServer;
  let cw: CatalogWorkspace;
  let wv: string;
  const added: Record<string, any> = {};

  before(async () => {
    models = await startModelServer((b) => frontlineModel(b));
    t = await startTestService({ OPENAI_BASE_URL: models.baseUrl, SERVICE_VALIDATION_MODEL: 'gpt-4o-mini' });
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 1 });
    wv = cw.worlds.get('shop-support')!;
    // only two scenarios of known templates stay: one the model can solve, one it cannot
    for (const s of (await cw.admin.get(`/v1/world-versions/${wv}/scenarios`)).body)
      expect((await cw.admin.post(`/v1/scenarios/${s.id}/reject`)).status).to.equal(200);
    for (const [name, id] of [
      ['order-status', 'status-by-model'],
      ['cancel-order', 'cancel-by-model'],
    ]) {
      const t0 = template(name);
      const r = await cw.admin.post(`/v1/world-versions/${wv}/scenarios`, {
        scenario: { ...t0, id, variants: [t0.variants[0]] },
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(202);
      const job = await waitJob(cw.admin, r.body.job_id);
      expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
      added[name] = r.body.scenarios[0];
    }
    // adding scenarios never calls the model
    expect(models.requests).to.have.length(0);
  });
  after(async () => {
    await t?.close();
    await models?.close();
  });

  const validate = (body?: Record<string, unknown>) => cw.admin.post(`/v1/world-versions/${wv}/validate`, body);

  it('refuses a model it cannot run (422 on model) and, with the allowance used up, 402', async () => {
    const builtin = await validate({ model: 'builtin:reference' });
    expect(builtin.status).to.equal(422);
    expect(builtin.body.detail[0]).to.include({ field: 'model' });
    expect(builtin.body.detail[0].message).to.match(/without the answer key/);
    const noKey = await validate({ model: 'gpt-4o-mini' });
    expect(noKey.status).to.equal(422);
    expect(noKey.body.detail[0].message).to.match(/needs a model endpoint/);
    expect((await validate({ model: 'no-such-model-7' })).body.detail[0].message).to.match(/has no price/);
    expect((await validate({ model: 'gpt-4o-mini', budget_usd: -1 })).status).to.equal(422);
    expect((await validate({ model: 'gpt-4o-mini', extra: 1 })).status).to.equal(422);
    expect((await validate({ model: '   ' })).body.detail[0]).to.include({ field: 'model', message: 'names no model' });

    // the server's default model needs the project's own credential: without one, no model agent
    const byDefault = await validate();
    expect(byDefault.status).to.equal(202);
    expect(byDefault.body).to.include({ model: null, budget_usd: null });
    expect((await waitJob(cw.admin, byDefault.body.job_id)).status).to.equal('succeeded');

    const made = await cw.admin.post('/v1/credentials', {
      name: 'validation models',
      kind: 'model_provider',
      env_var: 'CRUCIBLE_TEST_VALIDATE_MODEL_KEY',
    });
    expect(made.status).to.equal(201);
    process.env.CRUCIBLE_TEST_VALIDATE_MODEL_KEY = 'sk-validate';
    await t.svc.adapters.store.update(Collections.organizations, cw.ws.organizationId, {
      limits_override: { allowance_usd: 0 },
    });
    try {
      const broke = await validate({ model: 'gpt-4o-mini' });
      expect(broke.status).to.equal(402);
      expect(broke.body.detail).to.match(/allowance is used up/);
      // with the credential the server's default would spend too
      expect((await validate()).status).to.equal(402);
      // without a model agent a validation spends nothing and still runs
      const free = await validate({ model: null });
      expect(free.status).to.equal(202);
      expect(free.body).to.include({ model: null, budget_usd: null });
      const job = await waitJob(cw.admin, free.body.job_id);
      expect(job).to.include({ status: 'succeeded', spent_usd: 0 });
      expect(job.result).not.to.have.property('unsolved_without_key');
    } finally {
      await t.svc.adapters.store.update(Collections.organizations, cw.ws.organizationId, { limits_override: null });
    }
    expect(models.requests).to.have.length(0);
  });

  it('by default plays each fair scenario without the key, charges its spend, and lists the one it could not solve for review', async () => {
    // no model named: the project has a model credential now, so the configured model plays by default
    const r = await validate({ budget_usd: 5 });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body).to.include({ model: 'gpt-4o-mini', model_from: 'server_validation_model', scenarios: 2 });
    const job = await waitJob(cw.admin, r.body.job_id);
    expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');

    const status = (await cw.admin.get(`/v1/scenarios/${added['order-status'].id}`)).body;
    const cancel = (await cw.admin.get(`/v1/scenarios/${added['cancel-order'].id}`)).body;
    expect(status.validation_report.model_trial).to.include({
      agent: 'gpt-4o-mini',
      success: true,
      termination: 'completed',
    });
    expect(status.validation_report.unsolved_without_key).to.equal(false);
    expect(status.status).to.equal('approved');
    // flagged, not withdrawn: fair by every other test, but no agent without the key solved it
    expect(cancel.status).to.equal('approved');
    expect(cancel.validation_report).to.include({ passed: true, unsolved_without_key: true });
    expect(cancel.validation_report.model_trial).to.include({ agent: 'gpt-4o-mini', success: false });
    expect(cancel.validation_report.unsolved_reason).to.match(
      /^no agent without the answer key solved it: the model agent \(gpt-4o-mini\) ended completed/,
    );
    expect(cancel.validation_report.agent_trial).to.include({ agent: 'builtin:reference', success: true });
    expect(job.result.unsolved_without_key.map((u: any) => u.scenario_id)).to.deep.equal([cancel.scenario_id]);
    // listed for review: the keyless agent's transcript and result, beside the reference agent's
    const review = job.result.unsolved_without_key[0];
    expect(review.reason).to.equal(cancel.validation_report.unsolved_reason);
    expect(review.model_agent).to.include({ agent: 'gpt-4o-mini', success: false, termination: 'completed' });
    expect(review.transcript.map((x: any) => x.kind)).to.include.members(['message', 'action']);
    expect(review.transcript.find((x: any) => x.kind === 'message').from).to.equal('customer');
    expect(review.transcript.filter((x: any) => x.kind === 'action').map((x: any) => x.tool)).to.deep.equal([
      'complete',
    ]);
    expect(review.reference_agent).to.include({ agent: 'builtin:reference', success: true });
    const refTools = review.reference_agent.transcript.filter((x: any) => x.kind === 'action').map((x: any) => x.tool);
    expect(refTools).to.include('cancel_order');
    expect(refTools[refTools.length - 1]).to.equal('complete');
    expect(cancel.validation_report.model_trial.transcript).to.deep.equal(review.transcript);
    const last = (await cw.admin.get(`/v1/world-versions/${wv}`)).body.validation_report.last_validation;
    expect(last.unsolved_without_key[0].transcript).to.deep.equal(review.transcript);
    expect(job.result.withdrawn).to.deep.equal([]);

    // the spend: every model call at the price the pricing page lists, on the job and the usage
    const price = (await cw.admin.get('/v1/pricing')).body.models.find((m: any) => m.model === 'gpt-4o-mini');
    const perCall = (1000 * price.input_per_mtok + 50 * price.output_per_mtok) / 1e6;
    const expected = models.requests.length * perCall;
    expect(models.requests.length).to.be.at.least(6);
    expect(job.spent_usd).to.be.closeTo(expected, 1e-6);
    expect(job.budget_usd).to.equal(5);
    expect(
      status.validation_report.model_trial.spent_usd + cancel.validation_report.model_trial.spent_usd,
    ).to.be.closeTo(job.spent_usd, 1e-6);
    expect(job.result.spent_usd).to.equal(job.spent_usd);
    const usage = (await cw.admin.get('/v1/usage')).body;
    expect(usage.by_kind.validation).to.be.closeTo(job.spent_usd, 1e-5);
    const version = (await cw.admin.get(`/v1/world-versions/${wv}`)).body;
    expect(version.validation_report.last_validation).to.include({ job_id: r.body.job_id, model: 'gpt-4o-mini' });

    // it saw what an agent sees: never the e-mail before the customer gave it, nor the answer key
    for (const { body } of models.requests) {
      const first = body.messages
        .slice(0, 2)
        .map((m) => m.content ?? '')
        .join('\n');
      expect(first).not.to.contain(template('order-status').variants[0].email);
      expect(JSON.stringify(body)).not.to.match(/reference_plan|What is the e-mail address on your account/);
    }
  });

  it('stops the model agent at the budget: the episode ends with budget, the rest is skipped, the validation finishes', async () => {
    const before = models.requests.length;
    const r = await validate({ model: 'gpt-4o-mini', budget_usd: 0.0001 });
    expect(r.status).to.equal(202);
    const job = await waitJob(cw.admin, r.body.job_id);
    expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
    // one paid call ended the first episode; nothing was paid for the second
    expect(models.requests.length - before).to.equal(1);
    expect(job.spent_usd).to.be.at.least(0.0001);
    const reports = await Promise.all(
      [added['cancel-order'], added['order-status']].map(
        async (s) => (await cw.admin.get(`/v1/scenarios/${s.id}`)).body.validation_report,
      ),
    );
    expect(reports[0].model_trial).to.include({ termination: 'budget', success: false });
    expect(reports[1].model_trial.skipped).to.match(/budget of \$0.0001 was spent/);
    // neither says anything about solvability, and both stay approved
    expect(reports.map((x) => x.unsolved_without_key)).to.deep.equal([null, null]);
    expect(job.result).to.include({ model_played: 1, model_skipped: 1 });
    expect(job.result.unsolved_without_key).to.deep.equal([]);
  });
});

/**
 * Without SERVICE_VALIDATION_MODEL, the model configured for the project plays by default:
 * here the judge its world version pinned (the server's SERVICE_JUDGE_MODEL, pinned by the
 * build because the project has a model credential).
 */
describe('validate: the model configured for the project plays by default', function () {
  this.timeout(900_000);
  let t: TestService;
  let models: ModelServer;
  let cw: CatalogWorkspace;
  const KEY = 'CRUCIBLE_TEST_VALIDATE_PROJECT_MODEL_KEY';

  before(async () => {
    models = await startModelServer((b) => frontlineModel(b));
    process.env[KEY] = 'sk-project-model';
    t = await startTestService({ OPENAI_BASE_URL: models.baseUrl, SERVICE_JUDGE_MODEL: 'gpt-4o-mini' });
    const ws = await t.workspace('Project model');
    const c = client(t.url, ws.key);
    const made = await c.post('/v1/credentials', { name: 'provider', kind: 'model_provider', env_var: KEY });
    expect(made.status).to.equal(201);
    cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 1, workspace: ws });
  });
  after(async () => {
    await t?.close();
    await models?.close();
    delete process.env[KEY];
  });

  it('names the world version judge as the model agent, runs it, and a null model still turns it off', async () => {
    const wv = cw.worlds.get('shop-support')!;
    expect((await cw.admin.get(`/v1/world-versions/${wv}`)).body.manifest.judge).to.deep.equal({
      model: 'gpt-4o-mini',
    });
    // the judge's questions (the judge-addressing calibration agent before the pinned judge,
    // docs/scoring.md, Calibration) are not the model agent's calls
    const judging = (q: (typeof models.requests)[number]) =>
      (q.body.messages[0]?.content ?? '').includes('<<<CONVERSATION');
    const agentCalls = () => models.requests.filter((q) => !judging(q));
    const judged = models.requests.filter(judging).length;
    const off = await cw.admin.post(`/v1/world-versions/${wv}/validate`, { model: null });
    expect(off.body).to.include({ model: null, model_from: null });
    const offJob = await waitJob(cw.admin, off.body.job_id);
    expect(offJob.status).to.equal('succeeded');
    expect(agentCalls()).to.have.length(0);
    // the calibration still put its judge-addressing agent before the version's judge
    expect(models.requests.filter(judging).length).to.be.greaterThan(judged);
    const r = await cw.admin.post(`/v1/world-versions/${wv}/validate`, { budget_usd: 1 });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    expect(r.body).to.include({ model: 'gpt-4o-mini', model_from: 'world_version' });
    const job = await waitJob(cw.admin, r.body.job_id);
    expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
    expect(job.result.model).to.equal('gpt-4o-mini');
    expect(job.result.model_played + job.result.model_skipped).to.be.greaterThan(0);
    expect(agentCalls().length).to.be.greaterThan(0);
  });
});
