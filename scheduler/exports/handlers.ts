import { Collections } from '../../core/index.js';
import { invalid, ServiceError } from '../../core/index.js';
import { newId, nowIso } from '../../core/index.js';
import type { Filter } from '../../core/index.js';
import { accepted, ok, type HandlerTable, type OperationContext, type SchedulerDeps } from '../context.js';
import { jobsOf } from '../jobs/index.js';
import { body, param, requirePrincipal } from '../../core/index.js';
import { loadRun } from '../runs/index.js';
import { loadWorldVersion } from '../worlds/index.js';
import { getBlob } from './blobs.js';
import {
  ARTIFACT_KINDS,
  artifactView,
  BUNDLE_JOB,
  DATASET_JOB,
  loadArtifact,
  type ArtifactDoc,
  type ArtifactKind,
  type BundleSource,
  type DatasetSource,
} from './types.js';

/** Stores the `pending` artifact first (it names its job), then starts the job. */
async function startExport(
  deps: SchedulerDeps,
  projectId: string,
  kind: ArtifactKind,
  source: DatasetSource | BundleSource,
  fileName: string,
  contentType: string,
): Promise<{ job_id: string; artifact_id: string }> {
  const artifactId = newId('art');
  const jobId = newId('job');
  const now = nowIso();
  await deps.adapters.store.insert<ArtifactDoc>(Collections.artifacts, {
    _id: artifactId,
    project_id: projectId,
    kind,
    status: 'pending',
    job_id: jobId,
    source,
    file_name: fileName,
    content_type: contentType,
    size_bytes: null,
    sha256: null,
    chunks: null,
    contents: null,
    error: null,
    created_at: now,
    updated_at: now,
    ready_at: null,
  });
  await jobsOf(deps).create({
    id: jobId,
    projectId,
    kind: kind === 'dataset' ? DATASET_JOB : BUNDLE_JOB,
    input: { artifact_id: artifactId, source },
  });
  return { job_id: jobId, artifact_id: artifactId };
}

/** POST /v1/dataset-exports: checks every run is the caller's and holdout is not asked. */
async function createDatasetExport(ctx: OperationContext, deps: SchedulerDeps) {
  const p = requirePrincipal(ctx);
  const b = body<{ run_ids: string[]; splits?: string[]; verified_only?: boolean; format?: string }>(ctx);
  const format = b.format ?? 'crucible';
  if (format !== 'crucible' && format !== 'openai_chat') throw invalid('format', 'must be crucible or openai_chat');
  const runIds = [...new Set(b.run_ids)];
  if (runIds.length === 0) throw invalid('run_ids', 'name at least one run');
  const splits = [...new Set(b.splits ?? ['train'])];
  if (splits.length === 0) throw invalid('splits', 'name at least one split (train or dev)');
  splits.forEach((s, i) => {
    if (s === 'holdout') throw invalid(`splits[${i}]`, 'holdout episodes cannot be exported');
    if (s !== 'train' && s !== 'dev') throw invalid(`splits[${i}]`, 'must be train or dev');
  });
  for (const id of runIds) await loadRun(deps.adapters.store, p.projectId, id);
  const source: DatasetSource = {
    run_ids: runIds,
    splits: splits as DatasetSource['splits'],
    verified_only: b.verified_only ?? true,
    format,
  };
  return accepted(
    await startExport(
      deps,
      p.projectId,
      'dataset',
      source,
      `dataset-${new Date().toISOString().slice(0, 10)}.jsonl.gz`,
      'application/gzip',
    ),
  );
}

/** POST /v1/world-versions/{wv_id}/bundle: only a published version has a fixed content to bundle. */
async function createBundle(ctx: OperationContext, deps: SchedulerDeps) {
  const p = requirePrincipal(ctx);
  const wv = await loadWorldVersion(deps.adapters.store, p.projectId, param(ctx, 'wv_id'));
  if (wv.status !== 'published')
    throw new ServiceError(
      'conflict',
      `world version ${wv._id} is ${wv.status}; only a published version can be bundled`,
    );
  const source: BundleSource = { world_version_id: wv._id, include_images: ctx.query.include_images === true };
  return accepted(
    await startExport(
      deps,
      p.projectId,
      'bundle',
      source,
      `world-${wv.world_id}-v${wv.version}.tar.gz`,
      'application/gzip',
    ),
  );
}

/** GET /v1/artifacts: newest first, optionally one kind. */
async function listArtifacts(ctx: OperationContext, deps: SchedulerDeps) {
  const p = requirePrincipal(ctx);
  const filter: Filter = { project_id: p.projectId };
  const kind = ctx.query.kind;
  if (kind !== undefined) {
    if (!ARTIFACT_KINDS.includes(kind as ArtifactKind))
      throw invalid('kind', `must be one of ${ARTIFACT_KINDS.join(', ')}`);
    filter.kind = kind as string;
  }
  const docs = await deps.adapters.store.find<ArtifactDoc>(Collections.artifacts, filter, {
    sort: { field: 'created_at', direction: 'desc' },
  });
  return ok(docs.map(artifactView));
}

/** GET /v1/artifacts/{id}/download: 409 until the file is ready. */
async function downloadArtifact(ctx: OperationContext, deps: SchedulerDeps) {
  const p = requirePrincipal(ctx);
  const a = await loadArtifact(deps.adapters.store, p.projectId, param(ctx, 'art_id'));
  if (a.status !== 'ready' || a.chunks === null || a.sha256 === null) {
    throw new ServiceError(
      'conflict',
      a.status === 'failed'
        ? `artifact ${a._id} failed and has no file: ${a.error ?? 'its job failed'}`
        : `artifact ${a._id} is still being written; try again when its job ${a.job_id} ended`,
    );
  }
  const bytes = await getBlob(deps.adapters.store, a._id, a.chunks, a.sha256);
  return { status: 200, bytes, contentType: a.content_type, fileName: a.file_name };
}

/** The handlers of spec section 4, Exports. */
export const exportHandlers: HandlerTable = {
  create_dataset_export: createDatasetExport,
  create_bundle: createBundle,
  list_artifacts: listArtifacts,
  async get_artifact(ctx, deps) {
    const p = requirePrincipal(ctx);
    return ok(artifactView(await loadArtifact(deps.adapters.store, p.projectId, param(ctx, 'art_id'))));
  },
  download_artifact: downloadArtifact,
};
