import path from 'node:path';
import { Collections } from '../../core/index.js';
import { ServiceError } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import { SourceCache } from '../../world-worker/index.js';
import type { SchedulerDeps } from '../context.js';
import { putArchive } from './archives.js';
import { isBundle, openBundle, type ImportedBundle } from './bundle-import.js';
import type { ApplicationDoc, UploadInfo } from './types.js';

/** The scheduler's own copy of unpacked sources (shared with the worker in the embedded shape). */
export function schedulerSourceCache(deps: SchedulerDeps): SourceCache {
  return new SourceCache(path.join(deps.config.dataDir, 'sources'), {
    sourceRoots: deps.config.sourceRoots,
    maxArchiveBytes: deps.config.maxUploadBytes,
  });
}

/**
 * Accepts a source archive: refuses it beyond SERVICE_MAX_UPLOAD_BYTES (413), when it is
 * not gzip (415) or not tar (400), or when an entry could escape the folder it is unpacked
 * in or it holds no file (422); otherwise unpacks it safely, digests the source, keeps the
 * archive under that digest and records it on the application. An archive without
 * world.yaml is an application's plain source: a build with a model writes its world
 * (docs/worlds.md, From an application), and one without a model says what to add.
 *
 * A world bundle (a .tar.gz from `GET /v1/world-versions/{id}/bundle`) is an import: its
 * `source.tar.gz` is the source, and its image archives, when the installation runs
 * container sandboxes, are loaded, verified and pinned on the application under the
 * project's own names (scheduler/applications/bundle-import.ts).
 *
 * An upload to an application imported from the catalog is accepted and makes it tenant
 * code: its `catalog` field is cleared (the code is no longer the catalog's), and where the
 * code may run follows the uploaded bytes' digest either way (world-worker/sandboxes/trust.ts),
 * so re-uploading the catalog's exact files is still the catalog's code.
 */
export async function acceptUpload(
  deps: SchedulerDeps,
  app: ApplicationDoc,
  upload: Buffer,
): Promise<UploadInfo & { bundle?: Omit<ImportedBundle, 'source'> }> {
  if (app.source.kind !== 'upload') {
    throw new ServiceError(
      'conflict',
      `application ${app._id} takes its source from ${app.source.kind === 'git' ? 'a git repository' : 'a folder on the server'}; only applications with source kind "upload" take an archive`,
    );
  }
  if (upload.length > deps.config.maxUploadBytes) {
    throw new ServiceError(
      'payload_too_large',
      `the archive is ${upload.length} bytes; this server accepts up to ${deps.config.maxUploadBytes} (SERVICE_MAX_UPLOAD_BYTES)`,
    );
  }
  // a world bundle (docs/exports.md): its source.tar.gz is the source, its images are loaded first
  const bundle = (await isBundle(upload)) ? await openBundle(deps, app, upload) : null;
  const bytes = bundle?.source ?? upload;
  const got = await schedulerSourceCache(deps).fetch({ kind: 'archive', archive: bytes });
  await putArchive(deps.adapters.store, got.digest, bytes);
  const info: UploadInfo = { digest: got.digest, files: got.files, bytes: bytes.length, uploaded_at: nowIso() };
  const images =
    bundle && Object.keys(bundle.images.loaded).length > 0 ? { ...app.images, ...bundle.images.loaded } : app.images;
  await deps.adapters.store.update(Collections.applications, app._id, {
    upload: info,
    images,
    updated_at: info.uploaded_at,
    ...(app.catalog ? { catalog: null } : {}),
  });
  if (!bundle) return info;
  const { source: _source, ...about } = bundle;
  return { ...info, bundle: about };
}
