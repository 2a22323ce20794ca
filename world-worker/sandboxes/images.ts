import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Docker from 'dockerode';
import { create as createTar, extract as extractTar, list as listTar, type ReadEntry } from 'tar';
import type { Config } from '../../core/index.js';
import { ServiceError, invalid } from '../../core/index.js';
import { parseDockerHost } from './docker.js';

/**
 * Every image a bundle import loads is named under this prefix, then the importing project
 * and application: `localhost/crucible-tenant/<project id>/<application id>:<key>-<id>`.
 * Nothing in a bundle chooses a name, so no import can move the operator's tags or another
 * project's (docs/security.md, "Bundles with images").
 */
export const TENANT_IMAGE_PREFIX = 'localhost/crucible-tenant/';

/** The repository imported images of one application are tagged in. */
export function tenantImageRepo(projectId: string, applicationId: string): string {
  const part = (s: string) => s.toLowerCase().replace(/[^a-z0-9_]/g, '');
  return `${TENANT_IMAGE_PREFIX}${part(projectId)}/${part(applicationId)}`;
}

/**
 * True when `pin` names an imported image of a project other than `projectId`, written with
 * or without a registry in front (engines resolve a short `crucible-tenant/...` to `localhost/`).
 */
export function isOtherTenantsImage(pin: string, projectId: string): boolean {
  const m = /(?:^|\/)crucible-tenant\/([^/@:]+)\//.exec(pin.toLowerCase());
  return m !== null && m[1] !== projectId.toLowerCase().replace(/[^a-z0-9_]/g, '');
}

/** The engine client of the container driver (DOCKER_HOST). */
export function engineOf(config: Pick<Config, 'dockerHost'>): Docker {
  return new Docker(parseDockerHost(config.dockerHost ?? undefined).options);
}

const HEX64 = /^[0-9a-f]{64}$/;

/** A stream that hashes and counts what passes through it. */
function tap(hash: Hash, count: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      count(chunk.length);
      done(null, chunk);
    },
  });
}

/** SHA-256 (hex) of a file, read as a stream. */
export async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The image id (`<64 hex>`, the digest of its config) of a present image, pulling it first when absent. */
async function presentImageId(docker: Docker, ref: string): Promise<string> {
  const inspect = () => docker.getImage(ref).inspect();
  let info = await inspect().catch(() => null);
  if (!info) {
    try {
      const stream = await docker.pull(ref);
      await new Promise<void>((resolve, reject) =>
        docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
      );
      info = await inspect();
    } catch (err) {
      throw new ServiceError(
        'unavailable',
        `image ${ref} is not in the container engine and could not be pulled: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
  }
  const id = info.Id.replace(/^sha256:/, '');
  if (!HEX64.test(id))
    throw new ServiceError('internal', `the engine gave image ${ref} an id that is not a sha256 digest: ${info.Id}`);
  return id;
}

/** The one image entry of a docker-archive's manifest.json. */
interface ArchiveManifest {
  Config: string;
  RepoTags?: string[] | null;
  Layers: string[];
}

/** Reads manifest.json of an archive the engine saved (docker-archive, as `docker save` / `podman save` write it). */
async function archiveManifest(file: string): Promise<ArchiveManifest[]> {
  let text: string | null = null;
  await listTar({
    file,
    onReadEntry: (entry: ReadEntry) => {
      if (entry.path.replace(/^\.\//, '') !== 'manifest.json' || entry.size > 1024 * 1024) return entry.resume();
      const parts: Buffer[] = [];
      entry.on('data', (c: Buffer) => parts.push(c));
      entry.on('end', () => (text = Buffer.concat(parts).toString('utf8')));
    },
  });
  // only archives the engine itself saved are read here: a fault in one is the engine's
  if (text === null) throw new ServiceError('internal', `the engine saved ${file} with no manifest.json`);
  try {
    return JSON.parse(text) as ArchiveManifest[];
  } catch {
    throw new ServiceError('internal', `the engine saved ${file} with a manifest.json that is not JSON`);
  }
}

/** What {@link saveImage} wrote. */
export interface SavedImage {
  /** `sha256:<hex>`: the digest of the image's config, the engine's image id. */
  image_id: string;
  /** SHA-256 (hex) of the archive file. */
  sha256: string;
  size_bytes: number;
}

/**
 * Writes the image `ref` (pinned `name[:tag]@sha256:<digest>`) as a docker-archive to `file`
 * through the engine's `GET /images/{name}/get` (`docker save` / `podman save`), streamed to
 * disk and hashed on the way, never held in memory. Pulls it first when the engine lacks it;
 * checks that the archive's config is the image the engine resolved the pin to.
 */
export async function saveImage(docker: Docker, ref: string, file: string): Promise<SavedImage> {
  const id = await presentImageId(docker, ref);
  const hash = createHash('sha256');
  let size = 0;
  await pipeline(
    await docker.getImage(ref).get(),
    tap(hash, (n) => (size += n)),
    createWriteStream(file, { mode: 0o600 }),
  );
  const manifest = await archiveManifest(file);
  const config = manifest[0]?.Config ?? '';
  if (
    manifest.length !== 1 ||
    path.posix
      .basename(config)
      .replace(/\.json$/, '')
      .replace(/^sha256:/, '') !== id
  )
    throw new ServiceError('internal', `the engine saved ${ref} as an archive that does not hold image ${id}`);
  return { image_id: `sha256:${id}`, sha256: hash.digest('hex'), size_bytes: size };
}

/** What a bundle says about one image archive (images.json), checked by {@link loadImage}. */
export interface ExpectedImage {
  /** `sha256:<hex>` */
  image_id: string;
  /** SHA-256 (hex) of the archive file. */
  sha256: string;
}

/**
 * Loads a docker-archive from a bundle into the engine under `repo:tag`, and nothing else:
 *
 * 1. the archive file must hash to `expected.sha256`;
 * 2. only its regular files are unpacked (in `workDir`, at most `maxBytes`), and its
 *    manifest.json must name one image whose config hashes to `expected.image_id` and whose
 *    layers each hash to the config's `rootfs.diff_ids`;
 * 3. the engine is handed a new archive of just that config and those layers, with no
 *    `RepoTags` and no `repositories` or OCI index, so the load names nothing (a bundle's own
 *    names, e.g. the operator's runtime image, are never applied);
 * 4. the loaded image must have the expected id; it is tagged `repo:tag`, and the pin
 *    returned (`repo:tag@sha256:<digest>`) must resolve to that same id.
 *
 * @throws ServiceError('validation_failed') naming `file` when the archive is not what the bundle says.
 */
export async function loadImage(
  docker: Docker,
  file: string,
  expected: ExpectedImage,
  target: { repo: string; tag: string },
  workDir: string,
  maxBytes: number,
): Promise<{ pin: string; image_id: string }> {
  const wantId = expected.image_id.replace(/^sha256:/, '');
  const label = `image archive ${path.basename(file)}`;
  const whole = await sha256OfFile(file).catch(() => {
    throw invalid('file', `the bundle lacks the ${label}, which images.json names`);
  });
  if (whole !== expected.sha256) throw invalid('file', `the ${label} does not hash to the sha256 images.json gives it`);
  const dir = path.join(workDir, 'image');
  await mkdir(dir, { recursive: true });
  await unpackFiles(createReadStream(file), dir, maxBytes, () => true);
  let manifest: ArchiveManifest[];
  try {
    manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as ArchiveManifest[];
  } catch {
    throw invalid('file', `the ${label} has no readable manifest.json (not a docker-archive)`);
  }
  const one = Array.isArray(manifest) && manifest.length === 1 ? manifest[0] : null;
  if (!one || typeof one.Config !== 'string' || !Array.isArray(one.Layers))
    throw invalid('file', `the ${label} must hold exactly one image`);
  const inside = (p: unknown): string => {
    const rel = typeof p === 'string' ? path.posix.normalize(p) : '';
    if (rel === '' || rel.startsWith('..') || path.posix.isAbsolute(rel))
      throw invalid('file', `the ${label} names a file outside itself (${String(p)})`);
    return rel;
  };
  const config = inside(one.Config);
  const layers = one.Layers.map(inside);
  const read = (rel: string) =>
    sha256OfFile(path.join(dir, rel)).catch(() => {
      throw invalid('file', `the ${label} lacks ${rel}, which its manifest.json names`);
    });
  if ((await read(config)) !== wantId)
    throw invalid('file', `the ${label} holds an image whose config is not ${expected.image_id}`);
  let diffIds: unknown;
  try {
    diffIds = (JSON.parse(await readFile(path.join(dir, config), 'utf8')) as { rootfs?: { diff_ids?: unknown } }).rootfs
      ?.diff_ids;
  } catch {
    throw invalid('file', `the config of the ${label} is not JSON`);
  }
  if (!Array.isArray(diffIds) || diffIds.length !== layers.length)
    throw invalid(
      'file',
      `the ${label} has ${layers.length} layers where its config lists ${String((diffIds as unknown[] | undefined)?.length ?? 0)}`,
    );
  for (let i = 0; i < layers.length; i++)
    if (`sha256:${await read(layers[i]!)}` !== diffIds[i])
      throw invalid('file', `layer ${i + 1} of the ${label} does not match its config (${String(diffIds[i])})`);

  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify([{ Config: config, RepoTags: [], Layers: layers }]));
  const clean = createTar({ cwd: dir, portable: true, noDirRecurse: true, follow: false }, [
    'manifest.json',
    config,
    ...new Set(layers),
  ]);
  let said = '';
  try {
    const answer = await docker.loadImage(clean as unknown as NodeJS.ReadableStream, { quiet: true });
    for await (const chunk of answer as AsyncIterable<Buffer>) said += chunk.toString();
  } catch (err) {
    throw new ServiceError('unavailable', `the container engine did not load the ${label}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (/"error"/.test(said)) throw invalid('file', `the container engine refused the ${label}: ${said.slice(0, 400)}`);
  const loaded = await docker
    .getImage(`sha256:${wantId}`)
    .inspect()
    .catch(() => null);
  if (!loaded || loaded.Id.replace(/^sha256:/, '') !== wantId)
    throw new ServiceError(
      'unavailable',
      `the container engine does not show image ${expected.image_id} after loading the ${label}`,
    );
  await docker.getImage(`sha256:${wantId}`).tag({ repo: target.repo, tag: target.tag });
  const tagged = await docker.getImage(`${target.repo}:${target.tag}`).inspect();
  const digest = (tagged.RepoDigests ?? [])
    .find((d) => d.startsWith(`${target.repo}@sha256:`))
    ?.slice(target.repo.length + 1);
  if (!digest)
    throw new ServiceError(
      'unavailable',
      `the container engine gave the loaded image no digest to pin it by (${target.repo}:${target.tag}); ` +
        'loading bundles with images needs an engine that gives loaded images a digest, such as podman',
    );
  const pin = `${target.repo}:${target.tag}@${digest}`;
  const check = await docker
    .getImage(pin)
    .inspect()
    .catch(() => null);
  if (check?.Id.replace(/^sha256:/, '') !== wantId)
    throw new ServiceError('internal', `the pin ${pin} does not resolve to the loaded image ${expected.image_id}`);
  return { pin, image_id: expected.image_id };
}

const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);

/**
 * Unpacks the regular files of a tar (gzipped or not) that `accept` keeps (true, or the most
 * bytes that entry may have) into `dest`: no
 * links, devices or folders of the archive's own, node-tar's path protections on (no
 * absolute paths, no `..`), and at most `maxBytes` in all: past that the read stops at once
 * and the archive is refused (an archive bomb never reaches the disk).
 */
export async function unpackFiles(
  source: Buffer | NodeJS.ReadableStream,
  dest: string,
  maxBytes: number,
  accept: (entryPath: string) => boolean | number,
): Promise<void> {
  let total = 0;
  let problem: ServiceError | null = null;
  await new Promise<void>((resolve, reject) => {
    const unpack = extractTar({
      cwd: dest,
      strict: true,
      preservePaths: false,
      preserveOwner: false,
      noMtime: true,
      filter: (p, entry) => {
        const e = entry as ReadEntry;
        if (problem || !FILE_TYPES.has(e.type)) return false;
        const name = p.replace(/^\.\//, '');
        const wanted = accept(name);
        if (wanted === false) return false;
        if (typeof wanted === 'number' && e.size > wanted) {
          problem = invalid('file', `"${name}" in the archive is over its limit of ${wanted} bytes`);
          unpack.abort(problem);
          return false;
        }
        total += e.size;
        if (total > maxBytes) {
          problem = invalid('file', `the archive unpacks to more than ${maxBytes} bytes`);
          unpack.abort(problem);
          return false;
        }
        return true;
      },
    });
    const fail = (err: Error) =>
      reject(
        problem ?? new ServiceError('bad_request', `the archive could not be unpacked: ${err.message}`, { cause: err }),
      );
    unpack.on('error', fail);
    unpack.on('abort', fail);
    unpack.on('close', () => (problem ? reject(problem) : resolve()));
    if (Buffer.isBuffer(source)) unpack.end(source);
    else {
      source.on('error', fail);
      source.pipe(unpack);
    }
  });
}
