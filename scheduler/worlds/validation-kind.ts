import { Collections } from '../../core/index.js';
import { ServiceError } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import { familiesBySplit } from '../../world/index.js';
import { BUILD_WORK, calibrationJudgeCost, type ScenarioVerdict, type TrialResult } from '../../world-worker/index.js';
import type { JobKind, PhaseContext } from '../jobs/index.js';
import { reportOf } from './publish.js';
import type { ScenarioDoc, ScenarioStatus, WorldVersionDoc } from './types.js';
import { codeOfVersion } from '../code-trust.js';
import { callWorker } from './worker-calls.js';
import { modelReport, playWithModel, unsolvedWithoutKey, type ModelTrial } from './validation-model.js';

/** Input of a `world_validation` job. */
export interface ValidationInput {
  world_version_id: string;
  /** Scenario records to validate. */
  scenario_ids: string[];
  /** `version`: POST .../validate (withdraws unfair ones); `added`: a caller's new scenarios (decides their status). */
  mode: 'version' | 'added';
  /** The model agent's chain that plays every fair scenario without the answer key; null or absent: none. */
  model?: string | null;
}

interface ValidationState {
  /** Scenario record id -> replay verdict. */
  verdicts?: Record<string, ScenarioVerdict>;
  /** Scenario record id -> live-agent trial (only for scenarios whose replays passed). */
  trials?: Record<string, TrialResult>;
  /** Scenario record id -> the model agent's trial (only for scenarios the reference agent completed). */
  model_trials?: Record<string, ModelTrial>;
}

/** Why a scenario is unfair, in sentences; empty when it is fair. */
export function unfairness(verdict: ScenarioVerdict, trial: TrialResult | undefined): string[] {
  if (!verdict.passed) return verdict.problems;
  if (trial && !trial.success) {
    const checks = trial.failed_checks.length > 0 ? `; failing checks: ${trial.failed_checks.join(', ')}` : '';
    return [
      `a live agent (${trial.agent}) following the reference plan could not complete it in an episode: it ended ${trial.termination ?? 'without an ending'}${checks}`,
    ];
  }
  return [];
}

async function versionOf(ctx: PhaseContext<ValidationInput>): Promise<WorldVersionDoc> {
  const { world_version_id } = ctx.input;
  const wv = await ctx.deps.adapters.store.get<WorldVersionDoc>(Collections.worldVersions, world_version_id);
  if (!wv?.compiled || !wv.source_digest)
    throw new ServiceError('gone', `world version ${world_version_id} is not a published version any more`);
  return wv;
}

/**
 * The `world_validation` job. replay: every scenario's reference plan twice on fresh
 * data; agent_trial: each scenario whose replays passed is played as a whole episode by
 * a live agent (the built-in reference agent, through the customer simulator and turn
 * loop), then, with `input.model`, once more by the model agent without the answer key
 * (validation-model.ts); decide: a scenario whose plan fails, whose replays differ, that
 * is impossible under its own policy, or that the live agent cannot complete is unfair and
 * withdrawn (a caller's new scenario that passes is approved when the version
 * auto-approves, else waits for approval); one the model agent could not solve is flagged
 * `unsolved_without_key` and keeps its status.
 */
export const worldValidationKind: JobKind<ValidationInput> = {
  kind: 'world_validation',
  phaseEvents: { started: 'compiler.phase.started', finished: 'compiler.phase.finished' },
  phases: [
    {
      name: 'replay',
      async run(ctx) {
        const { scenario_ids } = ctx.input;
        const wv = await versionOf(ctx);
        let done = 0;
        for (const id of scenario_ids) {
          const saved = ctx.checkpoint<ValidationState>().verdicts ?? {};
          if (saved[id]) continue;
          await ctx.stopIfRequested();
          const sc = await ctx.deps.adapters.store.get<ScenarioDoc>(Collections.scenarios, id);
          if (!sc) continue;
          const { verdicts } = await callWorker(
            ctx,
            BUILD_WORK.replay,
            {
              scenarios: [sc.specification],
              times: 2,
              images: wv.compiled!.images,
              judge: { project_id: ctx.job.project_id, model: wv.compiled!.manifest.judge?.model ?? null },
            },
            codeOfVersion(wv),
          );
          const verdict = verdicts[0]!;
          if (verdict.environment_error)
            throw new ServiceError(
              'unavailable',
              `the application's services did not start in a sandbox: ${verdict.environment_error}`,
            );
          await ctx.save({ verdicts: { ...saved, [id]: verdict } });
          // the build's judge read the judge-addressing calibration agent: the job pays its calls (once the verdict is saved)
          await ctx.spend(calibrationJudgeCost(verdict));
          done++;
          await ctx.emit(
            'build.scenario.validated',
            `${sc.scenario_id} ${verdict.passed ? 'passed' : 'failed'} validation`,
            {
              scenario_id: sc.scenario_id,
              passed: verdict.passed,
              split: sc.split,
              deterministic: verdict.deterministic,
              problems: verdict.problems,
            },
          );
          await ctx.emit('job.progress', `replayed ${done} of ${scenario_ids.length}`, {
            phase: 'replay',
            completed: done,
            total: scenario_ids.length,
          });
        }
      },
    },
    {
      name: 'agent_trial',
      async run(ctx) {
        const { scenario_ids } = ctx.input;
        const wv = await versionOf(ctx);
        const verdicts = ctx.checkpoint<ValidationState>().verdicts ?? {};
        const fairOnes = scenario_ids.filter((id) => verdicts[id]?.passed);
        let done = 0;
        const model = ctx.input.model ?? null;
        for (const id of fairOnes) {
          const saved = ctx.checkpoint<ValidationState>().trials ?? {};
          if (saved[id]) {
            if (model) await modelTrial(ctx, wv, id, saved[id], model, fairOnes.length);
            continue;
          }
          await ctx.stopIfRequested();
          const sc = await ctx.deps.adapters.store.get<ScenarioDoc>(Collections.scenarios, id);
          if (!sc) continue;
          const { trials } = await callWorker(
            ctx,
            BUILD_WORK.trial,
            { scenarios: [sc.specification], images: wv.compiled!.images },
            codeOfVersion(wv),
          );
          const trial = trials[0]!;
          if (trial.environment_error)
            throw new ServiceError(
              'unavailable',
              `the world failed during the live-agent episode of ${sc.scenario_id}: ${trial.environment_error}`,
            );
          await ctx.save({ trials: { ...saved, [id]: trial } });
          done++;
          await ctx.emit('job.progress', `live agent ${trial.success ? 'completed' : 'failed'} ${sc.scenario_id}`, {
            phase: 'agent_trial',
            completed: done,
            total: fairOnes.length,
          });
          if (model) await modelTrial(ctx, wv, id, trial, model, fairOnes.length);
        }
      },
    },
    {
      name: 'decide',
      async run(ctx) {
        const { scenario_ids, mode } = ctx.input;
        const wv = await versionOf(ctx);
        const { verdicts = {}, trials = {}, model_trials = {} } = ctx.checkpoint<ValidationState>();
        const store = ctx.deps.adapters.store;
        const withdrawn: Array<{ scenario_id: string; reasons: string[] }> = [];
        const unsolved: UnsolvedForReview[] = [];
        const outcome: Array<{ id: string; scenario_id: string; status: ScenarioStatus }> = [];
        for (const id of scenario_ids) {
          const sc = await store.get<ScenarioDoc>(Collections.scenarios, id);
          const verdict = verdicts[id];
          if (!sc || !verdict) continue;
          const trial = trials[id];
          const reasons = unfairness(verdict, trial);
          let status: ScenarioStatus = sc.status;
          if (reasons.length > 0) status = 'withdrawn';
          else if (mode === 'added' && sc.status === 'validating')
            status = wv.options.auto_approve ? 'approved' : 'pending_approval';
          if (status === 'withdrawn' && sc.status !== 'withdrawn')
            withdrawn.push({ scenario_id: sc.scenario_id, reasons });
          // flagged, not withdrawn: a model's failure does not prove the scenario unfair
          const modelTried = reasons.length === 0 ? model_trials[id] : undefined;
          const unsolvedReason = unsolvedWithoutKey(modelTried);
          if (unsolvedReason && modelTried && trial)
            unsolved.push(forReview(sc.scenario_id, unsolvedReason, modelTried as TrialResult, trial));
          const report = {
            ...reportOf(verdict, trial ? { agent_trial: { ...trial } } : {}),
            ...modelReport(modelTried),
            passed: reasons.length === 0,
            problems: reasons,
          };
          await store.update(Collections.scenarios, id, { status, validation_report: report, updated_at: nowIso() });
          outcome.push({ id, scenario_id: sc.scenario_id, status });
        }
        const modelPart = ctx.input.model
          ? {
              model: ctx.input.model,
              model_played: Object.values(model_trials).filter((t) => !('skipped' in t)).length,
              model_skipped: Object.values(model_trials).filter((t) => 'skipped' in t).length,
              unsolved_without_key: unsolved,
              spent_usd: ctx.job.spent_usd,
            }
          : {};
        // scenarios added since the build bring families of their own
        const live = await store.find<ScenarioDoc>(Collections.scenarios, {
          world_version_id: wv._id,
          status: { $in: ['approved', 'pending_approval', 'validating'] },
        });
        const report = {
          ...(wv.validation_report ?? {}),
          families: familiesBySplit(live),
          last_validation: {
            job_id: ctx.job._id,
            mode,
            at: nowIso(),
            validated: outcome.length,
            withdrawn,
            ...modelPart,
          },
        };
        await store.update(Collections.worldVersions, wv._id, { validation_report: report, updated_at: nowIso() });
        ctx.setResult({
          world_version_id: wv._id,
          validated: outcome.length,
          withdrawn,
          ...modelPart,
          scenarios: outcome,
        });
      },
    },
  ],
};

/**
 * A scenario no agent without the answer key solved, listed for the owner's review: why, the
 * model agent's transcript and result, and beside it the reference agent's result (which
 * solved it with the key) with its transcript (docs/scoring.md, The model agent).
 */
interface UnsolvedForReview {
  scenario_id: string;
  reason: string;
  transcript: TrialResult['transcript'] | null;
  model_agent: Omit<TrialResult, 'transcript'>;
  reference_agent: Omit<TrialResult, 'transcript'> & { transcript: TrialResult['transcript'] | null };
}

function forReview(scenarioId: string, reason: string, model: TrialResult, reference: TrialResult): UnsolvedForReview {
  const { transcript, ...modelResult } = model;
  return {
    scenario_id: scenarioId,
    reason,
    transcript: transcript ?? null,
    model_agent: modelResult,
    reference_agent: { ...reference, transcript: reference.transcript ?? null },
  };
}

/**
 * The model agent's try of a scenario the reference agent completed (validation-model.ts),
 * once: saved in the checkpoint so a resumed job neither replays nor pays for it again.
 */
async function modelTrial(
  ctx: PhaseContext<ValidationInput>,
  wv: WorldVersionDoc,
  id: string,
  reference: TrialResult,
  model: string,
  total: number,
): Promise<void> {
  const saved = ctx.checkpoint<ValidationState>().model_trials ?? {};
  if (saved[id] || !reference.success) return;
  await ctx.stopIfRequested();
  const sc = await ctx.deps.adapters.store.get<ScenarioDoc>(Collections.scenarios, id);
  if (!sc) return;
  const trial = await playWithModel(ctx, wv, sc, model);
  await ctx.save({ model_trials: { ...saved, [id]: trial } });
  const played =
    'skipped' in trial
      ? `skipped ${sc.scenario_id}: ${trial.skipped}`
      : `${trial.success ? 'solved' : 'did not solve'} ${sc.scenario_id}`;
  await ctx.emit('job.progress', `model agent ${model} ${played}`, {
    phase: 'agent_trial',
    agent: model,
    scenario_id: sc.scenario_id,
    completed: Object.keys(saved).length + 1,
    total,
    spent_usd: ctx.job.spent_usd,
  });
}
