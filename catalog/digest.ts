import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

/** Folders never part of a packaged source. */
const SKIPPED = new Set(['node_modules', '.git']);

/**
 * The digest of a source folder: `sha256:<hex>` over every regular file below `dir`
 * (node_modules and .git left out), in sorted order of their relative POSIX paths, each
 * fed as `<path>\0<byte length>\0<bytes>\0`. File modes and times do not count, so the
 * same files give the same digest on every machine.
 */
export async function digestFolder(dir: string): Promise<string> {
  const root = path.resolve(dir);
  const files = await listFiles(root);
  const hash = createHash('sha256');
  for (const rel of files) {
    const bytes = await readFile(path.join(root, rel));
    hash.update(`${rel}\0${bytes.length}\0`);
    hash.update(bytes);
    hash.update('\0');
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Relative POSIX paths of the regular files below `root`, sorted by code unit. */
export async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(root, rel), { withFileTypes: true });
    for (const e of entries) {
      if (SKIPPED.has(e.name)) continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(child);
      else if (e.isFile()) out.push(child);
    }
  };
  await walk('');
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
