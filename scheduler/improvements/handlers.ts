import { invalid, ServiceError } from '../../core/index.js';
import { accepted, type HandlerTable } from '../context.js';
import { jobsOf } from '../jobs/index.js';
import { body, requirePrincipal } from '../../core/index.js';
import { loadProfile } from '../profiles/index.js';
import { loadRun, runEpisodes } from '../runs/index.js';
import { learningEpisodes } from './evidence.js';
import { IMPROVEMENT_JOB, type ImprovementInput } from './kind.js';

/**
 * POST /v1/improvements. Checked before a job exists, so a mistake answers at once:
 * unknown or foreign profile or run 404; a run that did not finish 409; a run that did not
 * evaluate the profile, or holds none of its finished train/dev episodes, 422 (holdout
 * episodes never count: learning from them would leak the held-out set).
 */
export const improvementHandlers: HandlerTable = {
  async create_improvement(ctx, deps) {
    const p = requirePrincipal(ctx);
    const b = body<ImprovementInput>(ctx);
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
    const usable = learningEpisodes(await runEpisodes(store, run._id), profile._id);
    if (usable.length === 0)
      throw invalid(
        'run_id',
        `run ${run._id} has no finished train or dev episodes of profile ${profile._id} (holdout episodes are never used)`,
      );
    const job = await jobsOf(deps).create({
      projectId: p.projectId,
      kind: IMPROVEMENT_JOB,
      input: { profile_id: profile._id, run_id: run._id },
    });
    return accepted({ job_id: job._id });
  },
};
