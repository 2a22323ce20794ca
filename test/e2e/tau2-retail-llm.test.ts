import { expect } from 'chai';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { CATALOG_DIR } from '../../catalog/index.js';
import { Collections } from '../../core/collections.js';
import { importTau2 } from '../../world/index.js';
import { waitJob } from '../support/builds.js';
import {
  startModelServer,
  type ChatRequestBody,
  type ModelServer,
  type ScriptedReply,
} from '../support/model-server.js';
import { evaluate, makeProfile, runEpisodes, waitRun } from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';

const KEY_VAR = `CRUCIBLE_TEST_TAU2_KEY_${process.pid}`;
const AGENT_MODEL = 'gpt-4.1-nano';
const JUDGE_MODEL = 'gpt-4o-mini';
/** Three tau2 tasks: the loopback agent plays the gold plan on two and leaves task 39's write out. */
const TASKS = ['69', '40', '39'];
const SKIPS_ITS_WRITE = 'task-39';

/**
 * An llm profile on the imported tau2 retail world, through the whole service (docs/scoring.md,
 * tau2-bench): the importer's source for three tasks is built (their judged assertions pinned to
 * a loopback judge), then a model agent on the loopback model server plays each task twice.
 * The run's summary gives pass^k as tau2's leaderboard does: tasks whose k trials all pass.
 */
describe('tau2 retail: an llm profile run gives pass^k', function () {
  this.timeout(600_000);
  let t: TestService;
  let models: ModelServer;
  let root: string;
  const plans = new Map<string, { request: string; steps: Array<{ tool: string; args: Record<string, unknown> }> }>();

  /** The agent: the next step of the gold plan of the task whose request opens the conversation. */
  function reply(body: ChatRequestBody): ScriptedReply {
    const text = body.messages.map((m) => m.content ?? '').join('\n');
    // the judge passes what was said, but not the build's judge-addressing calibration agent (it only talks to the judge)
    if (body.model === JUDGE_MODEL)
      return {
        content: JSON.stringify(
          text.includes('pass this episode')
            ? { passed: false, reason: 'an order to the judge does no work' }
            : { passed: true, reason: 'said so' },
        ),
      };
    const [template, plan] = [...plans].find(([, p]) => text.includes(p.request)) ?? [];
    if (!plan) return { tool_call: { name: 'complete', arguments: { summary: 'unknown task' } } };
    const steps = plan.steps.filter((s) => !(template === SKIPS_ITS_WRITE && s.tool === 'modify_user_address'));
    const done = body.messages.filter((m) => m.role === 'assistant' && m.tool_calls?.length).length;
    const step = steps[Math.min(done, steps.length - 1)]!;
    return {
      tool_call: { name: step.tool, arguments: step.args },
      usage: { prompt_tokens: 500, completion_tokens: 20 },
    };
  }

  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'crucible-tau2-llm-'));
    const app = path.join(CATALOG_DIR, 'apps', 'tau2-retail');
    const data = path.join(root, 'data');
    await cp(path.join(app, 'benchmark'), data, { recursive: true });
    const tasks = JSON.parse(await readFile(path.join(data, 'tasks.json'), 'utf8')) as Array<{ id: string }>;
    await writeFile(path.join(data, 'tasks.json'), JSON.stringify(tasks.filter((x) => TASKS.includes(x.id))));
    await writeFile(path.join(data, 'split_tasks.json'), JSON.stringify({ train: ['69'], test: ['40', '39'] }));
    const out = path.join(root, 'source');
    await importTau2({ domain: 'retail', dataDir: data, serviceDir: app, outDir: out });
    for (const id of TASKS) {
      const tpl = parse(await readFile(path.join(out, 'scenarios', `task-${id}.yaml`), 'utf8')) as {
        request: string;
        reference_plan: { '1': Array<{ tool: string; args: Record<string, unknown> }> };
      };
      plans.set(`task-${id}`, { request: tpl.request, steps: tpl.reference_plan['1'] });
    }
    models = await startModelServer(reply);
    process.env[KEY_VAR] = 'sk-tau2';
    t = await startTestService({
      OPENAI_BASE_URL: models.baseUrl,
      SERVICE_JUDGE_MODEL: JUDGE_MODEL,
      SERVICE_SOURCE_ROOTS: root,
    });
  });
  after(async () => {
    await t?.close();
    await models?.close();
    delete process.env[KEY_VAR];
    await rm(root, { recursive: true, force: true });
  });

  it('builds the imported tasks with a pinned judge, and the run reports pass^2 per profile', async () => {
    const ws = await t.workspace();
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    const admin = client(t.url, ws.key);
    expect(
      (await admin.post('/v1/credentials', { name: 'models', kind: 'model_provider', env_var: KEY_VAR })).status,
    ).to.equal(201);
    const made = await admin.post('/v1/applications', {
      name: 'tau2-retail',
      source: { kind: 'local_path', path: path.join(root, 'source') },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    // replays once: test/integration/tau2-retail.test.ts covers the plans; this covers the run
    const build = await admin.post('/v1/world-builds', { application_id: made.body.id, check_determinism: false });
    expect(build.status, JSON.stringify(build.body)).to.equal(202);
    const job = await waitJob(admin, build.body.job_id);
    expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
    const wv = build.body.world_version_id as string;
    const version = (await admin.get(`/v1/world-versions/${wv}`)).body;
    expect(version.manifest.judge).to.deep.equal({ model: JUDGE_MODEL });
    const scenarios = (await admin.get(`/v1/world-versions/${wv}/scenarios`)).body as Array<{
      split: string;
      status: string;
      validation_report: {
        calibration: Array<{ agent: string; reward: number; judged_by?: string | null; judged_checks?: number }>;
        adversary_flags: string[];
      };
    }>;
    expect(scenarios.map((s) => s.split).sort()).to.deep.equal(['holdout', 'holdout', 'train']);
    // the build's calibration put the judge-addressing agent before the build's (loopback) judge: 0 on every task
    for (const s of scenarios) {
      const toJudge = s.validation_report.calibration.find((c) => c.agent === 'builtin:address-judge')!;
      expect(toJudge).to.include({ reward: 0, judged_by: JUDGE_MODEL });
      // with a judge nothing is flagged about it (a collateral agent whose every extra write tau2 refused may be)
      expect(s.validation_report.adversary_flags.filter((f) => f.includes('address-judge'))).to.deep.equal([]);
    }
    expect(scenarios.some((s) => s.validation_report.calibration.some((c) => (c.judged_checks ?? 0) > 0))).to.equal(
      true,
    );

    const llm = await makeProfile(admin, { name: 'llm', model: AGENT_MODEL });
    const started = await evaluate(admin, {
      world_version_id: wv,
      profile_ids: [llm.id],
      repeats: 2,
      default_stress: false,
    });
    const run = await waitRun(admin, started.run_id);
    expect(run.status).to.equal('finished');
    const episodes = await runEpisodes(admin, started.run_id);
    expect(episodes).to.have.length(6);
    // tau2's pass is Crucible's success (reward 1 before the habits' small deductions)
    const failed = episodes.filter((e) => e.oracle?.failure !== null);
    expect(
      failed.map((e) => e.scenario).sort(),
      JSON.stringify(failed.map((e) => e.oracle?.check_results)),
    ).to.deep.equal([`${SKIPS_ITS_WRITE}--v1`, `${SKIPS_ITS_WRITE}--v1`]);
    // the oracle shows what the database lacks: the user's address as the gold left it
    const db = failed[0]!.oracle.check_results.find(
      (c: { check: string }) => c.check === "the database equals tau2's gold replay",
    );
    expect(JSON.stringify(db.observed)).to.contain('fatima_taylor_3452').and.to.contain('157 Oak Street');
    const summary = run.summary.profiles['llm@v1'];
    expect(summary).to.include({ pass_at_k: Math.round((2 / 3) * 10_000) / 10_000, pass_at_k_scenarios: 3 });
    expect(summary.success_rate).to.be.closeTo(4 / 6, 1e-3);
    expect(models.requests.some((r) => r.body.model === JUDGE_MODEL)).to.equal(true);
  });
});
