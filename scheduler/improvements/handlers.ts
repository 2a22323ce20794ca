import { invalid, ServiceError, toServiceError } from '../../core/index.js';
import { isBuiltinModel, parseModelChain, priceTable } from '../../core/index.js';
import { resolveModelApiKey } from '../../accounts/index.js';
import { assertAllowanceLeft } from '../../billing/index.js';
import { accepted, type HandlerTable, type SchedulerDeps } from '../context.js';
import { jobsOf } from '../jobs/index.js';
import { body, requirePrincipal } from '../../core/index.js';
import { loadProfile } from '../profiles/index.js';
import { loadRun, runEpisodes } from '../runs/index.js';
import { holdoutFamilies, loadWorldVersion } from '../worlds/index.js';
import { assertSomeWorkerRuns, codeOfVersion } from '../code-trust.js';
import { learningEpisodes } from './evidence.js';
import { IMPROVEMENT_JOB, type ImprovementInput } from './kind.js';

/** `model` value asking for the deterministic rules even when the server names a default model. */
export const RULES_MODEL = 'builtin:rules';

interface ImprovementBody {
  profile_id: string;
  run_id: string;
  model?: string;
  budget_usd?: number;
  check_on_dev?: boolean;
}

/**
 * POST /v1/improvements. Checked before a job exists, so a mistake answers at once:
 * unknown or foreign profile or run 404; a run that did not finish 409; a run that did not
 * evaluate the profile, or holds none of its finished train/dev episodes, 422 (holdout
 * episodes never count: learning from them would leak the held-out set); a `model` that
 * is unpriced or has no usable endpoint, or a server default (SERVICE_IMPROVEMENT_MODEL)
 * that applies and is unpriced, 422; `check_on_dev` on a run without dev episodes
 * of the profile 422, or on a world version no longer published 409.
 */
export const improvementHandlers: HandlerTable = {
  async create_improvement(ctx, deps) {
    const p = requirePrincipal(ctx);
    const b = body<ImprovementBody>(ctx);
    const store = deps.adapters.store;
    const profile = await loadProfile(store, p.projectId, b.profile_id);
    const run = await loadRun(store, p.projectId, b.run_id);
    if (run.status !== 'finished')
      throw new ServiceError(
        'conflict',
        `run has not finished: run ${run._id} is ${run.status}; only a finished run can be learnt from`,
      );
    if (!run.profiles.some((rp) => rp.id === profile._id))
      throw invalid('profile_id', `run ${run._id} did not evaluate profile ${profile._id}`);
    const episodes = await runEpisodes(store, run._id);
    const usable = learningEpisodes(episodes, profile._id, await holdoutFamilies(store, run.world_version_id));
    if (usable.length === 0)
      throw invalid(
        'run_id',
        `run ${run._id} has no finished train or dev episodes of profile ${profile._id} (holdout episodes, and those of a holdout scenario's template, are never used)`,
      );
    const model = await improvementModel(deps, p.projectId, b.model);
    const checkOnDev = b.check_on_dev ?? false;
    if (checkOnDev) {
      if (!usable.some((e) => e.split === 'dev'))
        throw invalid(
          'check_on_dev',
          `run ${run._id} has no finished dev episodes of profile ${profile._id} to compare a candidate with`,
        );
      const wv = await loadWorldVersion(store, p.projectId, run.world_version_id);
      if (wv.status !== 'published')
        throw new ServiceError(
          'conflict',
          `world version ${wv._id} of run ${run._id} is ${wv.status}, not published, so the candidate cannot be run on its dev split`,
        );
      // the check runs the version's code: refused now rather than by the check's evaluation later
      await assertSomeWorkerRuns(deps, codeOfVersion(wv));
    }
    if (model || checkOnDev) await assertAllowanceLeft(deps, p.organizationId);
    const input: ImprovementInput = {
      profile_id: profile._id,
      run_id: run._id,
      model,
      check_on_dev: checkOnDev,
      organization_id: p.organizationId,
    };
    const job = await jobsOf(deps).create({
      projectId: p.projectId,
      kind: IMPROVEMENT_JOB,
      input,
      budgetUsd: b.budget_usd ?? null,
    });
    return accepted({ job_id: job._id });
  },
};

/**
 * The model chain the job asks, or null for the rules: the request's `model`
 * (`builtin:rules` for the rules), else SERVICE_IMPROVEMENT_MODEL when the project has a
 * usable model endpoint. A named model must be priced and reachable, and the server's default
 * priced when it applies (422 on `model` otherwise).
 */
async function improvementModel(
  deps: SchedulerDeps,
  projectId: string,
  asked: string | undefined,
): Promise<string[] | null> {
  const spec = asked?.trim();
  if (spec === RULES_MODEL) return null;
  if (spec === undefined || spec === '') {
    const fallback = deps.config.improvementModel;
    if (!fallback) return null;
    try {
      await resolveModelApiKey(deps.adapters.store, projectId, deps.config);
    } catch {
      return null; // the project has no model endpoint: the server default cannot apply, the rules do
    }
    // the job's model chain makes the same check before it spends anything (kept there too, for a
    // price file changed in between); asked here, a default that cannot run refuses the request
    // rather than fail a job later
    try {
      const chain = parseModelChain(fallback);
      priceTable(deps.config.modelPricesFile).requirePriced(chain);
      return chain;
    } catch (err) {
      throw invalid(
        'model',
        `none was named, and the server's default SERVICE_IMPROVEMENT_MODEL ("${fallback}") cannot be used: ${toServiceError(err).message}; name a priced model, or ${RULES_MODEL}`,
      );
    }
  }
  let chain: string[];
  try {
    chain = parseModelChain(spec);
  } catch {
    throw invalid('model', 'names no model');
  }
  const builtin = chain.find(isBuiltinModel);
  if (builtin !== undefined)
    throw invalid('model', `the only built-in improver is ${RULES_MODEL}, alone (got ${builtin})`);
  const unpriced = chain.find((m) => !priceTable(deps.config.modelPricesFile).has(m));
  if (unpriced !== undefined)
    throw invalid(
      'model',
      `"${unpriced}" has no price in the price file; the operator adds it (with its source and date) to the file MODEL_PRICES_FILE names`,
    );
  try {
    await resolveModelApiKey(deps.adapters.store, projectId, deps.config);
  } catch (err) {
    throw invalid('model', `${spec} needs a model endpoint, and none is usable: ${(err as Error).message}`);
  }
  return chain;
}
