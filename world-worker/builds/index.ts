/**
 * World-build work on a world-worker: sources (git at a pinned commit, local folders
 * inside the source roots, archives unpacked safely) in a content-addressed cache, source
 * analysis, and reference-plan replays in sandboxes.
 */
export { registerBuildWork, BUILD_WORK } from './work.js';
export type { AnalyseAnswer, FetchAnswer, FetchPayload } from './work-types.js';
export { type TrialResult } from './trial.js';
export { inspectArchive, extractArchive, packFolder } from './archive.js';
export { resolveLocalPath } from './local-path.js';
export { checkFileUrl, fetchGitCommit, type GitFetchOptions } from './git.js';
export { SourceCache } from './source-cache.js';
export type { ScenarioVerdict } from './replay.js';
export { calibrationJudgeCost } from './replay.js';
export { type SourceSurvey } from './survey.js';
