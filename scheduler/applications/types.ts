import { Collections } from '../../core/index.js';
import { notFound } from '../../core/index.js';
import type { Doc, DocumentStore } from '../../core/index.js';

/** Where an application's source comes from (spec section 2, fields of `source`). */
export interface ApplicationSourceSpec {
  kind: 'git' | 'local_path' | 'upload';
  url?: string;
  ref?: string;
  commit?: string;
  path?: string;
}

/** The last archive stored for an `upload` application. */
export interface UploadInfo {
  /** `digestFolder` of the unpacked source; the archive is kept under it. */
  digest: string;
  files: number;
  bytes: number;
  uploaded_at: string;
}

export interface ApplicationDoc extends Doc {
  project_id: string;
  name: string;
  source: ApplicationSourceSpec;
  images: Record<string, string> | null;
  policies: string;
  notes: string;
  connection_mode: 'source';
  upload: UploadInfo | null;
  /** Set for applications registered from the packaged catalog. */
  catalog: { name: string; digest: string } | null;
  created_at: string;
  updated_at: string;
}

/** The application record as the API shows it. */
export function applicationView(a: ApplicationDoc): Record<string, unknown> {
  return {
    id: a._id,
    name: a.name,
    source: a.source,
    images: a.images,
    policies: a.policies,
    notes: a.notes,
    connection_mode: a.connection_mode,
    created_at: a.created_at,
    updated_at: a.updated_at,
    source_uploaded: a.source.kind === 'upload' ? a.upload !== null : null,
    source_digest: a.upload?.digest ?? null,
    catalog: a.catalog,
  };
}

/** An application of the project; 404 for unknown ids and other projects' ones alike. */
export async function loadApplication(store: DocumentStore, projectId: string, id: string): Promise<ApplicationDoc> {
  const app = await store.get<ApplicationDoc>(Collections.applications, id);
  if (!app || app.project_id !== projectId) throw notFound(`application ${id}`);
  return app;
}

export async function ensureApplicationIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.applications, [
    { fields: ['project_id', 'name'], unique: true },
    { fields: ['project_id', 'created_at'] },
  ]);
}
