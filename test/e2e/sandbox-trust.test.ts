import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Collections } from '../../core/index.js';
import { loadConfig } from '../../core/index.js';
import { assertMayRun, trustOfSource } from '../../world-worker/index.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { catalogApp, copyDir, packDir, uploadSource } from '../support/sources.js';

/**
 * Who may run code where (docs/security.md): with child-process sandboxes, only operator
 * code (the catalog, folders and file:// repositories under SERVICE_SOURCE_ROOTS) builds
 * and runs, unless the operator sets SANDBOX_TRUST_TENANT_CODE=true.
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
    const up = await uploadSource(t.url, ws.key, uploaded, await packDir(catalogApp('shop-support')));
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

  it('classifies sources and lets container sandboxes run tenant code', () => {
    expect(trustOfSource({ source: { kind: 'upload' }, catalog: { name: 'shop-support' } })).to.equal('operator');
    expect(trustOfSource({ source: { kind: 'local_path' } })).to.equal('operator');
    expect(trustOfSource({ source: { kind: 'git', url: 'file:///srv/apps/shop' } })).to.equal('operator');
    expect(trustOfSource({ source: { kind: 'git', url: 'https://example.com/a.git' } })).to.equal('tenant');
    expect(trustOfSource({ source: { kind: 'upload' } })).to.equal('tenant');
    const pin = `127.0.0.1:5055/crucible-runtime:x@sha256:${'a'.repeat(64)}`;
    const container = loadConfig({ SANDBOX: 'container', DOCKER_HOST: 'unix:///x.sock', SANDBOX_RUNTIME_IMAGE: pin });
    expect(() => assertMayRun(container, { source: { kind: 'upload' } })).not.to.throw();
    expect(() => assertMayRun(loadConfig({}), { source: { kind: 'upload' } })).to.throw(/SANDBOX_TRUST_TENANT_CODE/);
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
