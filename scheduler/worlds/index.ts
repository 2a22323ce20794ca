/**
 * World builds, worlds, world versions and scenarios: the `world_build` and
 * `world_validation` job kinds and the handlers of spec section 4 ("World builds",
 * "Worlds and scenarios"). The source and sandbox work runs on world-workers
 * (world-worker/builds); these phases call it through `callWorker`.
 */
import type { JobKind } from '../jobs/index.js';
import { worldBuildKind } from './build-kind.js';
import { worldValidationKind } from './validation-kind.js';

export { worldHandlers } from './handlers.js';
export { worldBuildKind } from './build-kind.js';
export { worldValidationKind, type ValidationInput } from './validation-kind.js';
export { callWorker } from './worker-calls.js';
export { coverSplits, scenarioDocId } from './publish.js';
export { holdoutFamilies, holdoutFamiliesOf, type HoldoutFamilies } from './holdout-families.js';
export { approvedSetHash, pinScenarios, scenarioDigest, scenarioSetHash, type PinnedScenario } from './scenario-set.js';
export {
  ensureWorldIndexes,
  loadScenario,
  loadWorldVersion,
  scenarioView,
  worldVersionView,
  type BuildOptions,
  type ScenarioDoc,
  type ScenarioReport,
  type ScenarioStatus,
  type WorldDoc,
  type WorldVersionDoc,
  type WorldVersionStatus,
} from './types.js';
export type { BuildInput, BuildState } from './build-state.js';
export {
  describeSimulators,
  pinSimulators,
  simulatorDifference,
  simulatorModels,
  type PinnedPrice,
  type PinnedSimulator,
  type RunSimulators,
  type SimulatorModels,
} from './simulators.js';

/** The job kinds of this area, for `startJobEngine`. */
export const worldJobKinds: readonly JobKind[] = [worldBuildKind, worldValidationKind];
