import { Collections } from '../../core/index.js';
import { EventLog } from '../../core/index.js';
import { newId, nowIso } from '../../core/index.js';
import { accepted, type OperationHandler, type SchedulerDeps } from '../context.js';
import { jobsOf } from '../jobs/index.js';
import { body, requirePrincipal } from '../../core/index.js';
import { pinScenarios, scenarioSetHash, type ScenarioDoc } from '../worlds/index.js';
import { newAttempt } from './attempts.js';
import { assertAllowanceLeft } from '../../billing/index.js';
import { checkRunAllowed, runStartTime } from '../../billing/index.js';
import { planRun, type EvaluationBody, type RunPlan } from './plan.js';
import { computeSummary, emptySummary } from './summaries/summary.js';
import { RUN_JOB, SHARD_JOB, SHARD_SIZE, type RunDoc, type RunEpisodeDoc, type RunProfile } from './types.js';

/** One planned episode: a scenario, a profile, a repeat. */
export interface Slot {
  index: number;
  scenario: ScenarioDoc;
  profile: RunProfile;
  repeat: number;
}

/**
 * The run's slots in placement order: repeat, then scenario, then profile, so every
 * profile meets the same scenarios at about the same time and the first repeats of all
 * scenarios come before the second ones.
 */
export function slotsOf(plan: Pick<RunPlan, 'scenarios' | 'profiles'>, repeats: number): Slot[] {
  const out: Slot[] = [];
  for (let repeat = 1; repeat <= repeats; repeat++) {
    for (const scenario of plan.scenarios)
      for (const profile of plan.profiles) out.push({ index: out.length, scenario, profile, repeat });
  }
  return out;
}

/**
 * POST /v1/evaluations: checks the request (planRun) and the plan (checkRunAllowed), then
 * stores the run (`queued`), one queued episode per slot, one `run_shard` job per
 * SHARD_SIZE slots and the run's coordinator job (`run`), whose id is the answer's
 * `job_id`. Shards start placing at once, or at `starts_at` when the organization's runs
 * wait for quiet hours. Answers 202 `{run_id, job_id, episodes, shards, starts_at?}`.
 */
export const createEvaluation: OperationHandler = async (ctx, deps) => {
  const p = requirePrincipal(ctx);
  const plan = await planRun(deps, p.projectId, body<EvaluationBody>(ctx));
  const slots = slotsOf(plan, plan.config.repeats);
  const spends =
    plan.profiles.some((pr) => pr.driver === 'llm' && !(pr.model ?? '').startsWith('builtin:')) ||
    plan.simulators.customer.prices.length > 0 ||
    plan.simulators.judge.prices.length > 0;
  await checkRunAllowed(deps, p.projectId, slots.length);
  if (spends) await assertAllowanceLeft(deps, p.organizationId);
  const startsAt = await runStartTime(deps.billedAccounts, p.projectId, deps.config.quietHoursUtc);
  const run = await storeRun(deps, p.projectId, plan, slots, startsAt);
  await new EventLog(deps.adapters.store, deps.adapters.bus).append({
    stream: run._id,
    project_id: run.project_id,
    type: 'run.started',
    summary: `run of ${run.episodes} episodes (${plan.profiles.map((x) => x.label).join(', ')}) on world version ${run.world_version_id}${startsAt ? `, starting in quiet hours at ${startsAt}` : ''}`,
    data: {
      world_version_id: run.world_version_id,
      profiles: run.profiles.map((x) => x.label),
      episodes: run.episodes,
      shards: run.shard_ids.length,
      starts_at: startsAt,
      simulators: { customer: plan.simulators.customer.model, judge: plan.simulators.judge.model },
    },
  });
  const jobs = jobsOf(deps);
  for (const [i, shardId] of run.shard_ids.entries()) {
    const mine = slots.slice(i * SHARD_SIZE, (i + 1) * SHARD_SIZE).map((s) => s.index);
    await jobs.create({
      id: shardId,
      projectId: p.projectId,
      kind: SHARD_JOB,
      input: { run_id: run._id, shard: i, slots: mine },
    });
  }
  await jobs.create({
    id: run.job_id,
    projectId: p.projectId,
    kind: RUN_JOB,
    input: { run_id: run._id },
    budgetUsd: plan.config.budget_usd,
  });
  return accepted({
    run_id: run._id,
    job_id: run.job_id,
    episodes: run.episodes,
    shards: run.shard_ids.length,
    ...(startsAt ? { starts_at: startsAt } : {}),
  });
};

async function storeRun(
  deps: SchedulerDeps,
  projectId: string,
  plan: RunPlan,
  slots: Slot[],
  startsAt: string | null,
): Promise<RunDoc> {
  const store = deps.adapters.store;
  const now = nowIso();
  const wv = plan.worldVersion;
  const scenarioSet = pinScenarios(plan.scenarios);
  const shardIds = Array.from({ length: Math.ceil(slots.length / SHARD_SIZE) }, () => newId('job'));
  const run = await store.insert<RunDoc>(Collections.runs, {
    _id: newId('run'),
    project_id: projectId,
    status: 'queued',
    config: plan.config,
    world_id: wv.world_id,
    world_version_id: wv._id,
    world_content_hash: wv.world_content_hash!,
    profiles: plan.profiles,
    simulators: plan.simulators,
    job_id: newId('job'),
    shard_ids: shardIds,
    episodes: slots.length,
    scenarios: plan.scenarios.length,
    scenario_set: scenarioSet,
    scenario_set_hash: scenarioSetHash(scenarioSet),
    ...(startsAt ? { starts_at: startsAt } : {}),
    spent_usd: 0,
    error: null,
    summary: emptySummary(plan.profiles, slots.length, plan.config.repeats),
    created_at: now,
    updated_at: now,
    started_at: null,
    ended_at: null,
  });
  const attempts: RunEpisodeDoc[] = [];
  for (const slot of slots) {
    const attempt = await newAttempt(store, run, {
      slot: slot.index,
      shard_id: shardIds[Math.floor(slot.index / SHARD_SIZE)]!,
      scenario: slot.scenario,
      profile: slot.profile,
      repeat: slot.repeat,
      attempt: 1,
      replaces: null,
    });
    attempts.push(attempt);
  }
  // the summary counts the queued attempts from the start; the run's coordinator keeps it up to date
  const summary = computeSummary(run, attempts);
  await store.update<RunDoc>(Collections.runs, run._id, { summary });
  return { ...run, summary };
}
