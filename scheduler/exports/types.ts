import { Collections } from '../../core/index.js';
import { notFound } from '../../core/index.js';
import type { Doc, DocumentStore } from '../../core/index.js';

export const ARTIFACT_KINDS = ['dataset', 'bundle'] as const;
export type ArtifactKind = (typeof ARTIFACT_KINDS)[number];

/** `pending` while its job lives, then `ready` (file stored) or `failed` (job failed or was stopped). */
export type ArtifactStatus = 'pending' | 'ready' | 'failed';

/** Job kinds of the two exports. */
export const DATASET_JOB = 'dataset_export';
export const BUNDLE_JOB = 'bundle';

/** What a dataset export was asked for. */
export interface DatasetSource {
  run_ids: string[];
  splits: Array<'train' | 'dev'>;
  verified_only: boolean;
  /**
   * `crucible` (default): one line per episode with every actor's transcript and its scores;
   * `openai_chat`: OpenAI's chat fine-tuning format, one line per actor of each episode with
   * `messages` and `tools` (docs/exports.md). Absent in exports asked for before formats.
   */
  format?: 'crucible' | 'openai_chat';
}

/** What a bundle was asked for. */
export interface BundleSource {
  world_version_id: string;
  include_images: boolean;
}

/** Input of both export jobs: the artifact they fill and what to put in it. */
export interface ExportInput {
  artifact_id: string;
  source: DatasetSource | BundleSource;
}

/**
 * An exported file's record (Collections.artifacts, `_id` = `art_…`). Only the export job moves
 * `status` from `pending`; `size_bytes` and `sha256` are set together with `ready`.
 */
export interface ArtifactDoc extends Doc {
  project_id: string;
  kind: ArtifactKind;
  status: ArtifactStatus;
  job_id: string;
  source: DatasetSource | BundleSource;
  file_name: string;
  content_type: string;
  size_bytes: number | null;
  sha256: string | null;
  /** Chunks of the stored bytes (scheduler/exports/blobs.ts); internal. */
  chunks: number | null;
  /** Kind-specific counts (dataset: lines written, episodes skipped; bundle: scenarios). */
  contents: Record<string, unknown> | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  ready_at: string | null;
}

/** GET /v1/artifacts/{id}. */
export function artifactView(a: ArtifactDoc): Record<string, unknown> {
  return {
    id: a._id,
    kind: a.kind,
    status: a.status,
    job_id: a.job_id,
    source: a.source,
    file_name: a.file_name,
    content_type: a.content_type,
    size_bytes: a.size_bytes,
    sha256: a.sha256,
    contents: a.contents,
    error: a.error,
    created_at: a.created_at,
    ready_at: a.ready_at,
  };
}

/** An artifact of the caller's project; 404 for unknown ids and other projects' artifacts alike. */
export async function loadArtifact(store: DocumentStore, projectId: string, id: string): Promise<ArtifactDoc> {
  const a = await store.get<ArtifactDoc>(Collections.artifacts, id);
  if (!a || a.project_id !== projectId) throw notFound(`artifact ${id}`);
  return a;
}

export async function ensureExportIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.artifacts, [{ fields: ['project_id', 'created_at'] }]);
}
