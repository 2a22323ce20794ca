import { createHash } from 'node:crypto';
import { Collections } from '../../core/index.js';
import { ServiceError } from '../../core/index.js';
import { nowIso } from '../../core/index.js';
import type { Doc, DocumentStore } from '../../core/index.js';

/** Raw bytes per stored chunk: well under MongoDB's 16 MB document limit once in base64. */
const CHUNK_BYTES = 4 * 1024 * 1024;

export interface ArchiveMeta extends Doc {
  digest: string;
  chunks: number;
  bytes: number;
  sha256: string;
  created_at: string;
}

export interface ArchiveChunk extends Doc {
  digest: string;
  index: number;
  data: string;
}

/**
 * Keeps a source archive (.tar.gz) in the document store under its source digest, so any
 * world-worker can be handed the exact pinned source later (builds, validations, runs),
 * even when the application was deleted or its upstream repository moved. Content-
 * addressed: storing the same digest twice keeps the first. The chunks are written
 * first and the meta document last, so a meta document proves a complete archive.
 */
export async function putArchive(store: DocumentStore, digest: string, bytes: Buffer): Promise<void> {
  if (await store.get(Collections.sourceArchives, digest)) return;
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let i = 0; i < chunks; i++) {
    const data = bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES).toString('base64');
    await store
      .replace<ArchiveChunk>(Collections.sourceArchives, { _id: `${digest}:${i}`, digest, index: i, data })
      .then(async (replaced) => {
        if (!replaced) await insertIgnoringRace(store, { _id: `${digest}:${i}`, digest, index: i, data });
      });
  }
  await insertIgnoringRace(store, {
    _id: digest,
    digest,
    chunks,
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    created_at: nowIso(),
  } satisfies ArchiveMeta);
}

/** The archive stored for `digest`, or null when none is; verifies its checksum. */
export async function getArchive(store: DocumentStore, digest: string): Promise<Buffer | null> {
  const meta = await store.get<ArchiveMeta>(Collections.sourceArchives, digest);
  if (!meta) return null;
  const parts: Buffer[] = [];
  for (let i = 0; i < meta.chunks; i++) {
    const chunk = await store.get<ArchiveChunk>(Collections.sourceArchives, `${digest}:${i}`);
    if (!chunk) throw new ServiceError('internal', `source archive ${digest} lost chunk ${i}`);
    parts.push(Buffer.from(chunk.data, 'base64'));
  }
  const bytes = Buffer.concat(parts);
  if (createHash('sha256').update(bytes).digest('hex') !== meta.sha256)
    throw new ServiceError('internal', `source archive ${digest} is damaged (checksum mismatch)`);
  return bytes;
}

async function insertIgnoringRace(store: DocumentStore, doc: Doc): Promise<void> {
  try {
    await store.insert(Collections.sourceArchives, doc);
  } catch (err) {
    // another scheduler stored the same content-addressed document first
    if (!(err instanceof ServiceError && err.code === 'conflict')) throw err;
  }
}
