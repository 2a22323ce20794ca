import { ServiceError } from '../../core/index.js';
import { stateKey, type SchedulerDeps } from '../context.js';
import { JobEngine, type JobEngineOptions } from './engine.js';
import type { JobKind } from './types.js';

const ENGINE = stateKey<JobEngine | null>('job-engine', () => null);

/**
 * Creates the scheduler's job engine with the given kinds, attaches it to `deps` (so
 * handlers reach it with {@link jobsOf}) and starts it: jobs left `queued` or `running`
 * by a previous process continue.
 */
export async function startJobEngine(
  deps: SchedulerDeps,
  kinds: readonly JobKind[],
  opts: JobEngineOptions = {},
): Promise<JobEngine> {
  if (deps.state.get(ENGINE)) throw new Error('this scheduler already has a job engine');
  const engine = new JobEngine(deps, opts);
  for (const k of kinds) engine.register(k);
  deps.state.set(ENGINE, engine);
  await engine.start();
  return engine;
}

/** The job engine of this scheduler. */
export function jobsOf(deps: SchedulerDeps): JobEngine {
  const engine = deps.state.get(ENGINE);
  if (!engine) throw new ServiceError('unavailable', 'the job engine of this scheduler is not running');
  return engine;
}
