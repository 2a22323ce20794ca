import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Collections } from '../../core/collections.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { catalogApp, makeGitRepo } from '../support/sources.js';

const PIN = `shop:1.0@sha256:${'a'.repeat(64)}`;

describe('applications: create, list, get, delete with the rules of spec section 2', function () {
  this.timeout(60_000);
  let t: TestService;
  let roots: string;
  let outside: string;
  let admin: ReturnType<typeof client>;
  let ws: Awaited<ReturnType<TestService['workspace']>>;
  let repo: { url: string; commit: string };

  before(async () => {
    roots = mkdtempSync(path.join(tmpdir(), 'crucible-roots-'));
    outside = mkdtempSync(path.join(tmpdir(), 'crucible-outside-'));
    t = await startTestService({ SERVICE_SOURCE_ROOTS: roots });
    ws = await t.workspace('Apps');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    admin = client(t.url, ws.key);
    repo = makeGitRepo(path.join(roots, 'shop-repo'), catalogApp('shop-support'));
    mkdirSync(path.join(roots, 'apps', 'shop'), { recursive: true });
    writeFileSync(path.join(roots, 'apps', 'shop', 'world.yaml'), 'name: shop\n');
    mkdirSync(path.join(outside, 'secret'));
    symlinkSync(path.join(outside, 'secret'), path.join(roots, 'escape'));
    writeFileSync(path.join(roots, 'a-file'), 'not a folder');
  });
  after(async () => {
    await t?.close();
    rmSync(roots, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('creates a git application pinned to a commit (ref kept as a note) and reads it back', async () => {
    const r = await admin.post('/v1/applications', {
      name: 'shop from git',
      source: { kind: 'git', url: repo.url, commit: repo.commit, ref: 'main' },
      images: { shop: PIN },
      policies: 'Never refund twice.',
    });
    expect(r.status).to.equal(201);
    expect(r.body).to.include({
      name: 'shop from git',
      policies: 'Never refund twice.',
      notes: '',
      connection_mode: 'source',
    });
    expect(r.body.id).to.match(/^app_/);
    expect(r.body.source).to.deep.equal({ kind: 'git', url: repo.url, commit: repo.commit, ref: 'main' });
    expect(r.body.images).to.deep.equal({ shop: PIN });
    expect(r.body.created_at).to.be.a('string');
    const got = await admin.get(`/v1/applications/${r.body.id}`);
    expect(got.status).to.equal(200);
    expect(got.body).to.deep.equal(r.body);
    const list = await admin.get('/v1/applications');
    expect(list.body.map((a: { id: string }) => a.id)).to.include(r.body.id);
  });

  it('409 for a second application with the same name in the project', async () => {
    const body = { name: 'twice', source: { kind: 'upload' } };
    expect((await admin.post('/v1/applications', body)).status).to.equal(201);
    const again = await admin.post('/v1/applications', body);
    expect(again.status).to.equal(409);
    expect(again.body.detail).to.match(/already exists/);
  });

  it('422 naming the field for a bad commit, address, name, image pin or connection mode', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'x', source: { kind: 'git', url: repo.url, commit: repo.commit.slice(0, 12) } }, 'source.commit'],
      [{ name: 'x', source: { kind: 'git', url: repo.url, commit: repo.commit.toUpperCase() } }, 'source.commit'],
      [{ name: 'x', source: { kind: 'git', url: 'http://example.com/r.git', commit: repo.commit } }, 'source.url'],
      [{ name: '', source: { kind: 'upload' } }, 'name'],
      [{ name: 'n'.repeat(201), source: { kind: 'upload' } }, 'name'],
      [{ name: 'x', source: { kind: 'upload' }, images: { shop: 'shop:latest' } }, 'images.shop'],
      [{ name: 'x', source: { kind: 'upload' }, connection_mode: 'proxy' }, 'connection_mode'],
      [{ name: 'x', source: { kind: 'ftp' } }, 'source'],
    ];
    for (const [body, field] of cases) {
      const r = await admin.post('/v1/applications', body);
      expect(r.status, JSON.stringify(body)).to.equal(422);
      expect(r.body.detail.map((d: { field: string }) => d.field).join(' '), JSON.stringify(body)).to.contain(field);
    }
  });

  it('accepts 64-character commit ids and git@host:path addresses', async () => {
    const r = await admin.post('/v1/applications', {
      name: 'sha256 repo',
      source: { kind: 'git', url: 'git@example.com:team/app.git', commit: 'b'.repeat(64) },
    });
    expect(r.status).to.equal(201);
  });

  it('a file:// repository must be inside SERVICE_SOURCE_ROOTS', async () => {
    const far = makeGitRepo(path.join(outside, 'repo'), { 'world.yaml': 'name: far\n' });
    const r = await admin.post('/v1/applications', {
      name: 'far',
      source: { kind: 'git', url: far.url, commit: far.commit },
    });
    expect(r.status).to.equal(422);
    expect(r.body.detail[0].field).to.equal('source.url');
  });

  it('local_path: a folder inside the roots (absolute or relative) is accepted', async () => {
    const abs = await admin.post('/v1/applications', {
      name: 'local abs',
      source: { kind: 'local_path', path: path.join(roots, 'apps', 'shop') },
    });
    expect(abs.status).to.equal(201);
    expect(abs.body.source).to.deep.equal({ kind: 'local_path', path: path.join(roots, 'apps', 'shop') });
    const rel = await admin.post('/v1/applications', {
      name: 'local rel',
      source: { kind: 'local_path', path: 'apps/shop' },
    });
    expect(rel.status).to.equal(201);
  });

  it('local_path: refuses "..", a symlink leaving the roots, a missing folder, a file, and any path when no roots are set', async () => {
    const cases: Array<[string, RegExp]> = [
      [`${roots}/apps/../../${path.basename(outside)}`, /\.\./],
      ['apps/../../etc', /\.\./],
      [path.join(roots, 'escape'), /outside/],
      ['escape', /outside/],
      [path.join(outside, 'secret'), /outside/],
      [path.join(roots, 'missing'), /no folder/],
      [path.join(roots, 'a-file'), /not a folder/],
    ];
    for (const [p, why] of cases) {
      const r = await admin.post('/v1/applications', { name: `bad ${p}`, source: { kind: 'local_path', path: p } });
      expect(r.status, p).to.equal(422);
      expect(r.body.detail[0].field, p).to.equal('source.path');
      expect(r.body.detail[0].message, p).to.match(why);
    }
    const bare = await startTestService();
    try {
      const w = await bare.workspace();
      const r = await client(bare.url, w.key).post('/v1/applications', {
        name: 'x',
        source: { kind: 'local_path', path: roots },
      });
      expect(r.status).to.equal(422);
      expect(r.body.detail[0].message).to.match(/SERVICE_SOURCE_ROOTS/);
    } finally {
      await bare.close();
    }
  });

  it('402 when the free plan already has its one application', async () => {
    const free = await t.workspace('Free');
    const c = client(t.url, free.key);
    expect((await c.post('/v1/applications', { name: 'first', source: { kind: 'upload' } })).status).to.equal(201);
    const second = await c.post('/v1/applications', { name: 'second', source: { kind: 'upload' } });
    expect(second.status).to.equal(402);
    expect(second.body.detail).to.match(/free plan allows 1 application/);
  });

  it('delete needs admin, answers 404 for unknown and foreign ids, and frees the name', async () => {
    const made = await admin.post('/v1/applications', { name: 'to delete', source: { kind: 'upload' } });
    const writer = client(t.url, await t.key(ws.projectId, ['write']));
    expect((await writer.del(`/v1/applications/${made.body.id}`)).status).to.equal(403);
    const other = await t.workspace('Other');
    const foreign = await client(t.url, other.key).del(`/v1/applications/${made.body.id}`);
    expect(foreign.status).to.equal(404);
    expect(foreign.body.detail).to.be.a('string');
    const gone = await admin.del(`/v1/applications/${made.body.id}`);
    expect(gone.status).to.equal(200);
    expect(gone.body).to.include({ id: made.body.id, deleted: true });
    expect((await admin.get(`/v1/applications/${made.body.id}`)).status).to.equal(404);
    expect((await admin.del(`/v1/applications/${made.body.id}`)).status).to.equal(404);
    expect((await admin.post('/v1/applications', { name: 'to delete', source: { kind: 'upload' } })).status).to.equal(
      201,
    );
  });

  it('read keys list and read; writing needs write', async () => {
    const reader = client(t.url, await t.key(ws.projectId, ['read']));
    expect((await reader.get('/v1/applications')).status).to.equal(200);
    expect((await reader.post('/v1/applications', { name: 'r', source: { kind: 'upload' } })).status).to.equal(403);
  });
});
