import path from 'node:path';
import { Parser, create as createTar, extract as extractTar, type ReadEntry } from 'tar';
import { ServiceError, invalid } from '../../core/index.js';
import { listTree } from './tree.js';

/** Bounds of one source archive, against archive bombs. */
export interface ArchiveLimits {
  /** Entries of every type (default 20 000). */
  maxEntries?: number;
  /** Sum of the unpacked file sizes (default 1 GiB). */
  maxUnpackedBytes?: number;
}

export interface ArchiveSummary {
  /** Regular files in the archive (links and folders not counted). */
  files: number;
  entries: number;
  unpackedBytes: number;
  /**
   * Where the source is: '' for the archive's root (always when world.yaml is there), else
   * the single top folder (`myapp/`) that holds everything, whose contents become the source.
   */
  root: string;
}

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const GZIP_MAGIC = [0x1f, 0x8b];

/** Why an archive is refused: 422 naming the part `file`, one clear sentence. */
const refuse = (message: string): ServiceError => invalid('file', message);

/**
 * Reads a .tar.gz completely without writing anything and refuses it, with a clear 4xx,
 * when it is not gzip (415), not a tar inside (400), or holds an entry that could write
 * outside the folder it is unpacked in: an absolute path, a `..` segment, a symbolic
 * link whose target leaves the archive, a hard link to anything but an earlier file of
 * the archive, a path through a link, a device, FIFO or other special entry (422). Also
 * refuses archives beyond the limits and archives holding no file. An archive without
 * `world.yaml` is a source a build with a model turns into a world.
 */
export async function inspectArchive(bytes: Buffer, limits: ArchiveLimits = {}): Promise<ArchiveSummary> {
  const maxEntries = limits.maxEntries ?? 20_000;
  const maxBytes = limits.maxUnpackedBytes ?? 1024 ** 3;
  if (bytes.length < 2 || bytes[0] !== GZIP_MAGIC[0] || bytes[1] !== GZIP_MAGIC[1]) {
    throw new ServiceError(
      'unsupported_media_type',
      'the file is not a gzip-compressed tar archive (.tar.gz): it does not start with the gzip signature',
    );
  }
  const files = new Set<string>();
  const links = new Set<string>();
  const tops = new Set<string>();
  let entries = 0;
  let unpackedBytes = 0;
  let problem = null as ServiceError | null;

  const check = (entry: ReadEntry): void => {
    entries++;
    if (entries > maxEntries) throw refuse(`the archive has more than ${maxEntries} entries`);
    const name = entryPath(entry.path);
    if (FILE_TYPES.has(entry.type)) {
      unpackedBytes += entry.size;
      if (unpackedBytes > maxBytes) throw refuse(`the archive unpacks to more than ${maxBytes} bytes`);
    }
    if (name === '') return; // the archive's own root folder (`./`)
    for (let i = name.indexOf('/'); i !== -1; i = name.indexOf('/', i + 1)) {
      if (links.has(name.slice(0, i)))
        throw refuse(`entry "${name}" would be written through the link "${name.slice(0, i)}"`);
    }
    tops.add(name.split('/')[0]!);
    if (FILE_TYPES.has(entry.type)) files.add(name);
    else if (entry.type === 'Directory') return;
    else if (entry.type === 'SymbolicLink') {
      const target = entry.linkpath ?? '';
      if (target === '' || target.startsWith('/') || /^[A-Za-z]:/.test(target))
        throw refuse(`symbolic link "${name}" points outside the archive (${target || 'empty target'})`);
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(name), target));
      if (resolved === '..' || resolved.startsWith('../'))
        throw refuse(`symbolic link "${name}" points outside the archive (${target})`);
      links.add(name);
    } else if (entry.type === 'Link') {
      const target = entryPath(entry.linkpath ?? '', `hard link "${name}"`);
      if (!files.has(target))
        throw refuse(`hard link "${name}" points to "${entry.linkpath}", which is not an earlier file of the archive`);
      files.add(name);
      links.add(name);
    } else {
      throw refuse(`entry "${name}" is a ${entry.type}; only files, folders and links inside the archive are accepted`);
    }
  };

  await new Promise<void>((resolve, reject) => {
    const parser: Parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        if (!problem) {
          try {
            check(entry);
          } catch (err) {
            // stop reading at the first refusal: the rest may be an archive bomb
            problem = err as ServiceError;
            parser.abort(problem);
            return;
          }
        }
        entry.resume();
      },
    });
    const fail = (err: Error) => {
      if (problem) return reject(problem);
      if (/decompression ratio/.test(err.message))
        return reject(refuse(`the archive unpacks to far more than it weighs (${err.message})`));
      reject(
        new ServiceError('bad_request', `the file is gzip but not a readable tar archive: ${err.message}`, {
          cause: err,
        }),
      );
    };
    parser.on('error', fail);
    parser.on('abort', fail);
    parser.on('end', () => resolve());
    parser.end(bytes);
  });
  if (problem) throw problem;
  if (entries === 0 || files.size === 0) throw refuse('the archive holds no files');
  // the source is the archive's root, or the single top folder holding everything (`myapp/`);
  // world.yaml is optional: without it a build with a model writes the world (docs/worlds.md)
  let root = '';
  const [top] = [...tops];
  if (!files.has('world.yaml') && tops.size === 1 && top && !files.has(top) && !links.has(top)) root = `${top}/`;
  return { files: [...files].filter((f) => f.startsWith(root)).length, entries, unpackedBytes, root };
}

/** A normalised relative entry path; refuses absolute paths and `..` segments. */
function entryPath(raw: string, what = `entry "${raw}"`): string {
  if (raw.startsWith('/') || /^[A-Za-z]:[\\/]/.test(raw)) throw refuse(`${what} has an absolute path (${raw})`);
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw refuse(`${what} climbs out of the archive with ".." (${raw})`);
  return segments.join('/');
}

/**
 * Unpacks an archive that {@link inspectArchive} accepted into the empty folder `dest`,
 * with node-tar's own protections on too (strict, no absolute paths, no owner changes),
 * then re-checks the written tree (`listTree` refuses links leaving `dest` and special
 * files). Returns the source's folder (`dest`, or its single top folder).
 */
export async function extractArchive(bytes: Buffer, dest: string, summary: ArchiveSummary): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    const unpack = extractTar({ cwd: dest, strict: true, preservePaths: false, preserveOwner: false, noMtime: true });
    unpack.on('error', (err: Error) =>
      reject(new ServiceError('bad_request', `the archive could not be unpacked: ${err.message}`, { cause: err })),
    );
    unpack.on('close', () => resolve());
    unpack.end(bytes);
  });
  const root = summary.root ? path.join(dest, summary.root) : dest;
  await listTree(root);
  return root;
}

/**
 * Packs a source folder as .tar.gz: files in sorted order, no owners or times, so the
 * same folder always gives an archive that unpacks to the same digest.
 */
export async function packFolder(dir: string): Promise<Buffer> {
  const entries = await listTree(dir);
  const chunks: Buffer[] = [];
  const stream = createTar(
    { cwd: dir, gzip: true, portable: true, noMtime: true, follow: false, noDirRecurse: true },
    entries.map((e) => e.path),
  );
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}
