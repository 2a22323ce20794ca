import { Collections, ServiceError, type OperationContext, type Principal } from '../../core/index.js';
import { JobInterrupted, type JobDoc, type PhaseContext } from '../jobs/index.js';
import { comparePair, loadRun, runEpisodes, runHandlers, RUN_ENDED, type RunDoc } from '../runs/index.js';
import type { ImprovementInput } from './kind.js';

/** How often the job looks at its check run. */
const POLL_MS = 1000;

/** The dev check of a candidate (docs/improvements.md, Checking on dev), as the result shows it. */
export interface DevCheck {
  run_id: string;
  status: string;
  world_version_id: string;
  scenarios: number;
  /** The base version's mean dev reward in the source run, over the scenarios both scored. */
  base_dev_score: number | null;
  /** The candidate's mean dev reward in the check run, over the same scenarios. */
  candidate_dev_score: number | null;
  difference: number | null;
  difference_ci: [number, number] | null;
  p_value: number | null;
  /** `better`, `worse`, `within_noise`, or `not_enough_data` when no scenario was scored by both. */
  verdict: 'better' | 'worse' | 'within_noise' | 'not_enough_data';
  statement: string;
  cost_usd: number;
}

/** The dev scenarios the source run scored for the profile (doc ids), in a stable order. */
export async function sourceDevScenarios(
  store: PhaseContext['deps']['adapters']['store'],
  runId: string,
  profileId: string,
): Promise<string[]> {
  const eps = await runEpisodes(store, runId);
  return [
    ...new Set(eps.filter((e) => e.profile_id === profileId && e.split === 'dev').map((e) => e.scenario_doc_id)),
  ].sort();
}

/**
 * Starts the check run of `candidateId`: a real evaluation (POST /v1/evaluations, same
 * checks, quotas and quiet hours) of the source run's dev scenarios on the same world
 * version, with the source run's repeats and stress, and what is left of the job's budget.
 */
export async function startCheckRun(
  ctx: PhaseContext<ImprovementInput>,
  source: RunDoc,
  candidateId: string,
): Promise<string> {
  const scenarioIds = await sourceDevScenarios(ctx.deps.adapters.store, source._id, ctx.input.profile_id);
  if (scenarioIds.length === 0)
    throw new ServiceError(
      'validation_failed',
      `run ${source._id} holds no dev episodes of the profile to compare with`,
    );
  const principal: Principal = {
    projectId: ctx.job.project_id,
    organizationId: ctx.input.organization_id ?? '',
    keyId: null,
    userId: null,
    sessionId: null,
    scopes: ['write'],
    isOperator: false,
  };
  const left = ctx.budgetLeft();
  const request: OperationContext = {
    operationId: 'create_evaluation',
    principal,
    params: {},
    query: {},
    body: {
      world_version_id: source.world_version_id,
      profile_ids: [candidateId],
      scenario_ids: scenarioIds,
      repeats: source.config.repeats,
      default_stress: source.config.default_stress,
      ...(left !== null ? { budget_usd: left } : {}),
      ...(source.config.max_episode_cost_usd !== null
        ? { max_episode_cost_usd: source.config.max_episode_cost_usd }
        : {}),
    },
    attachment: null,
    attachmentName: null,
    clientAddress: '127.0.0.1',
    userAgent: `improvement job ${ctx.job._id}`,
  };
  const reply = await runHandlers.create_evaluation!(request, ctx.deps);
  return (reply.body as { run_id: string }).run_id;
}

/**
 * Waits for the check run to end (the job's stop is passed on to the run), reports its cost,
 * and compares the candidate's dev episodes with the base version's
 * dev episodes of the source run, scenario by scenario (runs/compare.ts `comparePair`).
 */
export async function finishCheck(
  ctx: PhaseContext<ImprovementInput>,
  source: RunDoc,
  runId: string,
  baseLabel: string,
  candidate: { id: string; label: string },
): Promise<DevCheck> {
  const store = ctx.deps.adapters.store;
  let run = await loadRun(store, ctx.job.project_id, runId);
  while (!RUN_ENDED.includes(run.status)) {
    if (await ctx.shouldStop()) {
      // a stopped job stops its run; a paused one lets it go on and waits for it again on resume
      const job = await store.get<JobDoc>(Collections.jobs, ctx.job._id);
      if (job?.cancel_requested) await stopRun(ctx, runId);
      throw new JobInterrupted();
    }
    await ctx.sleep(POLL_MS);
    run = await loadRun(store, ctx.job.project_id, runId);
  }
  // the run's spend is its episodes' (billed as episodes) and was bounded by what the job's budget
  // had left; adding it to the job's spent_usd would count it twice in the organization's usage
  const spent = Math.round((run.spent_usd ?? 0) * 1e6) / 1e6;
  const devOfSource = (await runEpisodes(store, source._id)).filter((e) => e.split === 'dev');
  const cmp = comparePair(
    { run: source, label: baseLabel, episodes: devOfSource },
    ctx.input.profile_id,
    { run, label: candidate.label, episodes: await runEpisodes(store, runId) },
    candidate.id,
  ) as {
    scenarios: number;
    mean_reward_a: number | null;
    mean_reward_b: number | null;
    difference: number | null;
    difference_ci: [number, number] | null;
    p_value: number | null;
    verdict: string;
    statement: string;
  };
  const verdict =
    cmp.verdict === 'b_better'
      ? 'better'
      : cmp.verdict === 'a_better'
        ? 'worse'
        : cmp.verdict === 'within_noise'
          ? 'within_noise'
          : 'not_enough_data';
  const says = {
    better: `${candidate.label} scored better than ${baseLabel} on dev`,
    worse: `${candidate.label} scored worse than ${baseLabel} on dev`,
    within_noise: `${candidate.label} and ${baseLabel} are within noise on dev`,
    not_enough_data: `${candidate.label} could not be compared with ${baseLabel} on dev`,
  }[verdict];
  return {
    run_id: runId,
    status: run.status,
    world_version_id: run.world_version_id,
    scenarios: cmp.scenarios,
    base_dev_score: cmp.mean_reward_a,
    candidate_dev_score: cmp.mean_reward_b,
    difference: cmp.difference,
    difference_ci: cmp.difference_ci,
    p_value: cmp.p_value,
    verdict,
    statement: `${says} (${cmp.mean_reward_a ?? 'n/a'} -> ${cmp.mean_reward_b ?? 'n/a'} over ${cmp.scenarios} dev scenarios): ${cmp.statement}${run.status === 'finished' ? '' : `; the check run ended ${run.status}${run.error ? `: ${run.error}` : ''}`}`,
    cost_usd: spent,
  };
}

/** Passes the job's stop on to its check run (a run that already ended is left alone). */
async function stopRun(ctx: PhaseContext<ImprovementInput>, runId: string): Promise<void> {
  try {
    await runHandlers.command_run!(
      {
        operationId: 'command_run',
        principal: {
          projectId: ctx.job.project_id,
          organizationId: ctx.input.organization_id ?? '',
          keyId: null,
          userId: null,
          sessionId: null,
          scopes: ['write'],
          isOperator: false,
        },
        params: { run_id: runId },
        query: {},
        body: { command: 'stop' },
        attachment: null,
        attachmentName: null,
        clientAddress: '127.0.0.1',
        userAgent: `improvement job ${ctx.job._id}`,
      },
      ctx.deps,
    );
  } catch (err) {
    if (!(err instanceof ServiceError && err.code === 'conflict')) throw err;
  }
}
