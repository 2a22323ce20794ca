import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { ServiceError } from '../core/index.js';

export { digestFolder } from './digest.js';

/** One packaged sample application. */
export interface CatalogEntry {
  /** Also the application's world name. */
  name: string;
  title: string;
  summary: string;
  /** Folder relative to the catalog dir, e.g. `apps/shop-support`. */
  path: string;
  /** `digestFolder` of that folder when the catalog was packaged. */
  digest: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The catalog folder (holding index.yaml and apps/). From the compiled `dist/catalog/`
 * it is the source tree's `catalog/`, which the package ships as is.
 */
export const CATALOG_DIR = existsSync(path.join(here, 'index.yaml')) ? here : path.resolve(here, '..', '..', 'catalog');

/** Absolute folder of one entry. */
export const entryDir = (entry: CatalogEntry, catalogDir = CATALOG_DIR): string => path.join(catalogDir, entry.path);

/**
 * Reads catalog/index.yaml: the entries in catalog order (import order; the free plan
 * registers the first only).
 *
 * @throws ServiceError('internal') when the index is missing or malformed (a packaging bug).
 */
export async function readCatalogIndex(catalogDir = CATALOG_DIR): Promise<CatalogEntry[]> {
  return readEntries(catalogDir, 'entries');
}

/**
 * The public benchmarks packaged as applications (index.yaml `benchmarks`, docs/worlds.md,
 * Importing a benchmark): written by an importer, not by hand, and not registered by
 * import-catalog, whose worlds a quickstart builds in seconds (a benchmark's every task is a
 * scenario: 114 for tau2 retail). Their digests count as the operator's code all the same.
 */
export async function readCatalogBenchmarks(catalogDir = CATALOG_DIR): Promise<CatalogEntry[]> {
  return readEntries(catalogDir, 'benchmarks');
}

async function readEntries(catalogDir: string, key: 'entries' | 'benchmarks'): Promise<CatalogEntry[]> {
  const file = path.join(catalogDir, 'index.yaml');
  let raw: unknown;
  try {
    raw = parseYaml(await readFile(file, 'utf8'));
  } catch (err) {
    throw new ServiceError('internal', `catalog index unreadable: ${file}: ${(err as Error).message}`, { cause: err });
  }
  const entries = (raw as Record<string, unknown> | null)?.[key] ?? (key === 'benchmarks' ? [] : undefined);
  if (!Array.isArray(entries) || (key === 'entries' && entries.length === 0))
    throw new ServiceError('internal', `catalog index ${file} has no ${key}`);
  return entries.map((e, i) => {
    const entry = e as Partial<CatalogEntry>;
    for (const field of ['name', 'title', 'summary', 'path', 'digest'] as const) {
      if (typeof entry[field] !== 'string' || entry[field] === '')
        throw new ServiceError('internal', `catalog index ${key}[${i}].${field} is missing`);
    }
    return entry as CatalogEntry;
  });
}

/**
 * The `images` pins of one entry when every service runs on the shared runtime image
 * (`runtimeImage`, SANDBOX_RUNTIME_IMAGE): each service's image key (its `image`, else its
 * name) mapped to that pin.
 */
export async function catalogImages(
  entry: CatalogEntry,
  runtimeImage: string,
  catalogDir = CATALOG_DIR,
): Promise<Record<string, string>> {
  const world = parseYaml(await readFile(path.join(entryDir(entry, catalogDir), 'world.yaml'), 'utf8')) as {
    services?: Array<{ name: string; image?: string }>;
  };
  return Object.fromEntries((world.services ?? []).map((s) => [s.image ?? s.name, runtimeImage]));
}
