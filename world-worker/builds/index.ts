/**
 * World-build work on a world-worker: sources (git at a pinned commit, local folders
 * inside the source roots, archives unpacked safely) in a content-addressed cache, source
 * analysis, and reference-plan replays in sandboxes.
 */
export { registerBuildWork, BUILD_WORK } from './work.js';
export type { AnalyseAnswer, FetchAnswer, FetchPayload, ReplayPayload, SourceRef, TrialPayload } from './work-types.js';
export { TRIAL_AGENT, type TrialResult } from './trial.js';
export { inspectArchive, extractArchive, packFolder, type ArchiveLimits, type ArchiveSummary } from './archive.js';
export { resolveLocalPath } from './local-path.js';
export { checkFileUrl, fetchGitCommit, type GitFetchOptions, type ResolveHost } from './git.js';
export { listTree, isInside, sourceDigest } from './tree.js';
export { SourceCache, type FetchedSource, type SourceSpec } from './source-cache.js';
export type { ScenarioVerdict, ReplayRun } from './replay.js';
export {
  relevantSourceFiles,
  SOURCE_TOKEN_BUDGET,
  CHARS_PER_TOKEN,
  MAX_SOURCE_FILE_BYTES,
  type RelevantFile,
} from './relevant.js';
export { surveySource, overlayFolder, type SourceSurvey, type StartHint, type RouteHint } from './survey.js';
