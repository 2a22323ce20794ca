import { ServiceError } from '../../core/index.js';
import { isBuiltinModel, parseModelChain } from '../../core/index.js';
import { expandAll, expandScenarios, instantiate } from '../../world/index.js';
import { BUILD_WORK, calibrationJudgeCost, type ScenarioVerdict } from '../../world-worker/index.js';
import type { JobPhase, PhaseContext } from '../jobs/index.js';
import { need, type BuildInput, type BuildScenario, type BuildState, type WithdrawnScenario } from './build-state.js';
import { proposeScenarios } from './proposals.js';
import { repairWithModel } from './model-repair.js';
import { codeOfSource } from '../code-trust.js';
import { callWorker } from './worker-calls.js';

/**
 * generate_scenarios: the templates expanded deterministically to `scenario_target`
 * (docs/worlds.md, Expansion and splits); with a non-built-in model, also the model's
 * proposals that pass the schema and cross-checks.
 */
export const generatePhase: JobPhase<BuildInput> = {
  name: 'generate_scenarios',
  async run(ctx) {
    const { options } = ctx.input;
    const state = ctx.checkpoint<BuildState>();
    const { manifest, templates } = need(state, 'analysis');
    // an imported benchmark (`expand: all`) keeps every task, beyond the target's 30
    const expanded =
      manifest.expand === 'all'
        ? expandAll(templates, manifest.name)
        : expandScenarios(templates, options.scenario_target, manifest.name);
    const next_variant: Record<string, number> = {};
    for (const t of templates) next_variant[t.id] = expanded.filter((s) => s.template === t.id).length;
    const scenarios: BuildScenario[] = expanded.map((scenario) => ({ scenario, origin: 'build' }));
    const models = parseModelChain(options.model).filter((m) => !isBuiltinModel(m));
    let proposals: Record<string, unknown> = {
      model: options.model,
      requested: 0,
      note: 'built-in model: templates are expanded deterministically, no proposals',
    };
    if (models.length > 0) {
      const got = await proposeScenarios(ctx, models, state, options.scenario_target);
      scenarios.push(...got.scenarios.map((scenario) => ({ scenario, origin: 'model' as const })));
      proposals = got.report;
    }
    await ctx.save({ scenarios, next_variant, proposals, verdicts: {}, withdrawn: [], repair_rounds: 0 });
    await ctx.emit('job.progress', `${scenarios.length} scenarios generated`, {
      phase: 'generate_scenarios',
      completed: scenarios.length,
      total: scenarios.length,
      message: `${expanded.length} from templates`,
    });
  },
};

/** validate: replays every scenario's reference plan, twice when `check_determinism`. */
export const validatePhase: JobPhase<BuildInput> = {
  name: 'validate',
  run: (ctx) => validatePending(ctx),
};

/**
 * repair: up to `max_repair_rounds` rounds, each failing scenario is replaced by the next
 * unused variant of its template and validated; one whose template has none left (or a
 * model proposal) is withdrawn. What still fails after the last round is withdrawn.
 * Every choice depends only on the verdicts, so the same input repairs the same way.
 */
export const repairPhase: JobPhase<BuildInput> = {
  name: 'repair',
  async run(ctx) {
    const { options } = ctx.input;
    await validatePending(ctx);
    let state = ctx.checkpoint<BuildState>();
    let round = state.repair_rounds ?? 0;
    const models = parseModelChain(options.model).filter((m) => !isBuiltinModel(m));
    const failing = (s: BuildState) => need(s, 'scenarios').filter((b) => !s.verdicts?.[b.scenario.id]?.passed);
    while (round < options.max_repair_rounds && failing(state).length > 0) {
      const { templates, manifest } = need(state, 'analysis');
      const next = { ...need(state, 'next_variant') };
      const withdrawn = [...(state.withdrawn ?? [])];
      const scenarios: BuildScenario[] = [];
      const byModel: Array<{ build: BuildScenario; verdict: ScenarioVerdict | undefined }> = [];
      for (const b of need(state, 'scenarios')) {
        const verdict = state.verdicts?.[b.scenario.id];
        if (verdict?.passed) {
          scenarios.push(b);
          continue;
        }
        // a world the model wrote, and the model's own proposals, are repaired by the model from the report
        if (models.length > 0 && (state.authoring || b.origin === 'model')) {
          byModel.push({ build: b, verdict });
          continue;
        }
        const t = templates.find((x) => x.id === b.scenario.template);
        const idx = next[b.scenario.template] ?? 0;
        const vars = b.origin === 'build' ? t?.variants[idx] : undefined;
        if (t && vars) {
          const replacement = instantiate(t, idx, vars, manifest.name, b.scenario.split);
          next[t.id] = idx + 1;
          scenarios.push({ scenario: replacement, origin: 'build' });
          withdrawn.push(withdraw(b, verdict, replacement.id));
        } else {
          withdrawn.push(withdraw(b, verdict, null));
        }
      }
      round++;
      const model_repairs = [...(state.model_repairs ?? [])];
      if (byModel.length > 0) {
        const { outcomes, report } = await repairWithModel(ctx, models, state, byModel, round);
        model_repairs.push(report);
        for (const [i, o] of outcomes.entries()) {
          const b = byModel[i]!;
          if (o.replacement) scenarios.push({ scenario: o.replacement, origin: 'model' });
          withdrawn.push(withdraw(b.build, b.verdict, o.replacement?.id ?? null));
          await ctx.emit(
            'job.progress',
            o.replacement
              ? `repaired ${o.scenario_id} with the model as ${o.replacement.id}`
              : `withdrew ${o.scenario_id}: the model's repair was refused (${o.problems[0]})`,
            {
              phase: 'repair',
              completed: i + 1,
              total: outcomes.length,
              message: (b.verdict?.problems ?? []).join('; ').slice(0, 300),
            },
          );
        }
      }
      await ctx.save({ scenarios, next_variant: next, withdrawn, repair_rounds: round, model_repairs });
      await ctx.emit('job.progress', `repair round ${round}`, {
        phase: 'repair',
        completed: round,
        total: options.max_repair_rounds,
        message: `${withdrawn.length} scenarios withdrawn so far`,
      });
      await validatePending(ctx);
      state = ctx.checkpoint<BuildState>();
    }
    const rest = failing(state);
    if (rest.length > 0) {
      const ids = new Set(rest.map((b) => b.scenario.id));
      await ctx.save({
        scenarios: need(state, 'scenarios').filter((b) => !ids.has(b.scenario.id)),
        withdrawn: [...(state.withdrawn ?? []), ...rest.map((b) => withdraw(b, state.verdicts?.[b.scenario.id], null))],
      });
    }
  },
};

function withdraw(
  b: BuildScenario,
  verdict: ScenarioVerdict | undefined,
  replacedBy: string | null,
): WithdrawnScenario {
  return {
    ...b,
    reasons: verdict?.problems.length ? verdict.problems : ['it did not pass validation'],
    replaced_by: replacedBy,
  };
}

/**
 * Validates every scenario of the build that has no verdict yet, one worker call each,
 * saving each verdict as it comes (a pause or restart loses at most one replay).
 *
 * @throws ServiceError('unavailable') when the application's services do not start: the
 *   world, not one scenario, is broken, so the build fails saying why.
 */
export async function validatePending(ctx: PhaseContext<BuildInput>): Promise<void> {
  const { options, application } = ctx.input;
  const times = options.check_determinism ? 2 : 1;
  let state = ctx.checkpoint<BuildState>();
  const source = need(state, 'source');
  const pending = need(state, 'scenarios').filter((b) => !state.verdicts?.[b.scenario.id]);
  let done = 0;
  for (const b of pending) {
    await ctx.stopIfRequested();
    const { verdicts } = await callWorker(
      ctx,
      BUILD_WORK.replay,
      {
        scenarios: [b.scenario],
        times,
        images: application.images,
        // the judge-addressing calibration agent meets the build's judge (docs/scoring.md, Calibration)
        judge: { project_id: ctx.job.project_id, model: options.judge_model ?? null },
      },
      codeOfSource(source),
    );
    const verdict = verdicts[0]!;
    if (verdict.environment_error)
      throw new ServiceError(
        'unavailable',
        `the application's services did not start in a sandbox: ${verdict.environment_error}`,
      );
    state = ctx.checkpoint<BuildState>();
    await ctx.save({ verdicts: { ...state.verdicts, [b.scenario.id]: verdict } });
    // the build's judge read the judge-addressing calibration agent: the job pays its calls (once the verdict is saved)
    await ctx.spend(calibrationJudgeCost(verdict));
    done++;
    await ctx.emit('build.scenario.validated', `${b.scenario.id} ${verdict.passed ? 'passed' : 'failed'} validation`, {
      scenario_id: b.scenario.id,
      passed: verdict.passed,
      split: b.scenario.split,
      deterministic: verdict.deterministic,
      problems: verdict.problems,
    });
    await ctx.emit('job.progress', `validated ${done} of ${pending.length}`, {
      phase: ctx.phase,
      completed: done,
      total: pending.length,
      message: `replayed ${b.scenario.id} ${times} time${times > 1 ? 's' : ''}`,
    });
  }
}
