import { ServiceError } from '../../core/index.js';
import type { SchedulerDeps } from '../context.js';
import type { JobEngine } from './engine.js';
import type { JobKind } from './types.js';

/**
 * Registers the given kinds on the scheduler's job engine (`deps.jobs`) and starts it: jobs
 * left `queued` or `running` by a previous process continue. Handlers reach it with
 * {@link jobsOf} from then on.
 */
export async function startJobEngine(deps: SchedulerDeps, kinds: readonly JobKind[]): Promise<JobEngine> {
  if (deps.jobs.started) throw new Error('this scheduler already has a job engine');
  for (const k of kinds) deps.jobs.register(k);
  await deps.jobs.start();
  return deps.jobs;
}

/** The job engine of this scheduler, once started. */
export function jobsOf(deps: SchedulerDeps): JobEngine {
  if (!deps.jobs.started) throw new ServiceError('unavailable', 'the job engine of this scheduler is not running');
  return deps.jobs;
}
