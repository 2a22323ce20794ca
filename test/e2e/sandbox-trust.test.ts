import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Collections } from '../../core/index.js';
import { loadConfig } from '../../core/index.js';
import { readCatalogIndex } from '../../catalog/index.js';
import { assertMayRun, runPolicy, trustOfCode } from '../../world-worker/index.js';
import { CHILD_PROCESS_ISOLATION, CONTAINER_ISOLATION } from '../../world-worker/sandboxes/index.js';
import { sourceDigest } from '../../world-worker/builds/tree.js';
import { expectError } from '../support/expect-error.js';
import { HOSTILE_FIXTURE } from '../hostile/support.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { catalogApp, copyDir, packDir, uploadSource } from '../support/sources.js';

/**
 * Who may run code where (docs/security.md): with child-process sandboxes, only operator
 * code (the catalog's bytes, folders and file:// repositories under SERVICE_SOURCE_ROOTS)
 * builds and runs, unless the operator sets SANDBOX_TRUST_TENANT_CODE=true. Every route a
 * tenant's bytes take is tried in test/hostile/tenant-code.test.ts.
 */
describe('sandboxes: who may run code where', function () {
  this.timeout(60_000);

  async function workspace(t: TestService) {
    const ws = await t.workspace('Trust');
    await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    const admin = client(t.url, ws.key);
    const app = async (name: string, source: Record<string, unknown>) => {
      const r = await admin.post('/v1/applications', { name, source });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      return r.body.id as string;
    };
    const uploaded = await app('tenant upload', { kind: 'upload' });
    // the hostile fixture: a tenant's own code (the catalog's exact files would be the catalog's code)
    const up = await uploadSource(t.url, ws.key, uploaded, await packDir(HOSTILE_FIXTURE));
    expect(up.status, JSON.stringify(up.body)).to.be.oneOf([200, 201]);
    const git = await app('tenant git', { kind: 'git', url: 'https://example.com/shop.git', commit: 'a'.repeat(40) });
    return { admin, uploaded, git, app };
  }

  describe('child processes, tenant code not declared trusted (the default)', () => {
    let t: TestService;
    let roots: string;
    before(async () => {
      roots = mkdtempSync(path.join(tmpdir(), 'crucible-trust-roots-'));
      copyDir(catalogApp('shop-support'), path.join(roots, 'shop'));
      t = await startTestService({ SERVICE_SOURCE_ROOTS: roots });
    });
    after(async () => {
      await t?.close();
      rmSync(roots, { recursive: true, force: true });
    });

    it('refuses to build an upload or a git repository with 403 saying why and what to set', async () => {
      const { admin, uploaded, git } = await workspace(t);
      for (const id of [uploaded, git]) {
        const r = await admin.post('/v1/world-builds', { application_id: id });
        expect(r.status, JSON.stringify(r.body)).to.equal(403);
        expect(r.body.detail).to.match(/only for code the operator trusts/);
        expect(r.body.detail).to.contain('SANDBOX=container');
        expect(r.body.detail).to.contain('SANDBOX_TRUST_TENANT_CODE=true');
      }
    });

    it('builds operator code: the catalog and a folder under the source roots', async () => {
      const { admin, app } = await workspace(t);
      const catalog = (await admin.post('/v1/applications/import-catalog')).body.registered[0].id;
      const local = await app('operator folder', { kind: 'local_path', path: path.join(roots, 'shop') });
      for (const id of [catalog, local]) {
        const r = await admin.post('/v1/world-builds', { application_id: id, scenario_target: 3 });
        expect(r.status, JSON.stringify(r.body)).to.equal(202);
      }
    });
  });

  describe('child processes with SANDBOX_TRUST_TENANT_CODE=true', () => {
    let t: TestService;
    before(async () => (t = await startTestService({ SANDBOX_TRUST_TENANT_CODE: 'true' })));
    after(async () => t?.close());

    it('accepts builds of uploads and git repositories', async () => {
      const { admin, uploaded, git } = await workspace(t);
      for (const id of [uploaded, git]) {
        const r = await admin.post('/v1/world-builds', { application_id: id, scenario_target: 3 });
        expect(r.status, JSON.stringify(r.body)).to.equal(202);
      }
    });
  });

  it('classifies code by its bytes and origin, and lets container sandboxes run tenant code', async () => {
    const roots = mkdtempSync(path.join(tmpdir(), 'crucible-trust-classify-'));
    try {
      copyDir(catalogApp('shop-support'), path.join(roots, 'shop'));
      const shop = (await readCatalogIndex()).find((e) => e.name === 'shop-support')!;
      const sources = { catalogDigests: new Set([shop.digest]), sourceRoots: [roots] };
      const other = `sha256:${'b'.repeat(64)}`;
      // the catalog's bytes are the operator's whoever uploaded them; other bytes are not, whatever the application says
      expect(await trustOfCode({ digest: shop.digest, origin: { kind: 'upload' } }, sources)).to.equal('operator');
      expect(await trustOfCode({ digest: other, origin: { kind: 'upload' } }, sources)).to.equal('tenant');
      expect(await trustOfCode({ digest: other }, sources)).to.equal('tenant');
      // a folder of the operator's is the operator's code only with the bytes it holds (issue 35): naming it
      // beside other bytes gains nothing, nor do bytes it held before it changed
      copyDir(catalogApp('shop-support'), path.join(roots, 'mine'));
      writeFileSync(path.join(roots, 'mine', 'NOTES.md'), 'the operator’s own change\n');
      const mine = await sourceDigest(path.join(roots, 'mine'));
      const atMine = { kind: 'local_path' as const, path: path.join(roots, 'mine') };
      expect(await trustOfCode({ digest: mine, origin: atMine }, sources)).to.equal('operator');
      expect(await trustOfCode({ digest: other, origin: atMine }, sources)).to.equal('tenant');
      // a build not fetched yet has no digest: the worker reads the folder itself
      expect(await trustOfCode({ digest: '', origin: atMine }, sources)).to.equal('operator');
      expect(await trustOfCode({ digest: mine, origin: { kind: 'local_path', path: 'mine' } }, sources)).to.equal(
        'operator',
      );
      expect(await trustOfCode({ digest: other, origin: { kind: 'local_path', path: tmpdir() } }, sources)).to.equal(
        'tenant',
      );
      expect(
        await trustOfCode(
          { digest: other, origin: { kind: 'git', url: `file://${path.join(roots, 'shop')}` } },
          sources,
        ),
      ).to.equal('operator');
      expect(
        await trustOfCode({ digest: other, origin: { kind: 'git', url: 'https://example.com/a.git' } }, sources),
      ).to.equal('tenant');
      // world files a model proposed keep the trust of the source they were added to
      expect(await trustOfCode({ digest: other, origin: { kind: 'authored' } }, sources)).to.equal('tenant');
      const authoredOn = (base: { digest: string; origin: { kind: 'upload' | 'local_path'; path?: string } }) =>
        trustOfCode({ digest: other, origin: { kind: 'authored', base } }, sources);
      expect(await authoredOn({ digest: other, origin: { kind: 'upload' } })).to.equal('tenant');
      expect(await authoredOn({ digest: mine, origin: atMine })).to.equal('operator');
      expect(await authoredOn({ digest: other, origin: atMine })).to.equal('tenant');
      writeFileSync(path.join(roots, 'mine', 'NOTES.md'), 'changed since the build\n');
      expect(await trustOfCode({ digest: mine, origin: atMine }, sources)).to.equal('tenant');

      const tenant = { digest: other, origin: { kind: 'upload' as const } };
      const container = runPolicy({ kind: 'docker', isolation: CONTAINER_ISOLATION }, { trustTenantCode: false });
      expect(container.runsTenantCode).to.equal(true);
      await assertMayRun(container, tenant, sources);
      const child = runPolicy({ kind: 'process', isolation: CHILD_PROCESS_ISOLATION }, { trustTenantCode: false });
      expect(child).to.deep.equal({ driver: 'process', isolates: [], runsTenantCode: false });
      expect((await expectError(assertMayRun(child, tenant, sources), 'forbidden')).message).to.contain(
        'SANDBOX_TRUST_TENANT_CODE=true',
      );
      await assertMayRun(child, { digest: shop.digest, origin: { kind: 'upload' } }, sources);
      const trusting = runPolicy({ kind: 'process', isolation: CHILD_PROCESS_ISOLATION }, { trustTenantCode: true });
      await assertMayRun(trusting, tenant, sources);
    } finally {
      rmSync(roots, { recursive: true, force: true });
    }
  });

  it('reads the sandbox settings, refusing unclear ones', () => {
    expect(loadConfig({}).sandbox).to.equal('process');
    expect(loadConfig({ DOCKER_HOST: 'unix:///x.sock' }).sandbox).to.equal('process'); // only SANDBOX chooses
    expect(() => loadConfig({ SANDBOX: 'container' })).to.throw(/SANDBOX_RUNTIME_IMAGE/);
    expect(() => loadConfig({ SANDBOX: 'vm' })).to.throw(/SANDBOX must be/);
    expect(() => loadConfig({ SANDBOX_TRUST_TENANT_CODE: 'maybe' })).to.throw(/true or false/);
    expect(() => loadConfig({ SANDBOX_CPUS: '0' })).to.throw(/SANDBOX_CPUS/);
    const c = loadConfig({ SANDBOX_MEMORY_MB: '256', SANDBOX_PIDS: '64', SANDBOX_CPUS: '0.5' });
    expect(c.sandboxLimits).to.deep.equal({ memoryMb: 256, pids: 64, cpus: 0.5, dataMb: 128 });
  });
});
