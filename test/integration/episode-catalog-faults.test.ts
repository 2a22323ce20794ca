import path from 'node:path';
import { expect } from 'chai';
import type { EpisodeState, FaultMode } from '../../episode-actor/index.js';
import { loadApplicationSource, type ApplicationSource, type Scenario } from '../../world/index.js';
import { ChildProcessSandboxes } from '../../world-worker/sandboxes/index.js';
import { AUTHORED_WORLDS, CATALOG_APPS, runEpisode, scenariosOf, startEpisode } from '../support/episode-harness.js';

// the authored worlds; the benchmarks (tau2-retail) have a test file of their own
const worlds = AUTHORED_WORLDS;

/** A scenario whose final plan makes an application write (not a reply to the customer) after its first step. */
function writingScenario(src: ApplicationSource): { scenario: Scenario; tool: string } | null {
  const c = src.manifest.customer;
  const reply = c.channel === 'notifications' ? c.via.reply_tool : null;
  const kinds = new Map(src.tools.map((t) => [t.name, t.kind]));
  for (const scenario of scenariosOf(src, 30)) {
    const plan = scenario.reference_plan[String(scenario.final_goal_version)] ?? [];
    const step = plan.slice(1).find((s) => kinds.get(s.tool) === 'write' && s.tool !== reply);
    if (step) return { scenario, tool: step.tool };
  }
  return null;
}

async function faulted(
  sandboxes: ChildProcessSandboxes,
  src: ApplicationSource,
  scenario: Scenario,
  tool: string,
  mode: FaultMode,
  model: string,
): Promise<EpisodeState> {
  const run = await startEpisode(sandboxes, src, scenario, { model, defaultStress: true });
  try {
    await run.actor.intervene({ kind: 'fault', tool, fault_mode: mode, count: 1 });
    await run.actor.done;
    return run.actor.snapshot();
  } finally {
    await run.live.close();
  }
}

describe('faults on every catalog world: UNKNOWN, and retry_operation without a second write', function () {
  this.timeout(300_000);
  const sandboxes = new ChildProcessSandboxes();
  after(() => sandboxes.stopAll());

  for (const name of worlds) {
    describe(name, () => {
      let src: ApplicationSource;
      let pick: { scenario: Scenario; tool: string } | null;
      before(async () => {
        src = await loadApplicationSource(path.join(CATALOG_APPS, name));
        pick = writingScenario(src);
      });

      it('drop_response: the reference agent gets UNKNOWN, retry_operation returns the original effect, no second write', async () => {
        if (!pick) return expect.fail(`${name} has no scenario whose plan writes`);
        const st = await faulted(sandboxes, src, pick.scenario, pick.tool, 'drop_response', 'builtin:reference');
        const unknown = st.actions.find((a) => a.tool === pick!.tool && a.result?.outcome === 'unknown')!;
        expect(unknown, 'an UNKNOWN result').to.exist;
        const op = st.proxy.operations.find((o) => o.id === unknown.result!.operation_id)!;
        expect(op.happened).to.equal(true);
        const retry = st.actions.find((a) => a.index > unknown.index && a.tool === 'retry_operation')!;
        expect(retry.args).to.deep.equal({ operation_id: op.id });
        expect(retry.result).to.deep.include({ outcome: 'ok', status: op.status });
        expect(retry.result!.body).to.deep.equal(op.body);
        expect(st.proxy.writes.filter((w) => w.via === 'retry_operation')).to.deep.equal([]);
        expect(st.oracle!.duplicate_effects).to.deep.equal([]);
        expect(st.reward).to.equal(1);
      });

      it('timeout_before: UNKNOWN, then retry_operation carries the write out exactly once', async () => {
        if (!pick) return expect.fail(`${name} has no scenario whose plan writes`);
        const st = await faulted(sandboxes, src, pick.scenario, pick.tool, 'timeout_before', 'builtin:reference');
        const unknown = st.actions.find((a) => a.tool === pick!.tool && a.result?.outcome === 'unknown')!;
        const op = st.proxy.operations.find((o) => o.id === unknown.result!.operation_id)!;
        const viaRetry = st.proxy.writes.filter((w) => w.via === 'retry_operation');
        expect(viaRetry).to.have.length(1);
        expect(viaRetry[0]!.args).to.deep.equal(op.args);
        expect(st.oracle!.duplicate_effects).to.deep.equal([]);
        expect(st.reward).to.equal(1);
      });
    });
  }

  it('the naive agent repeats a write after UNKNOWN: a duplicate effect in a chat world', async () => {
    for (const name of worlds) {
      const src = await loadApplicationSource(path.join(CATALOG_APPS, name));
      const pick = writingScenario(src);
      if (src.manifest.customer.channel !== 'chat' || !pick) continue;
      const st = await faulted(sandboxes, src, pick.scenario, pick.tool, 'drop_response', 'builtin:naive');
      expect(st.oracle!.duplicate_effects.map((d) => d.tool)).to.include(pick.tool);
      expect(st.actions.some((a) => a.tool === 'retry_operation')).to.equal(false);
      return;
    }
    expect.fail('no chat world with a writing scenario in the catalog');
  });

  describe('fault schedules of catalog scenarios (docs/worlds.md, Fault schedules)', () => {
    for (const name of worlds) {
      it(`${name}: one scenario per mode; the reference agent copes and scores 1, the fault hit the scheduled call`, async () => {
        const src = await loadApplicationSource(path.join(CATALOG_APPS, name));
        const faultedOnes = scenariosOf(src, 30).filter((s) => s.faults);
        expect(faultedOnes.map((s) => s.faults![0]!.mode).sort()).to.deep.equal([
          'drop_response',
          'error',
          'rate_limit',
          'timeout_before',
        ]);
        for (const scenario of faultedOnes) {
          const fault = scenario.faults![0]!;
          const { state, events } = await runEpisode(sandboxes, src, scenario, { model: 'builtin:reference' });
          const label = `${scenario.id} ${fault.mode} on ${fault.tool}`;
          expect(state.reward, label).to.equal(1);
          expect(
            events.events.filter((e) => e.type === 'fault.injected').map((e) => e.data),
            label,
          ).to.deep.include({ tool: fault.tool, fault_mode: fault.mode, count: 1, source: 'scenario' });
          // the first call of the tool that reached the proxy met the fault (default stress may refuse one write before it)
          const first = state.actions.find((a) => a.tool === fault.tool && a.result?.outcome !== 'refused')!;
          if (fault.mode === 'error') expect(first.result, label).to.deep.include({ outcome: 'error', status: 503 });
          else if (fault.mode === 'rate_limit') expect(first.result, label).to.deep.include({ status: 429 });
          else expect(first.result!.outcome, label).to.equal('unknown');
          if (fault.mode === 'drop_response' || fault.mode === 'timeout_before')
            expect(
              state.actions.some((a) => a.tool === 'retry_operation'),
              label,
            ).to.equal(true);
          expect(state.oracle!.duplicate_effects, label).to.deep.equal([]);
        }
      });
    }

    it('the naive agent meets the same scheduled fault, never uses retry_operation, and the same checks score it low', async () => {
      const src = await loadApplicationSource(path.join(CATALOG_APPS, 'shop-support'));
      const scenario = scenariosOf(src, 30).find((s) => s.faults?.[0]?.mode === 'drop_response')!;
      const { state } = await runEpisode(sandboxes, src, scenario, { model: 'builtin:naive' });
      const tool = scenario.faults![0]!.tool;
      expect(state.actions.some((a) => a.tool === tool && a.result?.outcome === 'unknown')).to.equal(true);
      expect(state.actions.some((a) => a.tool === 'retry_operation')).to.equal(false);
      expect(state.reward).to.be.at.most(0.5);
    });
  });
});
