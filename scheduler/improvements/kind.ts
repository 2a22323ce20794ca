import { Collections } from '../../core/index.js';
import type { JobKind, PhaseContext } from '../jobs/index.js';
import { createProfile, loadProfile, profileLabel, type ProfileDoc } from '../profiles/index.js';
import { loadRun, runEpisodes } from '../runs/index.js';
import { holdoutFamilies, loadWorldVersion } from '../worlds/index.js';
import { finishCheck, startCheckRun, type DevCheck } from './dev-check.js';
import { collectFindings, learningEpisodes, type Findings } from './evidence.js';
import { episodeBriefs, proposeWithModel, sameText, type ModelProposal } from './model.js';
import { applyChanges, partitionChanges, proposeChanges, type Change, type ProfileText } from './rules.js';

/** Job kind of POST /v1/improvements. */
export const IMPROVEMENT_JOB = 'improvement';

/** What the job was asked (validated by the handler). */
export interface ImprovementInput {
  profile_id: string;
  run_id: string;
  /** The model chain proposing the version; null (or absent, jobs from before models): the rules. */
  model?: string[] | null;
  /** Run the candidate on the source run's dev scenarios before proposing it (absent: false). */
  check_on_dev?: boolean;
  /** The requester's organization, for the check run's quotas. */
  organization_id?: string;
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
  /** `model` when a model wrote the version, `rules` for the deterministic rules. */
  method: 'model' | 'rules';
  /** The model that wrote it, its calls and their cost; null with the rules. */
  model: ModelProposal['model'] | null;
  /** The candidate's check on dev; null when not asked for or nothing changed. */
  dev_check: DevCheck | null;
  summary: string;
}

interface Checkpoint {
  findings?: Findings;
  changes?: Change[];
  already?: Change[];
  /** The model's whole text for the next version (absent with the rules). */
  text?: ProfileText;
  model?: ModelProposal['model'];
  created_profile_id?: string;
  check_run_id?: string;
}

const inputOf = (ctx: PhaseContext<ImprovementInput>): ImprovementInput => ctx.input;

/** collect: tallies the oracle records of the profile's train and dev episodes of the run. */
async function collect(ctx: PhaseContext<ImprovementInput>): Promise<void> {
  const { run_id, profile_id } = inputOf(ctx);
  const store = ctx.deps.adapters.store;
  const run = await loadRun(store, ctx.job.project_id, run_id);
  const holdout = await holdoutFamilies(store, run.world_version_id);
  const episodes = learningEpisodes(await runEpisodes(store, run_id), profile_id, holdout);
  const findings = collectFindings(episodes);
  await ctx.save({ findings });
  await ctx.emit('job.progress', `read ${findings.episodes.total} train/dev episodes of run ${run_id}`, {
    phase: 'collect',
    completed: findings.episodes.total,
    total: findings.episodes.total,
  });
}

/**
 * analyse: turns the findings into changes by the rules, keeping only advice the profile
 * lacks; with a model, the model writes the next version from the train/dev evidence, the
 * rules' changes shown to it as suggestions.
 */
async function analyse(ctx: PhaseContext<ImprovementInput>): Promise<void> {
  const cp = ctx.checkpoint<Checkpoint>();
  const { profile_id, run_id, model } = inputOf(ctx);
  const store = ctx.deps.adapters.store;
  const profile = await loadProfile(store, ctx.job.project_id, profile_id);
  const { apply, already } = partitionChanges(proposeChanges(cp.findings!), profile);
  if (!model || model.length === 0) {
    await ctx.save({ changes: apply, already });
    return;
  }
  const run = await loadRun(store, ctx.job.project_id, run_id);
  const holdout = await holdoutFamilies(store, run.world_version_id);
  const episodes = learningEpisodes(await runEpisodes(store, run_id), profile_id, holdout);
  const proposal = await proposeWithModel(ctx, {
    models: model,
    profile: {
      label: profileLabel(profile),
      system_prompt: profile.system_prompt,
      tool_guidance: profile.tool_guidance,
    },
    tools: await worldTools(ctx, run.world_version_id),
    findings: cp.findings!,
    briefs: episodeBriefs(episodes),
    ruleChanges: [...apply, ...already],
  });
  const unchanged = sameText(proposal.text, profile);
  await ctx.save({
    changes: unchanged ? [] : proposal.changes,
    already: [],
    text: proposal.text,
    model: proposal.model,
  });
  await ctx.emit(
    'job.progress',
    unchanged
      ? `${proposal.model.answered_by} proposed no change`
      : `${proposal.model.answered_by} proposed the next version (${proposal.changes.length} changes, $${proposal.model.cost_usd})`,
    { phase: 'analyse', completed: 1, total: 1 },
  );
}

/** The application tools the world version's roles hold (what guidance may be written for). */
async function worldTools(ctx: PhaseContext<ImprovementInput>, worldVersionId: string): Promise<string[]> {
  const wv = await loadWorldVersion(ctx.deps.adapters.store, ctx.job.project_id, worldVersionId);
  const roles = wv.compiled?.manifest.roles ?? [];
  return [...new Set(roles.flatMap((r) => r.tools))].sort();
}

/**
 * propose: stores the next version of the profile (the rules' changes applied, or the
 * model's text), checks it on dev when asked, and sets the result naming it.
 */
async function propose(ctx: PhaseContext<ImprovementInput>): Promise<void> {
  const cp = ctx.checkpoint<Checkpoint>();
  const { run_id, profile_id, check_on_dev } = inputOf(ctx);
  const store = ctx.deps.adapters.store;
  const base = await loadProfile(store, ctx.job.project_id, profile_id);
  const changes = cp.changes ?? [];
  const changed = cp.text ? !sameText(cp.text, base) : changes.length > 0;
  let created: ProfileDoc | null = null;
  if (changed) {
    // a retried job that already stored its version names that one instead of adding another
    created = cp.created_profile_id ? await store.get<ProfileDoc>(Collections.profiles, cp.created_profile_id) : null;
    if (!created) {
      const text = cp.text ?? applyChanges(base, changes);
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
  let devCheck: DevCheck | null = null;
  if (created && check_on_dev) {
    const source = await loadRun(store, ctx.job.project_id, run_id);
    let checkRun = cp.check_run_id;
    if (!checkRun) {
      checkRun = await startCheckRun(ctx, source, created._id);
      await ctx.save({ check_run_id: checkRun });
      await ctx.emit('job.progress', `checking ${profileLabel(created)} on dev in run ${checkRun}`, {
        phase: 'propose',
        completed: 0,
        total: 1,
      });
    }
    devCheck = await finishCheck(ctx, source, checkRun, profileLabel(base), {
      id: created._id,
      label: profileLabel(created),
    });
  }
  const findings = cp.findings!;
  const by = cp.model ? ` by ${cp.model.answered_by}` : '';
  const result: ImprovementResult = {
    profile_id: created?._id ?? null,
    profile: created ? profileLabel(created) : null,
    based_on: { profile_id: base._id, profile: profileLabel(base) },
    run_id,
    episodes_used: findings.episodes,
    changes: changed ? changes : [],
    already_advised: cp.already ?? [],
    method: cp.model ? 'model' : 'rules',
    model: cp.model ?? null,
    dev_check: devCheck,
    summary: created
      ? `${profileLabel(created)} adds ${changes.length} change${changes.length === 1 ? '' : 's'}${by} learnt from ${findings.episodes.total} train/dev episodes of run ${run_id}.${devCheck ? ` ${devCheck.statement}` : ''}`
      : `No change needed: the ${findings.episodes.total} train/dev episodes of run ${run_id} showed no problem the profile does not already address${cp.model ? ` (${cp.model.answered_by} proposed no change)` : ''}; no new version was created.`,
  };
  ctx.setResult(result);
  await ctx.emit('job.progress', result.summary, {
    phase: 'propose',
    completed: changes.length,
    total: changes.length,
  });
}

/**
 * The improvement job (spec sections 1.6 and 2): collect -> analyse -> propose. With the
 * rules it makes no model call; with a model (`model` or SERVICE_IMPROVEMENT_MODEL) the
 * calls, and the dev check's run, are spent on the job against `budget_usd`. The new
 * version keeps the base's model and settings.
 */
export const improvementKind: JobKind<ImprovementInput> = {
  kind: IMPROVEMENT_JOB,
  phases: [
    { name: 'collect', run: collect },
    { name: 'analyse', run: analyse },
    { name: 'propose', run: propose },
  ],
};
