import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { extractArchive, inspectArchive, packFolder } from '../../world-worker/index.js';

/** What replaces a text that names a holdout family in what a bundle carries. */
export const WITHHELD = '[withheld: holdout family]';

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether a text names one of `names` (template or scenario ids) as a whole id: a name is
 * not matched inside a longer id (`reschedule` in `reschedule-revision`), but is in its
 * scenario ids (`reschedule--v2`).
 */
export function namesAny(text: string, names: Set<string>): boolean {
  for (const n of names)
    if (new RegExp(`(^|[^A-Za-z0-9_-])${escapeRe(n)}($|--|[^A-Za-z0-9_-])`).test(text)) return true;
  return false;
}

/**
 * A copy of `value` (a validation report) with nothing of a holdout family: an array item
 * or an object key that names one of `names` is dropped (a withdrawal, a model repair, an
 * authored file), a string that names one becomes {@link WITHHELD}.
 */
export function redactNamed(value: unknown, names: Set<string>): unknown {
  if (names.size === 0) return value;
  if (typeof value === 'string') return namesAny(value, names) ? WITHHELD : value;
  if (Array.isArray(value))
    return value.filter((v) => !namesAny(JSON.stringify(v) ?? '', names)).map((v) => redactNamed(v, names));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !namesAny(k, names))
        .map(([k, v]) => [k, redactNamed(v, names)]),
    );
  return value;
}

async function yamlFiles(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await yamlFiles(dir, p)));
    else if (e.isFile() && /\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}

/**
 * The source archive without the scenario templates that held-out scenarios were expanded
 * from (a YAML file whose top-level `id` names such a template), so the bundle carries no
 * held-out answer key; the original archive when there is none to remove.
 */
export async function redactSource(
  archive: Buffer,
  holdoutTemplates: Set<string>,
): Promise<{ bytes: Buffer; removed: string[] }> {
  if (holdoutTemplates.size === 0) return { bytes: archive, removed: [] };
  const dir = await mkdtemp(path.join(tmpdir(), 'crucible-redact-'));
  try {
    const root = await extractArchive(archive, dir, await inspectArchive(archive));
    const removed: string[] = [];
    for (const rel of await yamlFiles(root)) {
      let doc: unknown;
      try {
        doc = parseYaml(await readFile(path.join(root, rel), 'utf8'));
      } catch {
        continue;
      }
      const id = doc && typeof doc === 'object' ? (doc as { id?: unknown }).id : undefined;
      if (typeof id === 'string' && holdoutTemplates.has(id)) {
        await rm(path.join(root, rel));
        removed.push(rel);
      }
    }
    return removed.length === 0
      ? { bytes: archive, removed }
      : { bytes: await packFolder(root), removed: removed.sort() };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
