import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { create as createTar } from 'tar';
import { Collections, type Config } from '../../core/index.js';
import { engineOf, saveImage, type SavedImage } from '../../world-worker/index.js';
import { ServiceError } from '../../core/index.js';
import { getArchive } from '../applications/index.js';
import type { JobKind } from '../jobs/index.js';
import {
  holdoutFamilies,
  holdoutFamiliesOf,
  type HoldoutFamilies,
  type ScenarioDoc,
  type WorldVersionDoc,
} from '../worlds/index.js';
import { mirrorJobStatus, storeArtifact } from './finish.js';
import { redactNamed, redactSource } from './holdout-redaction.js';
import { BUNDLE_JOB, type BundleSource, type ExportInput } from './types.js';

/** What a bundle says about images: in manifest.json (`images`) and images.json. */
export interface BundleImages {
  /** True when the image archives are in the bundle (`images/<image id hex>.tar`). */
  included: boolean;
  /** Why no image is in the bundle; null when they are. */
  reason: string | null;
  /** By image key of the world version's pins. */
  images: Record<string, { ref: string; image_id?: string; archive?: string; sha256?: string; size_bytes?: number }>;
}

const README = (
  wv: WorldVersionDoc,
  images: BundleImages | null,
): string => `# World bundle: ${String((wv.manifest as { name?: unknown } | null)?.name ?? wv.world_id)} v${wv.version}

- manifest.json: the world version's manifest, tools, validation report, provenance and world_content_hash.
- scenarios/<scenario_id>.json: every approved train and dev scenario with its split and specification.
  Nothing of a holdout family (a template with a held-out scenario, and all its variants) is in the
  bundle: no scenario, plan, check or text; manifest.json (\`holdout_withheld\`) only counts them.
- source.tar.gz: the application source the version was built from (digest ${wv.source_digest ?? 'unknown'}),
  without the scenario templates of holdout families (manifest.json, \`source_redacted\`, counts
  them); then its own digest differs from the version's.
${
  !images
    ? ''
    : images.included
      ? `- images.json: the container images the version pins, by image key, each with its image id (the digest
  of its config) and the sha256 of its archive.
- images/<image id>.tar: each image as the container engine saved it (docker-archive; load it with
  \`docker load\` or \`podman load\`, or upload this whole bundle as an application's source, which loads and
  verifies them).
`
      : `- images.json: the container image references the version pins. The images themselves are not in
  the bundle: ${images.reason ?? ''}
`
}`;

/** The files of a bundle, by path inside the archive. */
export async function bundleFiles(
  source: BundleSource,
  wv: WorldVersionDoc,
  scenarios: ScenarioDoc[],
  original: Buffer,
  images: BundleImages | null,
  family: HoldoutFamilies = holdoutFamiliesOf(scenarios),
): Promise<Map<string, Buffer>> {
  // a family with one held-out scenario is held out whole (docs/worlds.md, Expansion and splits)
  const heldOut = scenarios.filter((s) => family.covers(s.scenario_id));
  const shown = scenarios.filter((s) => !family.covers(s.scenario_id));
  const names = new Set([...family.templates, ...heldOut.map((s) => s.scenario_id)]);
  const { bytes: archive, removed } = await redactSource(original, family.templates);
  const json = (v: unknown): Buffer => Buffer.from(`${JSON.stringify(v, null, 2)}\n`, 'utf8');
  const files = new Map<string, Buffer>();
  files.set('README.md', Buffer.from(README(wv, images), 'utf8'));
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
      validation_report: redactNamed(wv.validation_report, names),
      provenance: wv.provenance,
      source_redacted: removed.length,
      holdout_withheld: { families: family.templates.size, scenarios: heldOut.length },
      images: images
        ? { included: images.included, reason: images.reason, file: 'images.json' }
        : { included: false, reason: 'not asked for (include_images=false)', file: null },
      scenarios: shown.map((s) => ({
        scenario_id: s.scenario_id,
        split: s.split,
        file: `scenarios/${s.scenario_id}.json`,
      })),
    }),
  );
  for (const s of shown) {
    files.set(
      `scenarios/${s.scenario_id}.json`,
      json({
        id: s._id,
        scenario_id: s.scenario_id,
        template: s.template,
        split: s.split,
        origin: s.origin,
        specification: s.specification,
        validation_report: s.validation_report,
      }),
    );
  }
  files.set('source.tar.gz', archive);
  if (images) files.set('images.json', json({ format: 'docker-archive', ...images }));
  return files;
}

/** Why a bundle asked with images carries none, or null when the installation can include them. */
export function noImagesReason(config: Pick<Config, 'sandbox'>, pins: Record<string, string>): string | null {
  if (config.sandbox !== 'container')
    return (
      'this installation runs application services in child processes (SANDBOX=process), from the source with ' +
      "the host's own programs: no container image is used, so there is none to include"
    );
  if (Object.keys(pins).length === 0) return 'the world version pins no container images';
  return null;
}

/**
 * Saves each distinct pinned image of the version from the container engine into
 * `<root>/images/<image id hex>.tar` (streamed to disk), or says why none is included.
 */
export async function saveBundleImages(
  config: Pick<Config, 'sandbox' | 'dockerHost'>,
  wv: WorldVersionDoc,
  root: string,
): Promise<{ images: BundleImages; files: string[] }> {
  const pins = wv.compiled?.images ?? {};
  const reason = noImagesReason(config, pins);
  if (reason)
    return {
      images: {
        included: false,
        reason,
        images: Object.fromEntries(Object.entries(pins).map(([k, ref]) => [k, { ref }])),
      },
      files: [],
    };
  await mkdir(path.join(root, 'images'), { recursive: true });
  const docker = engineOf(config);
  const byRef = new Map<string, SavedImage & { archive: string }>();
  const images: BundleImages['images'] = {};
  for (const [key, ref] of Object.entries(pins).sort(([a], [b]) => a.localeCompare(b))) {
    let saved = byRef.get(ref);
    if (!saved) {
      const tmp = path.join(root, 'images', `.saving-${byRef.size}.tar`);
      const got = await saveImage(docker, ref, tmp);
      // two pins of one image (other names, same id) share the archive saved first
      saved = [...byRef.values()].find((v) => v.image_id === got.image_id);
      if (saved) await rm(tmp, { force: true });
      else {
        const archive = `images/${got.image_id.replace(/^sha256:/, '')}.tar`;
        await rename(tmp, path.join(root, archive));
        saved = { ...got, archive };
      }
      byRef.set(ref, saved);
    }
    images[key] = {
      ref,
      image_id: saved.image_id,
      archive: saved.archive,
      sha256: saved.sha256,
      size_bytes: saved.size_bytes,
    };
  }
  return {
    images: { included: true, reason: null, images },
    files: [...new Set([...byRef.values()].map((v) => v.archive))],
  };
}

/**
 * Writes `files` under `root` and packs them and `onDisk` (paths already under `root`) as a
 * gzipped tar at `out` (portable: no owner or mtime of this machine), streamed file to file.
 */
export async function tarGzTo(root: string, files: Map<string, Buffer>, onDisk: string[], out: string): Promise<void> {
  for (const [name, bytes] of files) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), bytes);
  }
  await createTar({ gzip: true, portable: true, cwd: root, file: out }, [...files.keys(), ...onDisk].sort());
}

/**
 * The `bundle` job: a published world version as a .tar.gz of manifest.json, its approved
 * scenarios (holdout included and marked, without reference plans and checks), the application
 * source archive and, when asked, the pinned images (archives from the container engine, or
 * the references and the reason none is included).
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
        const dir = await mkdtemp(path.join(tmpdir(), 'crucible-bundle-'));
        try {
          const root = path.join(dir, 'bundle');
          await mkdir(root);
          const saved = source.include_images ? await saveBundleImages(ctx.deps.config, wv, root) : null;
          // the families of every scenario the version had, withdrawn ones included: their templates are in the source
          const family = await holdoutFamilies(store, wv._id);
          const files = await bundleFiles(source, wv, scenarios, archive, saved?.images ?? null, family);
          const out = path.join(dir, 'bundle.tar.gz');
          await tarGzTo(root, files, saved?.files ?? [], out);
          await storeArtifact(
            ctx,
            { file: out },
            {
              scenarios: scenarios.filter((s) => !family.covers(s.scenario_id)).length,
              holdout_scenarios: scenarios.filter((s) => family.covers(s.scenario_id)).length,
              images: saved?.files.length ?? 0,
              images_reason: saved ? saved.images.reason : null,
            },
          );
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
    },
  ],
  onStatus: mirrorJobStatus,
};
