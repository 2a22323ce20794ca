/**
 * Applications (spec section 2 and 4): registration with every source rule, safe archive
 * uploads, the packaged catalog import, and the source archives kept for builds and runs.
 */
export { applicationHandlers } from './handlers.js';
export { ensureApplicationIndexes, loadApplication, type ApplicationSourceSpec } from './types.js';
export { getArchive, putArchive } from './archives.js';
