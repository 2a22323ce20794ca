import { Collections } from '../../core/index.js';
import type { JobKind, PhaseContext } from '../jobs/index.js';
import { createProfile, loadProfile, profileLabel, type ProfileDoc } from '../profiles/index.js';
import { runEpisodes } from '../runs/index.js';
import { collectFindings, learningEpisodes, type Findings } from './evidence.js';
import { applyChanges, partitionChanges, proposeChanges, type Change } from './rules.js';

/** Job kind of POST /v1/improvements. */
export const IMPROVEMENT_JOB = 'improvement';

/** What the job was asked (validated by the handler). */
export interface ImprovementInput {
  profile_id: string;
  run_id: string;
}

/** The job's result (docs/improvements.md). `profile_id`/`profile` are null when nothing changed. */
export interface ImprovementResult {
  profile_id: string | null;
  profile: string | null;
  based_on: { profile_id: string; profile: string };
  run_id: string;
  episodes_used: Findings['episodes'];
  changes: Change[];
  /** Advice the profile already held although its episodes still showed the problem. */
  already_advised: Change[];
  summary: string;
}

interface Checkpoint {
  findings?: Findings;
  changes?: Change[];
  already?: Change[];
  created_profile_id?: string;
}

const inputOf = (ctx: PhaseContext<ImprovementInput>): ImprovementInput => ctx.input;

/** collect: tallies the oracle records of the profile's train and dev episodes of the run. */
async function collect(ctx: PhaseContext<ImprovementInput>): Promise<void> {
  const { run_id, profile_id } = inputOf(ctx);
  const episodes = learningEpisodes(await runEpisodes(ctx.deps.adapters.store, run_id), profile_id);
  const findings = collectFindings(episodes);
  await ctx.save({ findings });
  await ctx.emit('job.progress', `read ${findings.episodes.total} train/dev episodes of run ${run_id}`, {
    phase: 'collect',
    completed: findings.episodes.total,
    total: findings.episodes.total,
  });
}

/** analyse: turns the findings into changes by the rules, keeping only advice the profile lacks. */
async function analyse(ctx: PhaseContext<ImprovementInput>): Promise<void> {
  const cp = ctx.checkpoint<Checkpoint>();
  const profile = await loadProfile(ctx.deps.adapters.store, ctx.job.project_id, inputOf(ctx).profile_id);
  const { apply, already } = partitionChanges(proposeChanges(cp.findings!), profile);
  await ctx.save({ changes: apply, already });
}

/** propose: stores the next version of the profile with the changes, and the result naming it. */
async function propose(ctx: PhaseContext<ImprovementInput>): Promise<void> {
  const cp = ctx.checkpoint<Checkpoint>();
  const { run_id, profile_id } = inputOf(ctx);
  const store = ctx.deps.adapters.store;
  const base = await loadProfile(store, ctx.job.project_id, profile_id);
  const changes = cp.changes ?? [];
  let created: ProfileDoc | null = null;
  if (changes.length > 0) {
    // a retried job that already stored its version names that one instead of adding another
    created = cp.created_profile_id ? await store.get<ProfileDoc>(Collections.profiles, cp.created_profile_id) : null;
    if (!created) {
      const text = applyChanges(base, changes);
      created = await createProfile(
        store,
        base.project_id,
        {
          name: base.name,
          system_prompt: text.system_prompt,
          ...(text.tool_guidance ? { tool_guidance: text.tool_guidance } : {}),
          ...(base.model ? { model: base.model } : {}),
          temperature: base.temperature,
          max_turns_per_actor: base.max_turns_per_actor,
          driver: base.driver,
        },
        `job:${ctx.job._id}`,
      );
      await ctx.save({ created_profile_id: created._id });
    }
  }
  const findings = cp.findings!;
  const result: ImprovementResult = {
    profile_id: created?._id ?? null,
    profile: created ? profileLabel(created) : null,
    based_on: { profile_id: base._id, profile: profileLabel(base) },
    run_id,
    episodes_used: findings.episodes,
    changes,
    already_advised: cp.already ?? [],
    summary: created
      ? `${profileLabel(created)} adds ${changes.length} change${changes.length === 1 ? '' : 's'} learnt from ${findings.episodes.total} train/dev episodes of run ${run_id}.`
      : `No change needed: the ${findings.episodes.total} train/dev episodes of run ${run_id} showed no problem the profile does not already address; no new version was created.`,
  };
  ctx.setResult(result);
  await ctx.emit('job.progress', result.summary, {
    phase: 'propose',
    completed: changes.length,
    total: changes.length,
  });
}

/**
 * The improvement job (spec sections 1.6 and 2): collect -> analyse -> propose. Rules only,
 * no model calls, so it spends nothing; the new version keeps the base's model and settings.
 */
export const improvementKind: JobKind<ImprovementInput> = {
  kind: IMPROVEMENT_JOB,
  phases: [
    { name: 'collect', run: collect },
    { name: 'analyse', run: analyse },
    { name: 'propose', run: propose },
  ],
};
