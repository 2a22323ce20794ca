import { createHash } from 'node:crypto';
import { chmod, lstat, readdir, readlink, realpath, rm } from 'node:fs/promises';
import path from 'node:path';
import { digestFolder } from '../../catalog/index.js';
import { ServiceError, ValidationFailedError } from '../../core/index.js';

export interface TreeEntry {
  /** Posix path relative to the root. */
  path: string;
  type: 'file' | 'dir' | 'symlink';
}

/**
 * Folders that are never part of a source, at any depth: the same ones `digestFolder`
 * (catalog/digest.ts) leaves out, so a materialised source holds exactly what its digest covers.
 */
export const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);

const SPECIAL_BITS = 0o7000;

/**
 * Lists a source folder (sorted, depth first) and proves it is self-contained: every
 * symbolic link resolves inside `root` (or dangles inside it), and there is no device,
 * FIFO or socket. Clears setuid/setgid/sticky bits on the way, since a source never needs them.
 *
 * @throws ServiceError('validation_failed') naming the offending entry.
 */
export async function listTree(root: string): Promise<TreeEntry[]> {
  const realRoot = await realpath(root);
  const out: TreeEntry[] = [];
  const walk = async (rel: string): Promise<void> => {
    const names = (await readdir(path.join(root, rel))).sort();
    for (const name of names) {
      if (SKIPPED_FOLDERS.has(name)) continue;
      const relPath = rel ? `${rel}/${name}` : name;
      const abs = path.join(root, relPath);
      const st = await lstat(abs);
      if (st.isSymbolicLink()) {
        const target = await realpath(abs).catch(() => null);
        if (target !== null && !isInside(realRoot, target)) {
          throw new ValidationFailedError(`source entry "${relPath}" is a link leaving the source folder`, [
            { field: 'source', message: `"${relPath}" is a symbolic link to ${target}, outside the source folder` },
          ]);
        }
        out.push({ path: relPath, type: 'symlink' });
      } else if (st.isDirectory()) {
        out.push({ path: relPath, type: 'dir' });
        await walk(relPath);
      } else if (st.isFile()) {
        if (st.mode & SPECIAL_BITS) await chmod(abs, st.mode & 0o777);
        out.push({ path: relPath, type: 'file' });
      } else {
        throw new ValidationFailedError(`source entry "${relPath}" is not a file, folder or link`, [
          { field: 'source', message: `"${relPath}" is a device, FIFO or socket` },
        ]);
      }
    }
  };
  await walk('');
  return out;
}

/** Whether `child` is `parent` or below it (both absolute, already resolved). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Removes the skipped folders (`.git`, `node_modules`) at any depth below `root`. */
export async function pruneSkipped(root: string, rel = ''): Promise<void> {
  for (const e of await readdir(path.join(root, rel), { withFileTypes: true })) {
    const child = path.join(rel, e.name);
    if (SKIPPED_FOLDERS.has(e.name)) await rm(path.join(root, child), { recursive: true, force: true });
    else if (e.isDirectory()) await pruneSkipped(root, child);
  }
}

/**
 * The source digest: `digestFolder` (regular files), extended with the symbolic links when
 * there are any (`digestFolder` does not see them, yet they are part of what runs).
 * Catalog folders have no links, so their digest is exactly the catalog's.
 */
export async function sourceDigest(root: string): Promise<string> {
  const files = await digestFolder(root);
  const links = (await listTree(root)).filter((e) => e.type === 'symlink');
  if (links.length === 0) return files;
  const hash = createHash('sha256').update(`${files}\0`);
  for (const l of links) hash.update(`${l.path}\0${await readlink(path.join(root, l.path))}\0`);
  return `sha256:${hash.digest('hex')}`;
}
