/**
 * Exports (spec section 4, "Exports"; docs/exports.md): datasets of finished episodes as
 * gzipped JSON Lines and world-version bundles as .tar.gz, each written by a server job
 * (`dataset_export`, `bundle`) into an artifact whose bytes live in the document store.
 */
import type { JobKind } from '../jobs/index.js';
import { bundleKind } from './bundle.js';
import { datasetExportKind } from './dataset.js';

export { exportHandlers } from './handlers.js';
export { ensureExportIndexes } from './types.js';
/** The job kinds of exports, for `startJobEngine`. */
export const exportJobKinds: readonly JobKind[] = [datasetExportKind, bundleKind];
