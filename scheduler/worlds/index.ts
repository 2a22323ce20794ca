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
export { coverSplits } from './publish.js';
export { holdoutFamilies, holdoutFamiliesOf, type HoldoutFamilies } from './holdout-families.js';
export { pinScenarios, scenarioSetHash, type PinnedScenario } from './scenario-set.js';
export { ensureWorldIndexes, loadWorldVersion, type ScenarioDoc, type WorldVersionDoc } from './types.js';
export {
  describeSimulators,
  pinSimulators,
  simulatorDifference,
  simulatorModels,
  type RunSimulators,
} from './simulators.js';

/** The job kinds of this area, for `startJobEngine`. */
export const worldJobKinds: readonly JobKind[] = [worldBuildKind, worldValidationKind];
