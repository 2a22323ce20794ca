import { cp, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ValidationFailedError } from '../../core/index.js';
import { SKIPPED_FOLDERS, isInside, listTree } from './tree.js';

const problem = (message: string) =>
  new ValidationFailedError(`source.path: ${message}`, [{ field: 'source.path', message }]);

/**
 * Resolves a `local_path` source to the real folder it names, inside one of the source
 * roots. An absolute path is taken as is; a relative one is looked up under each root in
 * order. Refuses (422, field `source.path`) when no roots are configured, the path has a
 * `..` segment, the folder is missing or not a folder, or it resolves (through symbolic
 * links) outside every root.
 */
export async function resolveLocalPath(raw: string, roots: readonly string[]): Promise<string> {
  if (roots.length === 0)
    throw problem('this server has no source roots (SERVICE_SOURCE_ROOTS), so local_path sources are not available');
  if (raw.split(/[\\/]/).includes('..')) throw problem('must not contain ".." segments');
  const candidates = path.isAbsolute(raw) ? [raw] : roots.map((r) => path.join(r, raw));
  const realRoots = (await Promise.all(roots.map((r) => realpath(r).catch(() => null)))).filter(
    (r): r is string => r !== null,
  );
  let found = false;
  for (const candidate of candidates) {
    const real = await realpath(candidate).catch(() => null);
    if (real === null) continue;
    found = true;
    if (!realRoots.some((root) => isInside(root, real))) continue;
    if (!(await stat(real)).isDirectory()) throw problem(`${raw} is not a folder`);
    return real;
  }
  if (found) throw problem(`${raw} resolves outside the server's source roots (SERVICE_SOURCE_ROOTS)`);
  throw problem(`no folder ${raw} inside the server's source roots`);
}

/**
 * Copies a local source folder into `dest` (links kept as links, `.git` left out) and
 * proves the copy self-contained: a link that pointed elsewhere in the original folder by
 * an absolute path leaves the copy and is refused.
 */
export async function copyLocalSource(src: string, dest: string): Promise<void> {
  await listTree(src);
  await cp(src, dest, {
    recursive: true,
    verbatimSymlinks: true,
    errorOnExist: true,
    filter: (from) =>
      !path
        .relative(src, from)
        .split(path.sep)
        .some((seg) => SKIPPED_FOLDERS.has(seg)),
  });
  await listTree(dest);
}
