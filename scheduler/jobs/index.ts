/**
 * The server-job engine: phased jobs with checkpoints, pause, resume, stop, retry,
 * budgets and leases (docs/jobs.md). Job kinds (world builds, validations, run shards...)
 * register their phases; handlers reach the engine with `jobsOf(deps)`.
 */
export { JobEngine, type JobEngineOptions } from './engine.js';
export { startJobEngine, jobsOf } from './registry.js';
export { applyCommand } from './commands.js';
export { jobHandlers } from './handlers.js';
export { describeFailure } from './runner.js';
export {
  BudgetReached,
  JobInterrupted,
  isEnded,
  type JobCommand,
  type JobDoc,
  type JobKind,
  type JobPhase,
  type JobStatus,
  type PhaseContext,
} from './types.js';
