import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Parser, type ReadEntry } from 'tar';
import { ServiceError, invalid } from '../../core/index.js';
import { engineOf, loadImage, tenantImageRepo, unpackFiles } from '../../world-worker/index.js';
import type { SchedulerDeps } from '../context.js';
import type { ApplicationDoc } from './types.js';

/** Largest a bundle may unpack to (its image archives are plain tar inside the gzip). */
export const MAX_BUNDLE_UNPACKED_BYTES = 1024 ** 3;

const KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
const IMAGE_ID = /^sha256:[0-9a-f]{64}$/;
const HEX64 = /^[0-9a-f]{64}$/;

/** Largest manifest.json or images.json read. */
const MAX_JSON_BYTES = 16 * 1024 * 1024;

/**
 * The files of a bundle an import reads, each with the most bytes it may have (the source: an
 * upload's limit); everything else in it (README, scenarios) is skipped.
 */
const wanted =
  (maxSourceBytes: number) =>
  (name: string): false | number => {
    if (name === 'manifest.json' || name === 'images.json') return MAX_JSON_BYTES;
    if (name === 'source.tar.gz') return maxSourceBytes;
    if (/^images\/[0-9a-f]{64}\.tar$/.test(name)) return MAX_BUNDLE_UNPACKED_BYTES;
    return false;
  };

/** One image of images.json, as an import checks it. */
interface BundleImage {
  ref: string;
  image_id: string;
  archive: string;
  sha256: string;
}

/** What importing a bundle's images did: the new pins by image key, or why none was loaded. */
export interface ImportedImages {
  loaded: Record<string, string>;
  reason: string | null;
}

/** What a bundle upload gives the upload path: the source archive inside, and the images. */
export interface ImportedBundle {
  source: Buffer;
  world_version_id: string | null;
  world_content_hash: string | null;
  images: ImportedImages;
}

/**
 * True when a .tar.gz is a world bundle (GET .../bundle): `manifest.json` and `source.tar.gz`
 * at its root and no `world.yaml` there. Reads entry headers only, and stops at the first
 * 100 000 entries; anything unreadable is left to the source checks to refuse.
 */
export async function isBundle(bytes: Buffer): Promise<boolean> {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return false;
  const names = new Set<string>();
  let entries = 0;
  await new Promise<void>((resolve) => {
    const parser: Parser = new Parser({
      onReadEntry: (entry: ReadEntry) => {
        if (++entries > 100_000) parser.abort(new Error('too many entries'));
        names.add(entry.path.replace(/^\.\//, ''));
        entry.resume();
      },
    });
    parser.on('error', () => resolve());
    parser.on('abort', () => resolve());
    parser.on('end', () => resolve());
    parser.end(bytes);
  });
  return names.has('manifest.json') && names.has('source.tar.gz') && !names.has('world.yaml');
}

/** images.json, held to its shape: every field is the bundle's word until the archive is hashed. */
function readImagesJson(text: string | null): { included: boolean; images: Record<string, BundleImage> } {
  if (text === null) return { included: false, images: {} };
  let doc: { included?: unknown; images?: unknown };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch {
    throw invalid('file', "the bundle's images.json is not JSON");
  }
  if (doc.included !== true) return { included: false, images: {} };
  if (!doc.images || typeof doc.images !== 'object' || Array.isArray(doc.images))
    throw invalid('file', "the bundle's images.json has no images object");
  const images: Record<string, BundleImage> = {};
  for (const [key, v] of Object.entries(doc.images as Record<string, unknown>)) {
    const where = `images.json images.${key}`;
    if (!KEY.test(key)) throw invalid('file', `${where}: an image key is 1 to 63 letters, digits, "_", "." or "-"`);
    const i = (v ?? {}) as Partial<BundleImage>;
    if (typeof i.image_id !== 'string' || !IMAGE_ID.test(i.image_id))
      throw invalid('file', `${where}.image_id must be sha256:<64 hex>`);
    if (i.archive !== `images/${i.image_id.slice('sha256:'.length)}.tar`)
      throw invalid('file', `${where}.archive must be images/<the image id's hex>.tar`);
    if (typeof i.sha256 !== 'string' || !HEX64.test(i.sha256)) throw invalid('file', `${where}.sha256 must be 64 hex`);
    images[key] = {
      ref: typeof i.ref === 'string' ? i.ref : '',
      image_id: i.image_id,
      archive: i.archive,
      sha256: i.sha256,
    };
  }
  return { included: true, images };
}

/**
 * Opens an uploaded world bundle for application `app`: unpacks what an import reads
 * (bounded, files only), and, when it carries image archives and this installation runs
 * container sandboxes, loads each into the engine, verified against its image id and
 * archive sha256, under the project's and application's own name ({@link tenantImageRepo}).
 * The images are the tenant's code: the application stays an upload, whatever the bundle's
 * manifest says of where it came from.
 */
export async function openBundle(deps: SchedulerDeps, app: ApplicationDoc, bytes: Buffer): Promise<ImportedBundle> {
  const dir = await mkdtemp(path.join(tmpdir(), 'crucible-import-'));
  try {
    const root = path.join(dir, 'bundle');
    await mkdir(root);
    await unpackFiles(bytes, root, MAX_BUNDLE_UNPACKED_BYTES, wanted(deps.config.maxUploadBytes));
    const text = (name: string) => readFile(path.join(root, name), 'utf8').catch(() => null);
    let manifest: { world_version_id?: unknown; world_content_hash?: unknown } = {};
    try {
      manifest = JSON.parse((await text('manifest.json')) ?? '{}') as typeof manifest;
    } catch {
      throw invalid('file', "the bundle's manifest.json is not JSON");
    }
    const source = await readFile(path.join(root, 'source.tar.gz')).catch(() => null);
    if (!source) throw invalid('file', 'the bundle has no source.tar.gz');
    const { included, images } = readImagesJson(await text('images.json'));
    const loaded: Record<string, string> = {};
    let reason: string | null = null;
    if (!included || Object.keys(images).length === 0) reason = 'the bundle carries no image archives';
    else if (deps.config.sandbox !== 'container')
      reason =
        'this installation runs application services in child processes (SANDBOX=process), which use no container ' +
        "images: the bundle's images were not loaded";
    else {
      const docker = engineOf(deps.config);
      const repo = tenantImageRepo(app.project_id, app._id);
      const byId = new Map<string, string>();
      for (const [key, image] of Object.entries(images).sort(([a], [b]) => a.localeCompare(b))) {
        let pin = byId.get(image.image_id);
        if (!pin) {
          const work = await mkdtemp(path.join(dir, 'load-'));
          const tag = `${key.toLowerCase().replace(/[^a-z0-9_.-]/g, '-')}-${image.image_id.slice(7, 19)}`;
          ({ pin } = await loadImage(
            docker,
            path.join(root, image.archive),
            image,
            { repo, tag },
            work,
            MAX_BUNDLE_UNPACKED_BYTES,
          ));
          await rm(work, { recursive: true, force: true });
          byId.set(image.image_id, pin);
        }
        loaded[key] = pin;
      }
    }
    return {
      source,
      world_version_id: typeof manifest.world_version_id === 'string' ? manifest.world_version_id : null,
      world_content_hash: typeof manifest.world_content_hash === 'string' ? manifest.world_content_hash : null,
      images: { loaded, reason },
    };
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    throw new ServiceError('bad_request', `the bundle could not be read: ${(err as Error).message}`, { cause: err });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
