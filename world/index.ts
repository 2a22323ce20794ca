/**
 * The world compiler core: reading an application source, deriving tools, expanding
 * scenarios, hashing, and replaying reference plans. Pure functions plus a plan runner;
 * world-build jobs and episode actors import from here only.
 */
export * from './types.js';
export { validateManifest, validateTemplate } from './schema.js';
export { BUILTIN_TOOLS, isBuiltinTool, roleToolNames, toFunctionTool, toolsForRole } from './builtin-tools.js';
export { deriveTools } from './derive-tools.js';
export { crossCheck } from './cross-check.js';
export { loadApplicationSource, globToRegExp } from './load.js';
export {
  assignFamilySplits,
  expandAll,
  expandScenarios,
  familiesBySplit,
  familyRank,
  instantiate,
  splitFor,
} from './expand.js';
export { canonicalJson, contentHash, sha256Hex, type ContentHashInput } from './content-hash.js';
export { substitute, collectRefs, getPath } from './substitute.js';
export { ApplicationClient, buildRequest, type ToolCaller, type ToolCallResult } from './client.js';
export {
  evaluateChecks,
  takeSnapshots,
  unchangedChecks,
  applyMatcher,
  type CheckResult,
  type Snapshots,
  type WriteRecord,
} from './checks.js';
export { tallyChecks, rewardOf, succeeded, HABIT_PENALTY } from './reward-rule.js';
export { calibrateScenario, hackability, seedForPlay, type CalibrationScore } from './calibration.js';
export {
  JUDGE_AGENT,
  JUDGE_ADDRESS_TEXTS,
  JUDGE_NOTE,
  MASTER_KEYS,
  type CalibrationJudge,
} from './judge-calibration.js';
export {
  ADVERSARIAL_AGENTS,
  adversarialCalibration,
  adversaryFlags,
  adversaryHackability,
  WITHDRAWING_ADVERSARIES,
  idsIn,
  type AdversaryScore,
} from './adversaries.js';
export { WORLD_GUARD_PREFIX, withWorldGuards } from './world-guard.js';
export { scenarioContext, disclosedFacts, customerSendArgs, customerTexts } from './customer.js';
export { replayReferencePlan, runSeed, type ReplayOptions, type ReplayResult } from './replay.js';
export { importTau2, type Tau2ImportReport } from './import-tau2.js';
