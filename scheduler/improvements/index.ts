/**
 * Improvements (spec sections 1.6 and 2; docs/improvements.md): a server job that reads a
 * profile's train and dev episodes of a finished run and proposes the profile's next
 * version, with the reason and evidence for each change.
 */
import type { JobKind } from '../jobs/index.js';
import { improvementKind } from './kind.js';

export { improvementHandlers } from './handlers.js';
export { collectFindings, learningEpisodes } from './evidence.js';
export { proposeChanges, applyChanges, partitionChanges } from './rules.js';

/** The job kinds of improvements, for `startJobEngine`. */
export const improvementJobKinds: readonly JobKind[] = [improvementKind];
