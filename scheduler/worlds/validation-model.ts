import { BudgetReached, type PhaseContext } from '../jobs/index.js';
import { BUILD_WORK, type TrialResult } from '../../world-worker/index.js';
import type { ScenarioDoc, WorldVersionDoc } from './types.js';
import type { ValidationInput } from './validation-kind.js';
import { codeOfVersion } from '../code-trust.js';
import { pinSimulators, simulatorModels } from './simulators.js';
import { callWorker } from './worker-calls.js';

/** A scenario the validation's model agent did not play, and why. */
export interface SkippedTrial {
  scenario_id: string;
  skipped: string;
}

export type ModelTrial = TrialResult | SkippedTrial;

const isSkipped = (t: ModelTrial): t is SkippedTrial => 'skipped' in t;

/**
 * Plays `sc` once with the validation's model agent (docs/scoring.md, The model agent),
 * without the answer key: the world-worker gives it exactly an external agent's turns
 * through the project's model provider, with the world version's customer and judge. The
 * episode may spend at most what is left of the job's budget; its whole model spend
 * (agent, customer, judge) is charged to the job, and so to the organization's monthly
 * allowance. Once the budget is spent the remaining scenarios are skipped, saying so: the
 * validation itself goes on, since replays and calibration cost nothing.
 */
export async function playWithModel(
  ctx: PhaseContext<ValidationInput>,
  wv: WorldVersionDoc,
  sc: ScenarioDoc,
  model: string,
): Promise<ModelTrial> {
  const left = ctx.budgetLeft();
  if (left !== null && left <= 0)
    return { scenario_id: sc.scenario_id, skipped: `the validation's budget of $${ctx.job.budget_usd} was spent` };
  const { manifest, tools, policies, seed, images } = wv.compiled!;
  // the customer and judge a run of this version would pin now (docs/runs.md, Pinned simulators)
  let simulators;
  try {
    simulators = simulatorModels(
      await pinSimulators(ctx.deps.config, ctx.deps.adapters.store, ctx.job.project_id, manifest),
    );
  } catch (err) {
    return {
      scenario_id: sc.scenario_id,
      skipped: `the world version's simulators cannot run: ${(err as Error).message}`,
    };
  }
  const { trials } = await callWorker(
    ctx,
    BUILD_WORK.trial,
    {
      scenarios: [sc.specification],
      images,
      agent: {
        model,
        project_id: ctx.job.project_id,
        max_cost_usd: left,
        world: { manifest, tools, policies, seed },
        simulators,
      },
    },
    codeOfVersion(wv),
  );
  const trial = trials[0]!;
  try {
    await ctx.spend(trial.spent_usd);
  } catch (err) {
    if (!(err instanceof BudgetReached)) throw err;
  }
  return trial;
}

/**
 * Why no agent without the answer key solved a fair scenario, or null when one did or the
 * model agent's try says nothing (not played, skipped, the world or the provider failed, its
 * own model failed: `agent_error`, or its budget ended the episode). The calibration agents never solve a fair scenario (each
 * scored 0, or it would have been withdrawn as hackable), so the model agent decides.
 */
export function unsolvedWithoutKey(trial: ModelTrial | undefined): string | null {
  if (!trial || isSkipped(trial) || trial.success) return null;
  // the model agent's own model failing (agent_error) says nothing about the scenario either
  if (trial.environment_error !== null || trial.termination === 'budget' || trial.termination === 'agent_error')
    return null;
  const checks = trial.failed_checks.length > 0 ? `; failing checks: ${trial.failed_checks.join(', ')}` : '';
  const cause = trial.failure ? `; failure attributed to the ${trial.failure.cause}: ${trial.failure.reason}` : '';
  return (
    `no agent without the answer key solved it: the model agent (${trial.agent}) ended ${trial.termination ?? 'without an ending'} ` +
    `with reward ${trial.reward ?? 'none'}${checks}${cause}, and the calibration agents scored 0`
  );
}

/** The model agent's part of a scenario's validation report. */
export function modelReport(trial: ModelTrial | undefined): Record<string, unknown> {
  if (!trial) return {};
  const reason = unsolvedWithoutKey(trial);
  return {
    model_trial: { ...trial },
    unsolved_without_key: isSkipped(trial) || (!trial.success && reason === null) ? null : reason !== null,
    ...(reason ? { unsolved_reason: reason } : {}),
  };
}
