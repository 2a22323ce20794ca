/**
 * Applications (spec section 2 and 4): registration with every source rule, safe archive
 * uploads, the packaged catalog import, and the source archives kept for builds and runs.
 */
export { applicationHandlers } from './handlers.js';
export {
  applicationView,
  ensureApplicationIndexes,
  loadApplication,
  type ApplicationDoc,
  type ApplicationSourceSpec,
  type UploadInfo,
} from './types.js';
export { registerApplication, checkSource, type ApplicationInput } from './register.js';
export { importCatalog } from './catalog-import.js';
export { acceptUpload, schedulerSourceCache } from './upload.js';
export { getArchive, putArchive } from './archives.js';
