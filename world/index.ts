/**
 * The world compiler core: reading an application source, deriving tools, expanding
 * scenarios, hashing, and replaying reference plans. Pure functions plus a plan runner;
 * world-build jobs and episode actors import from here only.
 */
export * from './types.js';
export { validateManifest, validateSeedFile, validateTemplate } from './schema.js';
export { BUILTIN_TOOLS, isBuiltinTool, roleToolNames, toFunctionTool, toolsForRole } from './builtin-tools.js';
export { deriveTools } from './derive-tools.js';
export { crossCheck } from './cross-check.js';
export { loadApplicationSource, globFiles, globToRegExp } from './load.js';
export {
  assignFamilySplits,
  expandScenarios,
  familiesBySplit,
  familyRank,
  instantiate,
  splitFor,
  MAX_SCENARIO_TARGET,
  MIN_SCENARIO_TARGET,
  SPLIT_SHARES,
} from './expand.js';
export { canonicalJson, contentHash, sha256Hex, type ContentHashInput } from './content-hash.js';
export { substitute, collectRefs, getPath, type SubstituteOptions, type VarRef } from './substitute.js';
export {
  ApplicationClient,
  buildRequest,
  type ApplicationClientOptions,
  type ToolCaller,
  type ToolCallResult,
} from './client.js';
export {
  evaluateChecks,
  takeSnapshots,
  unchangedChecks,
  applyMatcher,
  matchesWhere,
  deepEqual,
  snapshotKey,
  type CheckResult,
  type EpisodeRecord,
  type EvaluateOptions,
  type Snapshots,
  type WriteRecord,
} from './checks.js';
export {
  checkRole,
  tallyChecks,
  rewardOf,
  succeeded,
  HABIT_PENALTY,
  type CheckTally,
  type RewardInput,
  type RoledResult,
} from './reward-rule.js';
export {
  calibrateScenario,
  calibrationHolds,
  hackability,
  CALIBRATION_AGENTS,
  CLAIM_TEXT,
  type CalibrationAgent,
  type CalibrationScore,
} from './calibration.js';
export {
  ADVERSARIAL_AGENTS,
  ADVERSARY_NAMES,
  MAX_PROBE_CALLS,
  adversarialCalibration,
  adversaryFlags,
  adversaryHackability,
  WITHDRAWING_ADVERSARIES,
  adversaryHolds,
  idsIn,
  playAdversary,
  type AdversarialAgent,
  type AdversaryScore,
} from './adversaries.js';
export { WORLD_GUARD_PREFIX, seededReads, worldGuards, withWorldGuards, type SeededRead } from './world-guard.js';
export { scenarioContext, disclosedFacts, customerSendArgs, customerTexts } from './customer.js';
export {
  replayReferencePlan,
  runSeed,
  type ReplayOptions,
  type ReplayResult,
  type ReplayStep,
  type ReplayTranscript,
} from './replay.js';
