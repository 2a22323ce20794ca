import { Collections } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import type { JobKind, JobStatus } from '../jobs/index.js';
import type { BuildInput } from './build-state.js';
import { fetchSourcePhase, analysePhase, deriveToolsPhase } from './phases-source.js';
import { generatePhase, repairPhase, validatePhase } from './phases-scenarios.js';
import { publishPhase } from './publish.js';
import type { WorldVersionStatus } from './types.js';

const VERSION_STATUS: Record<JobStatus, WorldVersionStatus> = {
  queued: 'building',
  running: 'building',
  paused: 'paused',
  succeeded: 'published',
  failed: 'failed',
  cancelled: 'cancelled',
};

/**
 * The `world_build` job: fetch source -> analyse -> derive tools -> generate scenarios ->
 * validate -> repair -> publish, each phase saved and wrapped in
 * `compiler.phase.started` / `compiler.phase.finished` events. The world version mirrors
 * the job's status (a published version never changes back).
 */
export const worldBuildKind: JobKind<BuildInput> = {
  kind: 'world_build',
  phaseEvents: { started: 'compiler.phase.started', finished: 'compiler.phase.finished' },
  phases: [fetchSourcePhase, analysePhase, deriveToolsPhase, generatePhase, validatePhase, repairPhase, publishPhase],
  async onStatus(job, deps) {
    const { world_version_id } = job.input;
    await deps.adapters.store.update(
      Collections.worldVersions,
      world_version_id,
      { status: VERSION_STATUS[job.status], error: job.error, updated_at: nowIso() },
      { status: { $ne: 'published' } },
    );
  },
};
