/**
 * The server-job engine: phased jobs with checkpoints, pause, resume, stop, retry,
 * budgets and leases (docs/jobs.md). Job kinds (world builds, validations, run shards...)
 * register their phases; handlers reach the engine with `jobsOf(deps)`.
 */
export { JobEngine, type JobEngineOptions, type NewJob } from './engine.js';
export { startJobEngine, jobsOf } from './registry.js';
export { applyCommand } from './commands.js';
export { jobHandlers, jobView, loadJob } from './handlers.js';
export { describeFailure } from './runner.js';
export { emitJobEvent } from './status.js';
export {
  BudgetReached,
  ENDED_STATUSES,
  JOB_STATUSES,
  JobInterrupted,
  isEnded,
  type JobCommand,
  type JobDoc,
  type JobKind,
  type JobPhase,
  type JobStatus,
  type PhaseContext,
} from './types.js';
