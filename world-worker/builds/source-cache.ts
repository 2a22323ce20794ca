import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { ServiceError, SourceMissingError } from '../../core/index.js';
import { PRIVATE_DIR_MODE, newId } from '../../core/index.js';
import { extractArchive, inspectArchive, packFolder, type ArchiveLimits } from './archive.js';
import { fetchGitCommit, type GitFetchOptions } from './git.js';
import { copyLocalSource, resolveLocalPath } from './local-path.js';
import { listTree, pruneSkipped, sourceDigest } from './tree.js';

/** Where a source comes from, as the worker is asked to fetch it. */
export type SourceSpec =
  | { kind: 'git'; url: string; commit: string }
  | { kind: 'local_path'; path: string }
  | { kind: 'archive'; archive: Buffer };

export interface FetchedSource {
  /** `sourceDigest` of the source (`digestFolder`, plus links if any): the identity of the pinned input. */
  digest: string;
  dir: string;
  files: number;
  /** The source packed as .tar.gz (absent when it was given as an archive). */
  archive?: Buffer;
}

export interface SourceCacheOptions {
  sourceRoots: readonly string[];
  /** Largest packed source kept (the archive travels to the scheduler's store). */
  maxArchiveBytes: number;
  archiveLimits?: ArchiveLimits;
  gitTimeoutMs?: number;
  /** How remote git sources are reached (SERVICE_GIT_ALLOW_PRIVATE, SERVICE_GIT_SSH_KEY, ...; git.ts). */
  git?: Pick<GitFetchOptions, 'allowPrivate' | 'ssh' | 'resolve' | 'logger'>;
}

/**
 * The sources a world-worker has on disk, content-addressed: `<root>/<digest>/` holds the
 * source whose `digestFolder` is `digest`. A folder appears there only complete and
 * verified (built in a temporary folder, digested, then renamed into place), so its
 * presence alone proves what it holds. Any worker can rebuild it from the archive.
 */
export class SourceCache {
  readonly #root: string;
  readonly #opts: SourceCacheOptions;

  constructor(root: string, opts: SourceCacheOptions) {
    this.#root = root;
    this.#opts = opts;
  }

  dirOf(digest: string): string {
    const m = /^sha256:([0-9a-f]{64})$/.exec(digest);
    if (!m) throw new ServiceError('bad_request', `"${digest}" is not a source digest (sha256:<64 hex digits>)`);
    return path.join(this.#root, m[1]!);
  }

  async has(digest: string): Promise<boolean> {
    return (await stat(this.dirOf(digest)).catch(() => null))?.isDirectory() ?? false;
  }

  /** Fetches a source, digests it, keeps it, and returns it packed unless it came packed. */
  async fetch(spec: SourceSpec): Promise<FetchedSource> {
    return this.#build(async (tmp) => {
      if (spec.kind === 'archive') return this.#unpack(spec.archive, tmp);
      const tree = path.join(tmp, 'tree');
      if (spec.kind === 'git')
        await fetchGitCommit(spec.url, spec.commit, tree, {
          ...this.#opts.git,
          sourceRoots: this.#opts.sourceRoots,
          timeoutMs: this.#opts.gitTimeoutMs,
        });
      else await copyLocalSource(await resolveLocalPath(spec.path, this.#opts.sourceRoots), tree);
      await listTree(tree);
      const archive = await packFolder(tree);
      if (archive.length > this.#opts.maxArchiveBytes) {
        throw new ServiceError(
          'payload_too_large',
          `the source packs to ${archive.length} bytes, more than this server keeps (SERVICE_MAX_UPLOAD_BYTES = ${this.#opts.maxArchiveBytes})`,
        );
      }
      return { tree, archive };
    });
  }

  /** The folder of `digest`, unpacking `archive` first when it is not here yet. */
  async ensure(digest: string, archive: Buffer | null): Promise<string> {
    if (await this.has(digest)) return this.dirOf(digest);
    if (!archive) {
      throw new SourceMissingError(`source ${digest} is not on this worker`, digest);
    }
    const got = await this.fetch({ kind: 'archive', archive });
    if (got.digest !== digest)
      throw new ServiceError(
        'conflict',
        `the archive of source ${digest} unpacks to ${got.digest}: the stored source changed`,
      );
    return got.dir;
  }

  async #unpack(archive: Buffer, tmp: string): Promise<{ tree: string }> {
    const summary = await inspectArchive(archive, this.#opts.archiveLimits);
    const unpacked = path.join(tmp, 'unpacked');
    await mkdir(unpacked);
    return { tree: await extractArchive(archive, unpacked, summary) };
  }

  async #build(make: (tmp: string) => Promise<{ tree: string; archive?: Buffer }>): Promise<FetchedSource> {
    // Private from here up; the unpacked trees below keep their modes, as a container's user reads them at /app.
    await mkdir(this.#root, { recursive: true, mode: PRIVATE_DIR_MODE });
    const tmp = path.join(this.#root, `.tmp-${newId('src')}`);
    await mkdir(tmp);
    try {
      const { tree, archive } = await make(tmp);
      await pruneSkipped(tree);
      const files = (await listTree(tree)).filter((e) => e.type !== 'dir').length;
      const digest = await sourceDigest(tree);
      const dir = this.dirOf(digest);
      if (!(await this.has(digest))) {
        // another fetch of the same source may win the rename: its folder is identical
        await rename(tree, dir).catch(async (err: NodeJS.ErrnoException) => {
          if (!(await this.has(digest))) throw err;
        });
      }
      return { digest, dir, files, ...(archive ? { archive } : {}) };
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
}
