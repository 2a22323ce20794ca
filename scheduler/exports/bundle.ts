import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { create as createTar } from 'tar';
import { Collections } from '../../core/index.js';
import { ServiceError } from '../../core/index.js';
import { getArchive } from '../applications/index.js';
import type { JobKind } from '../jobs/index.js';
import type { ScenarioDoc, WorldVersionDoc } from '../worlds/index.js';
import { mirrorJobStatus, storeArtifact } from './finish.js';
import { REDACTED_FIELDS, redactSource, redactedSpecification } from './holdout-redaction.js';
import { BUNDLE_JOB, type BundleSource, type ExportInput } from './types.js';

const README = (
  wv: WorldVersionDoc,
  images: boolean,
): string => `# World bundle: ${String((wv.manifest as { name?: unknown } | null)?.name ?? wv.world_id)} v${wv.version}

- manifest.json: the world version's manifest, tools, validation report, provenance and world_content_hash.
- scenarios/<scenario_id>.json: every approved scenario with its split and specification.
  Held-out scenarios are included and marked \`"holdout": true\`, without their reference plan
  and checks (\`"redacted"\` lists what was left out): keep them away from training data.
- source.tar.gz: the application source the version was built from (digest ${wv.source_digest ?? 'unknown'}),
  without the scenario templates held-out scenarios were expanded from (manifest.json,
  \`source_redacted\`, lists them); then its own digest differs from the version's.
${
  images
    ? `- images.json: the container images the version pins, by service. The images themselves are not in
  the bundle (the service does not pull from registries for exports): pull them by these references.
`
    : ''
}`;

/** The files of a bundle, by path inside the archive. */
export async function bundleFiles(
  source: BundleSource,
  wv: WorldVersionDoc,
  scenarios: ScenarioDoc[],
  original: Buffer,
): Promise<Map<string, Buffer>> {
  const holdout = (s: ScenarioDoc) => s.split === 'holdout';
  const { bytes: archive, removed } = await redactSource(
    original,
    new Set(scenarios.filter(holdout).map((s) => s.template)),
  );
  const json = (v: unknown): Buffer => Buffer.from(`${JSON.stringify(v, null, 2)}\n`, 'utf8');
  const files = new Map<string, Buffer>();
  files.set('README.md', Buffer.from(README(wv, source.include_images), 'utf8'));
  files.set(
    'manifest.json',
    json({
      world_version_id: wv._id,
      world_id: wv.world_id,
      application_id: wv.application_id,
      version: wv.version,
      world_content_hash: wv.world_content_hash,
      source_digest: wv.source_digest,
      published_at: wv.published_at,
      manifest: wv.manifest,
      tools: wv.compiled?.tools ?? [],
      validation_report: wv.validation_report,
      provenance: wv.provenance,
      source_redacted: removed,
      scenarios: scenarios.map((s) => ({
        scenario_id: s.scenario_id,
        split: s.split,
        holdout: s.split === 'holdout',
        file: `scenarios/${s.scenario_id}.json`,
      })),
    }),
  );
  for (const s of scenarios) {
    files.set(
      `scenarios/${s.scenario_id}.json`,
      json({
        id: s._id,
        scenario_id: s.scenario_id,
        template: s.template,
        split: s.split,
        holdout: holdout(s),
        origin: s.origin,
        ...(holdout(s)
          ? { specification: redactedSpecification(s), redacted: [...REDACTED_FIELDS] }
          : { specification: s.specification, validation_report: s.validation_report }),
      }),
    );
  }
  files.set('source.tar.gz', archive);
  if (source.include_images)
    files.set(
      'images.json',
      json({
        images: wv.compiled?.images ?? {},
        pulled: false,
        note: 'references only; pull them from their registries',
      }),
    );
  return files;
}

/** Packs `files` as a gzipped tar (portable: no owner or mtime of this machine). */
export async function tarGz(files: Map<string, Buffer>): Promise<Buffer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'crucible-bundle-'));
  try {
    const root = path.join(dir, 'bundle');
    for (const [name, bytes] of files) {
      await mkdir(path.dirname(path.join(root, name)), { recursive: true });
      await writeFile(path.join(root, name), bytes);
    }
    const out = path.join(dir, 'bundle.tar.gz');
    await createTar({ gzip: true, portable: true, cwd: root, file: out }, [...files.keys()].sort());
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The `bundle` job: a published world version as a .tar.gz of manifest.json, its approved
 * scenarios (holdout included and marked, without reference plans and checks), the application
 * source archive and, when asked, the pinned image references.
 */
export const bundleKind: JobKind<ExportInput> = {
  kind: BUNDLE_JOB,
  phases: [
    {
      name: 'write',
      async run(ctx) {
        const source = ctx.input.source as BundleSource;
        const store = ctx.deps.adapters.store;
        const wv = await store.get<WorldVersionDoc>(Collections.worldVersions, source.world_version_id);
        if (!wv || wv.status !== 'published')
          throw new ServiceError(
            'gone',
            `world version ${source.world_version_id} is not a published version any more`,
          );
        const scenarios = await store.find<ScenarioDoc>(
          Collections.scenarios,
          { world_version_id: wv._id, status: 'approved' },
          { sort: { field: 'scenario_id', direction: 'asc' } },
        );
        const archive = wv.source_digest ? await getArchive(store, wv.source_digest) : null;
        if (!archive)
          throw new ServiceError('gone', `the source archive of world version ${wv._id} is not stored any more`);
        const bytes = await tarGz(await bundleFiles(source, wv, scenarios, archive));
        await storeArtifact(ctx, bytes, {
          scenarios: scenarios.length,
          holdout_scenarios: scenarios.filter((s) => s.split === 'holdout').length,
          images: source.include_images,
        });
      },
    },
  ],
  onStatus: mirrorJobStatus,
};
