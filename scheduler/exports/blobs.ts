import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { Collections, MAX_ARTIFACT_BYTES } from '../../core/index.js';
import { ServiceError } from '../../core/index.js';
import type { Doc, DocumentStore } from '../../core/index.js';

// MAX_ARTIFACT_BYTES (64 MiB, core/grpc-limits.ts) is the largest artifact kept: the store holds
// it as base64 chunks, not a file system, and a download carries it whole in one gRPC message.
/** Raw bytes per chunk: well under MongoDB's 16 MB document limit once in base64. */
const CHUNK_BYTES = 4 * 1024 * 1024;

export interface BlobChunk extends Doc {
  artifact_id: string;
  index: number;
  data: string;
}

/**
 * Stores an artifact's bytes in the document store (Collections.artifactBlobs, `<artifact id>:<i>`),
 * so any gateway or scheduler on any machine can serve the download. Re-running an export
 * job overwrites the same chunk ids, so a retried job leaves no stray chunks behind for
 * the chunk count it records. Refuses files over {@link MAX_ARTIFACT_BYTES}.
 */
export async function putBlob(
  store: DocumentStore,
  artifactId: string,
  bytes: Buffer,
): Promise<{ chunks: number; size_bytes: number; sha256: string }> {
  if (bytes.length > MAX_ARTIFACT_BYTES) {
    throw new ServiceError(
      'payload_too_large',
      `the export is ${bytes.length} bytes, over the limit of ${MAX_ARTIFACT_BYTES} bytes; export fewer runs or splits`,
    );
  }
  const chunks = Math.max(1, Math.ceil(bytes.length / CHUNK_BYTES));
  for (let i = 0; i < chunks; i++) {
    const doc: BlobChunk = {
      _id: `${artifactId}:${i}`,
      artifact_id: artifactId,
      index: i,
      data: bytes.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES).toString('base64'),
    };
    if (!(await store.replace(Collections.artifactBlobs, doc))) await store.insert(Collections.artifactBlobs, doc);
  }
  return { chunks, size_bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * {@link putBlob} for an artifact written to a file: read one chunk at a time, so a bundle with
 * image archives is never held whole in memory while it is stored.
 */
export async function putBlobFile(
  store: DocumentStore,
  artifactId: string,
  file: string,
): Promise<{ chunks: number; size_bytes: number; sha256: string }> {
  const size = (await stat(file)).size;
  if (size > MAX_ARTIFACT_BYTES) {
    throw new ServiceError(
      'payload_too_large',
      `the export is ${size} bytes, over the limit of ${MAX_ARTIFACT_BYTES} bytes; export fewer runs or splits, or a bundle without images`,
    );
  }
  const hash = createHash('sha256');
  const chunks = Math.max(1, Math.ceil(size / CHUNK_BYTES));
  const fh = await open(file, 'r');
  try {
    for (let i = 0; i < chunks; i++) {
      const buf = Buffer.alloc(Math.min(CHUNK_BYTES, size - i * CHUNK_BYTES));
      const { bytesRead } = await fh.read(buf, 0, buf.length, i * CHUNK_BYTES);
      if (bytesRead !== buf.length) throw new ServiceError('internal', `artifact file ${file} changed while stored`);
      hash.update(buf);
      const doc: BlobChunk = {
        _id: `${artifactId}:${i}`,
        artifact_id: artifactId,
        index: i,
        data: buf.toString('base64'),
      };
      if (!(await store.replace(Collections.artifactBlobs, doc))) await store.insert(Collections.artifactBlobs, doc);
    }
  } finally {
    await fh.close();
  }
  return { chunks, size_bytes: size, sha256: hash.digest('hex') };
}

/** The stored bytes of an artifact of `chunks` chunks; verifies them against `sha256`. */
export async function getBlob(
  store: DocumentStore,
  artifactId: string,
  chunks: number,
  sha256: string,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let i = 0; i < chunks; i++) {
    const chunk = await store.get<BlobChunk>(Collections.artifactBlobs, `${artifactId}:${i}`);
    if (!chunk) throw new ServiceError('internal', `artifact ${artifactId} lost chunk ${i}`);
    parts.push(Buffer.from(chunk.data, 'base64'));
  }
  const bytes = Buffer.concat(parts);
  if (createHash('sha256').update(bytes).digest('hex') !== sha256)
    throw new ServiceError('internal', `artifact ${artifactId} is damaged (checksum mismatch)`);
  return bytes;
}
