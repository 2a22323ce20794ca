import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Header, create as createTar, type types as tarTypes } from 'tar';
import { CATALOG_DIR } from '../../catalog/index.js';

/** One raw entry of a hand-made tar archive (hostile ones included). */
export interface RawEntry {
  path: string;
  type?: tarTypes.EntryTypeName;
  body?: string;
  linkpath?: string;
}

/**
 * A .tar.gz written header by header, so tests can make what no well-behaved packer
 * would: `../` paths, absolute paths, links out, devices.
 */
export function rawTarGz(entries: RawEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    const body = Buffer.from(e.body ?? '');
    const type = e.type ?? 'File';
    const isFile = type === 'File';
    const header = new Header({
      path: e.path,
      type,
      mode: type === 'Directory' ? 0o755 : 0o644,
      size: isFile ? body.length : 0,
      linkpath: e.linkpath,
      mtime: new Date(0),
      uid: 0,
      gid: 0,
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block);
    if (isFile && body.length > 0) {
      blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/**
 * A valid .tar.gz (world.yaml and one file of zeros, gzip without compression) whose size is
 * `bytes` or at most 2 KiB less (a tar entry grows in 512-byte blocks): an upload at the limit.
 */
export function tarGzOfSize(bytes: number): Buffer {
  const entry = (name: string, body: Buffer): Buffer[] => {
    const header = Buffer.alloc(512);
    new Header({ path: name, type: 'File', mode: 0o644, size: body.length, mtime: new Date(0), uid: 0, gid: 0 }).encode(
      header,
      0,
    );
    return [header, body, Buffer.alloc((512 - (body.length % 512)) % 512)];
  };
  const pack = (size: number): Buffer =>
    gzipSync(
      Buffer.concat([
        ...entry('world.yaml', Buffer.from('name: at-the-limit\n')),
        ...entry('padding.bin', Buffer.alloc(size)),
        Buffer.alloc(1024),
      ]),
      { level: 0 },
    );
  let size = bytes - 8192;
  let archive = pack(size);
  // stored deflate grows with its input; step to the largest size that still fits
  for (let i = 0; i < 8 && (archive.length > bytes || bytes - archive.length >= 2048); i++) {
    size += bytes - archive.length - (archive.length > bytes ? 512 : 0);
    archive = pack(size);
  }
  if (archive.length > bytes || bytes - archive.length >= 2048)
    throw new Error(`no archive of ${bytes} bytes (got ${archive.length})`);
  return archive;
}

/** A well-formed .tar.gz of a folder, as a user would make it (`tar czf`), optionally under a top folder. */
export async function packDir(dir: string, files: string[] = ['.']): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of createTar({ cwd: dir, gzip: true, portable: true }, files))
    chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

/** The folder of a packaged catalog application. */
export const catalogApp = (name: string): string => path.join(CATALOG_DIR, 'apps', name);

/** Copies a folder (e.g. a catalog application) to `dest`. */
export function copyDir(src: string, dest: string): void {
  cpSync(src, dest, { recursive: true });
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** Runs git in `dir` and returns its trimmed output. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { env: GIT_ENV, encoding: 'utf8' }).trim();
}

/**
 * A real git repository on disk holding a copy of `from` (or the given files), committed
 * on branch `main`; returns its file:// URL and the commit id.
 */
export function makeGitRepo(dir: string, from: string | Record<string, string>): { url: string; commit: string } {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  if (typeof from === 'string') copyDir(from, dir);
  else {
    for (const [rel, text] of Object.entries(from)) {
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), text);
    }
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  return { url: `file://${dir}`, commit: git(dir, 'rev-parse', 'HEAD') };
}

/** Posts a multipart form with one part `file` (the upload operation). */
export async function uploadSource(
  base: string,
  key: string,
  appId: string,
  bytes: Buffer,
  fileName = 'source.tar.gz',
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/gzip' }), fileName);
  const res = await fetch(`${base}/v1/applications/${appId}/source`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body };
}
