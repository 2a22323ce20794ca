import { expect } from 'chai';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { readCatalogIndex } from '../../catalog/index.js';
import { Collections } from '../../core/collections.js';
import { client, startTestService, type TestService } from '../support/service.js';
import {
  catalogApp,
  copyDir,
  packDir,
  rawTarGz,
  tarGzOfSize,
  uploadSource,
  type RawEntry,
} from '../support/sources.js';

const WORLD = { path: 'world.yaml', body: 'name: x\n' };

describe('applications: source archive upload (multipart part "file", .tar.gz)', function () {
  this.timeout(60_000);
  let t: TestService;
  let key: string;
  let admin: ReturnType<typeof client>;
  let appId: string;
  let shopDigest: string;
  let scratch: string;

  before(async () => {
    t = await startTestService();
    const ws = await t.workspace('Uploads');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    key = ws.key;
    admin = client(t.url, key);
    appId = (await admin.post('/v1/applications', { name: 'uploaded', source: { kind: 'upload' } })).body.id;
    shopDigest = (await readCatalogIndex()).find((e) => e.name === 'shop-support')!.digest;
    scratch = mkdtempSync(path.join(tmpdir(), 'crucible-upload-'));
  });
  after(async () => {
    await t?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('stores a real archive and answers 201 with the source digest and file count', async () => {
    const r = await uploadSource(t.url, key, appId, await packDir(catalogApp('shop-support')));
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.source_digest).to.equal(shopDigest);
    expect(r.body.file_count).to.be.greaterThan(5);
    const app = await admin.get(`/v1/applications/${appId}`);
    expect(app.body).to.include({ source_uploaded: true, source_digest: shopDigest });
  });

  it('an archive holding one top folder gives the same source', async () => {
    copyDir(catalogApp('shop-support'), path.join(scratch, 'shop-support'));
    const r = await uploadSource(t.url, key, appId, await packDir(scratch, ['shop-support']));
    expect(r.status).to.equal(201);
    expect(r.body.source_digest).to.equal(shopDigest);
  });

  it('415 for a file that is not gzip; 400 for gzip that is not tar', async () => {
    const plain = await uploadSource(t.url, key, appId, Buffer.from('world.yaml: not an archive'));
    expect(plain.status).to.equal(415);
    expect(plain.body.detail).to.match(/not a gzip-compressed tar archive/);
    const notTar = await uploadSource(
      t.url,
      key,
      appId,
      gzipSync(Buffer.from('just some text, long enough to not be a tar header '.repeat(30))),
    );
    expect(notTar.status).to.equal(400);
    expect(notTar.body.detail).to.match(/not a readable tar archive/);
  });

  const hostile: Array<[string, RawEntry[], RegExp]> = [
    ['a ../ traversal', [WORLD, { path: '../../escaped.txt', body: 'x' }], /climbs out of the archive/],
    ['an absolute path', [WORLD, { path: '/tmp/crucible-absolute-escape.txt', body: 'x' }], /absolute path/],
    [
      'a symlink to /etc',
      [WORLD, { path: 'etc', type: 'SymbolicLink', linkpath: '/etc' }],
      /points outside the archive/,
    ],
    [
      'a relative symlink out',
      [WORLD, { path: 'lib/up', type: 'SymbolicLink', linkpath: '../../..' }],
      /points outside the archive/,
    ],
    ['a hard link out', [WORLD, { path: 'passwd', type: 'Link', linkpath: '/etc/passwd' }], /absolute path/],
    ['a hard link up', [WORLD, { path: 'passwd', type: 'Link', linkpath: '../outside' }], /climbs out/],
    [
      'a write through a link',
      [
        WORLD,
        { path: 'lib', type: 'Directory' },
        { path: 'inner', type: 'SymbolicLink', linkpath: 'lib' },
        { path: 'inner/x.js', body: 'x' },
      ],
      /through the link/,
    ],
    ['a device file', [WORLD, { path: 'null', type: 'CharacterDevice' }], /CharacterDevice/],
    ['a FIFO', [WORLD, { path: 'pipe', type: 'FIFO' }], /FIFO/],
    ['an archive holding no file', [{ path: 'empty', type: 'Directory' }], /holds no files/],
  ];
  for (const [what, entries, why] of hostile) {
    it(`422 for ${what}, and nothing is written`, async () => {
      const before = readdirSync(t.dataDir).sort();
      const r = await uploadSource(t.url, key, appId, rawTarGz(entries));
      expect(r.status, JSON.stringify(r.body)).to.equal(422);
      expect(r.body.detail[0].field).to.equal('file');
      expect(r.body.detail[0].message).to.match(why);
      expect(readdirSync(t.dataDir).sort()).to.deep.equal(before);
      expect(existsSync('/tmp/crucible-absolute-escape.txt')).to.equal(false);
      expect(existsSync(path.join(t.dataDir, 'sources', 'escaped.txt'))).to.equal(false);
      expect(readdirSync(path.join(t.dataDir, 'sources')).filter((n) => n.startsWith('.tmp'))).to.deep.equal([]);
      // the application keeps its last good source
      expect((await admin.get(`/v1/applications/${appId}`)).body.source_digest).to.equal(shopDigest);
    });
  }

  it('accepts a source without world.yaml (a build with a model writes its world), from its root or one top folder', async () => {
    const id = (await admin.post('/v1/applications', { name: 'plain source', source: { kind: 'upload' } })).body.id;
    const files = [
      { path: 'package.json', body: '{"scripts":{"start":"node server.mjs"}}' },
      { path: 'server.mjs', body: 'export {};' },
    ];
    const flat = await uploadSource(t.url, key, id, rawTarGz(files));
    expect(flat.status, JSON.stringify(flat.body)).to.equal(201);
    expect(flat.body.file_count).to.equal(2);
    const nested = await uploadSource(t.url, key, id, rawTarGz(files.map((f) => ({ ...f, path: `myapp/${f.path}` }))));
    expect(nested.status).to.equal(201);
    expect(nested.body.source_digest).to.equal(flat.body.source_digest);
    expect((await admin.get(`/v1/applications/${id}`)).body).to.include({ source_digest: flat.body.source_digest });
  });

  it('409 when the application does not take uploads; 404 for a foreign application', async () => {
    const git = await admin.post('/v1/applications', {
      name: 'git one',
      source: { kind: 'git', url: 'https://example.com/r.git', commit: 'c'.repeat(40) },
    });
    const r = await uploadSource(t.url, key, git.body.id, await packDir(catalogApp('shop-support')));
    expect(r.status).to.equal(409);
    expect(r.body.detail).to.match(/only applications with source kind "upload"/);
    const other = await t.workspace('Elsewhere');
    const foreign = await uploadSource(t.url, other.key, appId, await packDir(catalogApp('shop-support')));
    expect(foreign.status).to.equal(404);
  });

  it('an archive at SERVICE_MAX_UPLOAD_BYTES (50 MiB) crosses gateway -> scheduler in one gRPC message', async () => {
    // the gRPC limit is derived from SERVICE_MAX_UPLOAD_BYTES (core/grpc-limits.ts): the largest upload still fits
    const archive = tarGzOfSize(t.config.maxUploadBytes);
    const id = (await admin.post('/v1/applications', { name: 'at-the-limit', source: { kind: 'upload' } })).body.id;
    const r = await uploadSource(t.url, key, id, archive);
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.file_count).to.equal(2);
    const app = await admin.get(`/v1/applications/${id}`);
    expect(app.body).to.include({ source_uploaded: true, source_digest: r.body.source_digest });
  });

  it('413 beyond SERVICE_MAX_UPLOAD_BYTES; 422 without the part', async () => {
    const small = await startTestService({ SERVICE_MAX_UPLOAD_BYTES: '2048' });
    try {
      const w = await small.workspace();
      const id = (
        await client(small.url, w.key).post('/v1/applications', { name: 'small', source: { kind: 'upload' } })
      ).body.id;
      const big = await uploadSource(small.url, w.key, id, await packDir(catalogApp('shop-support')));
      expect(big.status).to.equal(413);
      expect(big.body.detail).to.match(/SERVICE_MAX_UPLOAD_BYTES/);
      const form = new FormData();
      form.append('other', 'x');
      const none = await fetch(`${small.url}/v1/applications/${id}/source`, {
        method: 'POST',
        headers: { authorization: `Bearer ${w.key}` },
        body: form,
      });
      expect(none.status).to.equal(422);
    } finally {
      await small.close();
    }
  });
});
