/**
 * Helpers of the bundle tests: tiny but real image archives (docker-archive, as `docker save`
 * writes them) made byte by byte, so a test can load a fresh image into the engine in a
 * moment, or make one that lies about itself; and world bundles around them.
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** A plain (not gzipped) tar of regular files, in the given order. */
export function plainTar(files: Array<[string, Buffer]>): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, body] of files) {
    const header = Buffer.alloc(512);
    new Header({ path: name, type: 'File', mode: 0o644, size: body.length, mtime: new Date(0), uid: 0, gid: 0 }).encode(
      header,
      0,
    );
    blocks.push(header, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export interface TinyImage {
  /** The docker-archive's bytes. */
  archive: Buffer;
  /** `sha256:<hex>`: the digest of its config, the engine's image id. */
  imageId: string;
  /** SHA-256 (hex) of `archive`. */
  sha256: string;
}

/**
 * A one-layer image holding `/marker.txt` with `marker` (so each marker gives a new image id),
 * as a docker-archive. `repoTags`, `extra` files and a `lie` let hostile tests make archives
 * that name other images, or whose parts do not match.
 */
export function tinyImage(
  marker: string,
  opts: {
    repoTags?: string[];
    extra?: Array<[string, Buffer]>;
    /** `config`: the config is changed after the id was taken; `layer`: the layer differs from its diff_id. */
    lie?: 'config' | 'layer';
  } = {},
): TinyImage {
  const layer = plainTar([['marker.txt', Buffer.from(`${marker}\n`)]]);
  const config = (label: string) =>
    Buffer.from(
      JSON.stringify({
        architecture: process.arch === 'arm64' ? 'arm64' : 'amd64',
        os: 'linux',
        config: { Labels: { 'crucible.test': label }, Cmd: ['/marker.txt'] },
        rootfs: { type: 'layers', diff_ids: [`sha256:${sha(layer)}`] },
        history: [{ created_by: 'crucible test' }],
      }),
    );
  const honest = config(marker);
  const imageId = sha(honest);
  const shipped = opts.lie === 'config' ? config(`${marker}-changed`) : honest;
  const shippedLayer = opts.lie === 'layer' ? plainTar([['marker.txt', Buffer.from(`${marker} changed\n`)]]) : layer;
  const manifest = [{ Config: `${imageId}.json`, RepoTags: opts.repoTags ?? [], Layers: [`${sha(layer)}.tar`] }];
  const archive = plainTar([
    ['manifest.json', Buffer.from(JSON.stringify(manifest))],
    [`${imageId}.json`, shipped],
    [`${sha(layer)}.tar`, shippedLayer],
    ...(opts.extra ?? []),
  ]);
  return { archive, imageId: `sha256:${imageId}`, sha256: sha(archive) };
}

/**
 * A world bundle as `GET .../bundle?include_images=true` writes one: manifest.json,
 * source.tar.gz, images.json and `images/<id>.tar`, with `images` by image key. `imagesJson`
 * replaces images.json when a test wants it to lie.
 */
export function bundleWith(
  source: Buffer,
  images: Record<string, TinyImage>,
  opts: { manifest?: Record<string, unknown>; imagesJson?: unknown; files?: Array<[string, Buffer]> } = {},
): Buffer {
  const byId = new Map(Object.values(images).map((i) => [i.imageId, i]));
  const imagesJson = opts.imagesJson ?? {
    format: 'docker-archive',
    included: true,
    reason: null,
    images: Object.fromEntries(
      Object.entries(images).map(([key, i]) => [
        key,
        {
          ref: `example.test/${key}:v1@sha256:${'0'.repeat(64)}`,
          image_id: i.imageId,
          archive: `images/${i.imageId.slice(7)}.tar`,
          sha256: i.sha256,
          size_bytes: i.archive.length,
        },
      ]),
    ),
  };
  return gzipSync(
    plainTar([
      ['README.md', Buffer.from('# World bundle\n')],
      [
        'manifest.json',
        Buffer.from(
          JSON.stringify({
            world_version_id: 'wv_from_elsewhere',
            world_content_hash: '0'.repeat(64),
            ...opts.manifest,
            images: { included: true, reason: null, file: 'images.json' },
          }),
        ),
      ],
      ['source.tar.gz', source],
      ['images.json', Buffer.from(JSON.stringify(imagesJson))],
      ...[...byId.values()].map((i): [string, Buffer] => [`images/${i.imageId.slice(7)}.tar`, i.archive]),
      ...(opts.files ?? []),
    ]),
  );
}
