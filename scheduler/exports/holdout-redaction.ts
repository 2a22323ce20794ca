import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { extractArchive, inspectArchive, packFolder } from '../../world-worker/index.js';
import type { ScenarioDoc } from '../worlds/index.js';

/** Scenario fields a bundle leaves out of held-out scenarios: the answer key. */
export const REDACTED_FIELDS = ['reference_plan', 'checks'] as const;

/** A held-out scenario's specification without its reference plan and checks. */
export function redactedSpecification(s: ScenarioDoc): Record<string, unknown> {
  const spec = { ...(s.specification as unknown as Record<string, unknown>) };
  for (const f of REDACTED_FIELDS) delete spec[f];
  return spec;
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
