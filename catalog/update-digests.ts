/**
 * Recomputes the `digest` of every entry of catalog/index.yaml from its folder and writes
 * the index back (comments and order kept). Run after changing a catalog application:
 *   node --import tsx catalog/update-digests.ts
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { digestFolder } from './digest.js';
import { CATALOG_DIR, readCatalogBenchmarks, readCatalogIndex, entryDir } from './index.js';

const file = path.join(CATALOG_DIR, 'index.yaml');
const doc = parseDocument(await readFile(file, 'utf8'));
let changed = 0;
for (const [key, entries] of [
  ['entries', await readCatalogIndex()],
  ['benchmarks', await readCatalogBenchmarks()],
] as const)
  for (const [i, entry] of entries.entries()) {
    const digest = await digestFolder(entryDir(entry));
    if (digest !== entry.digest) {
      doc.setIn([key, i, 'digest'], digest);
      changed++;
    }
    process.stdout.write(`${entry.name}: ${digest}${digest !== entry.digest ? ' (updated)' : ''}\n`);
  }
if (changed > 0) await writeFile(file, doc.toString({ lineWidth: 100 }));
process.stdout.write(`${changed} digest(s) updated\n`);
