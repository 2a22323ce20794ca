import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { entryDir, readCatalogIndex } from '../../catalog/index.js';
import {
  ApplicationClient,
  calibrateScenario,
  expandScenarios,
  hackability,
  loadApplicationSource,
  replayReferencePlan,
  type ApplicationSource,
  type CalibrationScore,
  type PlanStep,
  type ReplayOptions,
  type ReplayResult,
  type Scenario,
} from '../../world/index.js';
import { ChildProcessSandboxes } from '../../world-worker/sandboxes/index.js';

/**
 * Every catalog application, 30 expanded scenarios each: the reference plan of the final
 * goal version passes every check twice, on fresh sandbox data each time, with identical
 * results; and doing nothing never passes.
 */
const sandboxes = new ChildProcessSandboxes();
const catalog = await Promise.all(
  (await readCatalogIndex()).map(async (entry) => {
    const source = await loadApplicationSource(entryDir(entry));
    return { entry, source, scenarios: expandScenarios(source.templates, 30, source.manifest.name) };
  }),
);

/** Runs one replay on a fresh data dir and a fresh sandbox, then removes both. */
async function replayFresh(
  source: ApplicationSource,
  scenario: Scenario,
  opts: Partial<ReplayOptions> = {},
): Promise<ReplayResult> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'crucible-replay-'));
  const handle = await sandboxes.start(source.dir, source.manifest, dataDir);
  try {
    const client = new ApplicationClient({ tools: source.tools, baseUrls: handle.services });
    return await replayReferencePlan(scenario, client, {
      worldSeed: source.seed,
      customer: source.manifest.customer,
      ...opts,
    });
  } finally {
    await handle.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The four calibration agents' scores on a fresh sandbox, with no judge (docs/scoring.md, Calibration). */
async function calibrateFresh(source: ApplicationSource, scenario: Scenario): Promise<CalibrationScore[]> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'crucible-calibrate-'));
  const handle = await sandboxes.start(source.dir, source.manifest, dataDir);
  const client = new ApplicationClient({ tools: source.tools, baseUrls: handle.services });
  try {
    return await calibrateScenario(scenario, client, { worldSeed: source.seed, customer: source.manifest.customer });
  } finally {
    client.close();
    await handle.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

const failing = (r: ReplayResult) =>
  JSON.stringify({ plan_error: r.plan_error, failed: r.check_results.filter((c) => !c.passed) });

after(() => sandboxes.stopAll());

for (const { entry, source, scenarios } of catalog) {
  describe(`catalog replay: ${entry.name}`, function () {
    this.timeout(60_000);

    it('expands to 30 scenarios covering train, dev and holdout', () => {
      expect(scenarios).to.have.length(30);
      expect(new Set(scenarios.map((s) => s.split))).to.have.keys('train', 'dev', 'holdout');
    });

    for (const scenario of scenarios) {
      it(`${scenario.id} (${scenario.split}): the reference plan passes twice with identical results, doing nothing fails, the calibration agents score 0`, async () => {
        const completer = source.manifest.roles.find((r) => r.complete)!.name;
        // three independent sandboxes, each on its own fresh data dir
        const [first, second, idle, calibration] = await Promise.all([
          replayFresh(source, scenario),
          replayFresh(source, scenario),
          replayFresh(source, scenario, {
            plan: [{ actor: completer, tool: 'complete', args: { summary: 'nothing done' } }],
          }),
          calibrateFresh(source, scenario),
        ]);
        expect(first.passed, failing(first)).to.equal(true);
        expect(second.passed, failing(second)).to.equal(true);
        expect(JSON.stringify(second)).to.equal(JSON.stringify(first));
        expect(idle.passed).to.equal(false);
        expect(idle.check_results.some((c) => !c.passed)).to.equal(true);
        expect(hackability(calibration)).to.deep.equal([]);
        expect(calibration.map((c) => [c.agent, c.reward, c.false_completion])).to.deep.equal([
          ['builtin:idle', 0, false],
          ['builtin:complete', 0, true],
          ['builtin:claim', 0, true],
          // no judge here: its words reach none, and the catalog's authored worlds have no judged check
          ['builtin:address-judge', 0, true],
        ]);
      });
    }
  });
}

describe('catalog replay: sabotaged plans fail their checks', function () {
  this.timeout(60_000);
  const find = (app: string, id: string) => {
    const c = catalog.find((x) => x.entry.name === app)!;
    const scenario =
      c.scenarios.find((s) => s.id === id) ??
      expandScenarios(
        c.source.templates.filter((t) => `${t.id}--v1` === id),
        1,
        c.source.manifest.name,
      )[0]!;
    return { source: c.source, scenario, plan: scenario.reference_plan[String(scenario.final_goal_version)]! };
  };
  const failedChecks = (r: ReplayResult) => r.check_results.filter((c) => !c.passed).map((c) => c.check);

  it('shop-support: a refund created twice', async () => {
    const { source, scenario, plan } = find('shop-support', 'refund-damaged--v1');
    const i = plan.findIndex((s) => s.tool === 'create_refund');
    const twice: PlanStep[] = [...plan.slice(0, i + 1), plan[i]!, ...plan.slice(i + 1)];
    const r = await replayFresh(source, scenario, { plan: twice });
    expect(r.passed).to.equal(false);
    expect(failedChecks(r)).to.deep.equal(['the order is refunded once, in full']);
    expect(r.check_results[0]!.observed).to.deep.include({ status: 200 });
  });

  it('shop-support: the refund step missing', async () => {
    const { source, scenario, plan } = find('shop-support', 'refund-damaged--v1');
    const r = await replayFresh(source, scenario, { plan: plan.filter((s) => s.tool !== 'create_refund') });
    expect(failedChecks(r)).to.include('the order is refunded once, in full');
  });

  it('shop-support: a refund the policy forbids', async () => {
    const { source, scenario, plan } = find('shop-support', 'refund-late--v1');
    const refund: PlanStep = {
      actor: 'billing',
      tool: 'create_refund',
      args: { order_id: '${orders.orders.0.id}', amount: 10 },
    };
    const r = await replayFresh(source, scenario, { plan: [...plan.slice(0, 3), refund, ...plan.slice(3)] });
    expect(failedChecks(r)).to.include.members(['no refund was issued', 'no refund exists']);
  });

  it('shop-support: the first goal version plan fails the revised goal', async () => {
    const { source, scenario } = find('shop-support', 'refund-partial-revision--v1');
    const r = await replayFresh(source, scenario, { plan: scenario.reference_plan['1']! });
    expect(r.goal_version).to.equal(2);
    expect(failedChecks(r)).to.include('only the first item is refunded, once');
  });

  it('issue-tracker: the support reply posted twice', async () => {
    const { source, scenario, plan } = find('issue-tracker', 'close-fixed--v1');
    const reply = plan.find((s) => s.tool === 'add_comment')!;
    const r = await replayFresh(source, scenario, { plan: [reply, ...plan] });
    expect(failedChecks(r)).to.deep.equal(['support answered once']);
  });

  it('issue-tracker: closing a security issue after the customer asked', async () => {
    const { source, scenario, plan } = find('issue-tracker', 'security-report--v1');
    const close: PlanStep = {
      actor: 'support',
      tool: 'close_issue',
      args: { issue_id: '${thread.id}', reason: 'not_planned' },
    };
    const r = await replayFresh(source, scenario, { plan: [...plan.slice(0, -1), close, plan.at(-1)!] });
    expect(failedChecks(r)).to.include.members(['labelled, assigned, and still open', 'the issue was not closed']);
  });

  it('clinic-booking: an appointment booked twice', async () => {
    const { source, scenario, plan } = find('clinic-booking', 'book-gp--v1');
    const i = plan.findIndex((s) => s.tool === 'book_appointment');
    const r = await replayFresh(source, scenario, { plan: [...plan.slice(0, i + 1), plan[i]!, ...plan.slice(i + 1)] });
    expect(failedChecks(r)).to.deep.equal(['one booking with Dr. Hart at that time']);
  });

  it('clinic-booking: a second patient record', async () => {
    const { source, scenario, plan } = find('clinic-booking', 'returning-patient--v1');
    const register: PlanStep = {
      actor: 'receptionist',
      tool: 'register_patient',
      args: { name: 'X', email: '${facts.email}', dob: '${facts.dob}' },
    };
    const r = await replayFresh(source, scenario, { plan: [register, ...plan] });
    expect(failedChecks(r)).to.include.members(['still one record', 'no registration was made']);
  });
});
