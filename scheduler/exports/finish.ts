import { Collections } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import type { SchedulerDeps } from '../context.js';
import type { JobDoc, PhaseContext } from '../jobs/index.js';
import { putBlob, putBlobFile } from './blobs.js';
import type { ArtifactDoc, ExportInput } from './types.js';

/**
 * Stores the file of an export job and turns its artifact `ready` with size and checksum.
 * Compare-and-set on `pending`, so a job stopped meanwhile never revives a failed record.
 */
export async function storeArtifact(
  ctx: PhaseContext<ExportInput>,
  bytes: Buffer | { file: string },
  contents: Record<string, unknown>,
): Promise<void> {
  const { artifact_id } = ctx.input;
  const store = ctx.deps.adapters.store;
  await ctx.stopIfRequested();
  const blob = Buffer.isBuffer(bytes)
    ? await putBlob(store, artifact_id, bytes)
    : await putBlobFile(store, artifact_id, bytes.file);
  await store.update(
    Collections.artifacts,
    artifact_id,
    {
      status: 'ready',
      size_bytes: blob.size_bytes,
      sha256: blob.sha256,
      chunks: blob.chunks,
      contents,
      ready_at: nowIso(),
      updated_at: nowIso(),
    },
    { status: 'pending' },
  );
  ctx.setResult({ artifact_id, size_bytes: blob.size_bytes, sha256: blob.sha256, ...contents });
}

/**
 * The `onStatus` hook of both export kinds: a job that failed or was stopped leaves its
 * artifact `failed` with the job's sentence; a retried job (queued again) makes it
 * `pending` again. A `ready` artifact never changes.
 */
export async function mirrorJobStatus(job: JobDoc<ExportInput>, deps: SchedulerDeps): Promise<void> {
  const { artifact_id } = job.input;
  const store = deps.adapters.store;
  if (job.status === 'failed' || job.status === 'cancelled') {
    const error = job.error ?? (job.status === 'cancelled' ? 'the export job was stopped' : 'the export job failed');
    await store.update<ArtifactDoc>(
      Collections.artifacts,
      artifact_id,
      { status: 'failed', error, updated_at: nowIso() },
      { status: 'pending' },
    );
  } else if (job.status === 'queued' || job.status === 'running') {
    await store.update<ArtifactDoc>(
      Collections.artifacts,
      artifact_id,
      { status: 'pending', error: null, updated_at: nowIso() },
      { status: 'failed' },
    );
  }
}
