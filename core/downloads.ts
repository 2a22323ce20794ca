import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folder of files the gateway serves under /downloads (the Python client's wheel). */
export function downloadsDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '../clients/python/dist'), path.resolve(here, '../../clients/python/dist')];
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}

/** The address of the built client wheel under the gateway, or null when none is built. */
export function clientWheelPath(): string | null {
  const dir = downloadsDir();
  if (!existsSync(dir)) return null;
  const wheel = readdirSync(dir)
    .filter((f) => f.endsWith('.whl'))
    .sort()
    .pop();
  return wheel ? `/downloads/${wheel}` : null;
}
