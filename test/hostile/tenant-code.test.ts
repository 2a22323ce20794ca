import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { extract } from 'tar';
import { Collections } from '../../core/collections.js';
import { ServiceError } from '../../core/errors.js';
import { EPISODE_WORK } from '../../world-worker/index.js';
import { waitJob } from '../support/builds.js';
import { evaluate, makeProfile, waitRun } from '../support/runs.js';
import { client, type TestService } from '../support/service.js';
import { catalogApp, copyDir, uploadSource } from '../support/sources.js';
import { HostileSource, startInstallation, until, type Installation } from './support.js';

type Client = ReturnType<typeof client>;

/**
 * A tenant's bytes never run outside an isolating sandbox, whatever route they take
 * (issue 22, docs/security.md "Who may run code where"). The installation has a scheduler
 * configured for containers (SANDBOX=container: the setting the old check believed) and two
 * world-workers: `wkr_trusting`, whose operator declared tenants trusted
 * (SANDBOX_TRUST_TENANT_CODE=true, so it reports that it runs tenant code, as a container
 * worker does), and `wkr_process`, child processes for operator code only. The tenant's
 * code is the catalog's shop-support with the hostile canary imported first: each time it
 * starts where it can write this machine's files it reports where and whether it could read
 * crucible.db.
 */
describe('hostile tenant: its code runs only where it is isolated', function () {
  this.timeout(300_000);
  const PIN = `127.0.0.1:5055/crucible-runtime:x@sha256:${'a'.repeat(64)}`;
  let inst: Installation;
  let t: TestService;
  let roots: string;
  let hostile: HostileSource;
  /** The tenant's workspace (team plan), its shop-support application and the version built from its upload. */
  let tenant: { admin: Client; key: string; appId: string; projectId: string };
  let tenantVersion: string;
  let runId: string;
  let profileId: string;

  const forbidden = (r: { status: number; body: any }) => {
    expect(r.status, JSON.stringify(r.body)).to.equal(403);
    expect(r.body.detail).to.match(/only for code the operator trusts/);
    expect(r.body.detail).to.contain('SANDBOX=container');
    expect(r.body.detail).to.contain('SANDBOX_TRUST_TENANT_CODE=true');
  };
  const ranOn = (id: string) => hostile.sightings().filter((s) => s.cwd.startsWith(inst.workerDir(id)));
  const workspace = async (plan: 'free' | 'team') => {
    const ws = await t.workspace();
    if (plan === 'team')
      await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
    const admin = client(t.url, ws.key);
    const imported = await admin.post('/v1/applications/import-catalog');
    expect(imported.status, JSON.stringify(imported.body)).to.equal(201);
    const shop = (imported.body.registered as any[]).find((a) => a.name === 'shop-support');
    expect(shop.catalog).to.include({ name: 'shop-support' });
    return { admin, key: ws.key, appId: shop.id as string, projectId: ws.projectId };
  };
  const upload = async (appId: string, bytes: Buffer, key: string) => {
    const r = await uploadSource(t.url, key, appId, bytes);
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    return r.body.source_digest as string;
  };

  before(async () => {
    roots = mkdtempSync(path.join(tmpdir(), 'crucible-hostile-roots-'));
    copyDir(catalogApp('shop-support'), path.join(roots, 'shop'));
    hostile = new HostileSource();
    inst = await startInstallation(
      {
        SANDBOX: 'container',
        DOCKER_HOST: 'unix:///nonexistent/docker.sock',
        SANDBOX_RUNTIME_IMAGE: PIN,
        SERVICE_SOURCE_ROOTS: roots,
      },
      {
        wkr_process: { SANDBOX: 'process' },
        wkr_trusting: { SANDBOX: 'process', SANDBOX_TRUST_TENANT_CODE: 'true' },
      },
    );
    t = inst.t;
  });
  after(async () => {
    await t?.close();
    hostile?.remove();
    rmSync(roots, { recursive: true, force: true });
  });

  it('workers report their driver and what it keeps when they register; the scheduler keeps it', async () => {
    const records = await t.svc.scheduler.deps.workers.live();
    const byId = Object.fromEntries(records.map((w) => [w.id, w]));
    expect(Object.keys(byId).sort(), JSON.stringify(await t.svc.scheduler.deps.workers.list())).to.deep.equal([
      'wkr_process',
      'wkr_trusting',
    ]);
    expect(byId.wkr_process).to.include({ sandbox: 'process', runs_tenant_code: false });
    expect(byId.wkr_process!.isolates).to.deep.equal([]);
    expect(byId.wkr_trusting).to.include({ sandbox: 'process', runs_tenant_code: true });
  });

  it('a tenant build of its upload goes only to the worker that runs tenant code, never to the child-process one', async () => {
    tenant = await workspace('team');
    const { admin } = tenant;
    const digest = await upload(tenant.appId, await hostile.archive(), tenant.key);
    // the upload made it tenant code: the application no longer claims to be the catalog's
    const app = await admin.get(`/v1/applications/${tenant.appId}`);
    expect(app.body.catalog).to.equal(null);
    expect(app.body.source_digest).to.equal(digest);

    const r = await admin.post('/v1/world-builds', { application_id: tenant.appId, scenario_target: 3 });
    expect(r.status, JSON.stringify(r.body)).to.equal(202);
    const job = await waitJob(admin, r.body.job_id);
    expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
    tenantVersion = r.body.world_version_id;
    // the canary ran (this is the attack, allowed where the operator trusts tenants) and only there
    expect(ranOn('wkr_trusting').length).to.be.greaterThan(0);
    expect(ranOn('wkr_trusting')[0]!.db).to.equal('SQLite format 3');
    expect(ranOn('wkr_process')).to.deep.equal([]);
    expect(existsSync(path.join(inst.workerDir('wkr_process'), 'sources', digest.slice('sha256:'.length)))).to.equal(
      false,
    );
  });

  it('episodes of a tenant world version are placed only on the worker that runs tenant code', async () => {
    const profile = await makeProfile(tenant.admin, { name: 'reference', model: 'builtin:reference' });
    profileId = profile.id;
    const started = await evaluate(tenant.admin, {
      world_version_id: tenantVersion,
      profile_ids: [profile.id],
      splits: ['train', 'dev'],
      repeats: 2,
    });
    runId = started.run_id;
    const run = await waitRun(tenant.admin, runId);
    expect(run.status, JSON.stringify(run)).to.equal('finished');
    const episodes = await t.svc.adapters.store.find<{ _id: string; worker_id: string }>(Collections.runEpisodes, {
      run_id: runId,
    });
    expect(episodes.length).to.be.greaterThan(0);
    expect([...new Set(episodes.map((e) => e.worker_id))]).to.deep.equal(['wkr_trusting']);
    expect(ranOn('wkr_process')).to.deep.equal([]);
  });

  describe('once only the child-process worker is live', () => {
    before(async () => {
      await inst.stopWorker('wkr_trusting');
      // its record counts as live until its heartbeat lapses (6 s)
      await until(
        'wkr_trusting no longer counts as live',
        async () => !(await t.svc.scheduler.deps.workers.live()).some((w) => w.id === 'wkr_trusting'),
      );
    });

    it('uploads its own archive to a catalog application it imported on the free plan and builds it: 403, nothing runs', async () => {
      const before = hostile.sightings().length;
      const attacker = await workspace('free');
      await upload(attacker.appId, await hostile.archive(), attacker.key);
      forbidden(await attacker.admin.post('/v1/world-builds', { application_id: attacker.appId }));
      expect(await t.svc.adapters.store.count(Collections.worldVersions, { project_id: attacker.projectId })).to.equal(
        0,
      );
      // the control: another tenant's untouched catalog application builds here, its bytes being the catalog's
      const other = await workspace('free');
      const ok = await other.admin.post('/v1/world-builds', { application_id: other.appId, scenario_target: 3 });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(202);
      expect((await waitJob(other.admin, ok.body.job_id)).status).to.equal('succeeded');
      expect(hostile.sightings().length).to.equal(before);
    });

    it('rebuilds an application it built before, now that only a child-process worker is live: 403', async () => {
      forbidden(await tenant.admin.post('/v1/world-builds', { application_id: tenant.appId }));
    });

    it('starts a run of its old world version, built when a worker that runs tenant code was live: 403', async () => {
      forbidden(
        await tenant.admin.post('/v1/evaluations', {
          world_version_id: tenantVersion,
          profile_ids: [profileId],
          splits: ['train'],
        }),
      );
    });

    it('validates its world version again, or adds a scenario to it (both replay its code): 403', async () => {
      forbidden(await tenant.admin.post(`/v1/world-versions/${tenantVersion}/validate`, {}));
      // refused before the template is even read
      forbidden(
        await tenant.admin.post(`/v1/world-versions/${tenantVersion}/scenarios`, { scenario: { id: 'again' } }),
      );
    });

    it("asks for an improvement checked on dev, which would run its world version's code: 403", async () => {
      forbidden(
        await tenant.admin.post('/v1/improvements', { profile_id: profileId, run_id: runId, check_on_dev: true }),
      );
    });

    it('imports a bundle of its world version back as the source of a catalog application: 403', async () => {
      const r = await tenant.admin.post(`/v1/world-versions/${tenantVersion}/bundle`);
      expect(r.status, JSON.stringify(r.body)).to.equal(202);
      expect((await waitJob(tenant.admin, r.body.job_id)).status).to.equal('succeeded');
      const res = await fetch(`${t.url}/v1/artifacts/${r.body.artifact_id}/download`, {
        headers: { authorization: `Bearer ${tenant.key}` },
      });
      expect(res.status).to.equal(200);
      const dir = await mkdtemp(path.join(tmpdir(), 'crucible-hostile-bundle-'));
      try {
        await writeFile(path.join(dir, 'b.tar.gz'), Buffer.from(await res.arrayBuffer()));
        await extract({ file: path.join(dir, 'b.tar.gz'), cwd: dir });
        const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8'));
        expect(manifest.world_version_id).to.equal(tenantVersion);
        const other = await workspace('free');
        await upload(other.appId, await readFile(path.join(dir, 'source.tar.gz')), other.key);
        forbidden(await other.admin.post('/v1/world-builds', { application_id: other.appId }));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('registers a remote git repository (any commit) and builds it: 403', async () => {
      const r = await tenant.admin.post('/v1/applications', {
        name: 'hostile git',
        source: { kind: 'git', url: 'https://example.com/hostile.git', commit: 'b'.repeat(40) },
      });
      expect(r.status, JSON.stringify(r.body)).to.equal(201);
      forbidden(await tenant.admin.post('/v1/world-builds', { application_id: r.body.id }));
    });

    it('asks the child-process worker directly to replay or run its code: the worker refuses, nothing starts', async () => {
      const before = hostile.sightings().length;
      const registry = t.svc.scheduler.deps.workers;
      const address = (await registry.live()).find((w) => w.id === 'wkr_process')!.address;
      const wv = await t.svc.adapters.store.get<any>(Collections.worldVersions, tenantVersion);
      const scenario = (
        await t.svc.adapters.store.find<any>(Collections.scenarios, { world_version_id: tenantVersion })
      )[0].specification;
      const archive = (await hostile.archive()).toString('base64');
      const replay = { scenarios: [scenario], times: 1, images: {}, digest: wv.source_digest, archive_b64: archive };
      // with the origin the build pinned, with none, and claiming a folder outside the source roots
      for (const origin of [{ kind: 'upload' }, null, { kind: 'local_path', path: tmpdir() }] as const) {
        const err = await registry.execute(address, 'build.replay', { ...replay, origin }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err, `origin ${JSON.stringify(origin)}`).to.be.instanceOf(ServiceError);
        expect((err as ServiceError).code).to.equal('forbidden');
        expect((err as ServiceError).message).to.match(
          /world-worker wkr_process runs application code in child processes/,
        );
      }
      const episode = await registry
        .execute(address, EPISODE_WORK.run, {
          episode_id: 'ep_hostile_direct',
          run_id: runId,
          project_id: tenant.projectId,
          source: { digest: wv.source_digest, archive_b64: archive, origin: { kind: 'upload' } },
          world: { manifest: wv.compiled.manifest, tools: wv.compiled.tools, policies: '', seed: wv.compiled.seed },
          images: {},
          scenario,
          profile: { label: 'x', driver: 'builtin', model: 'builtin:reference' } as any,
          options: { default_stress: false, max_episode_cost_usd: null, external_turn_timeout_ms: 1000 },
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect((episode as ServiceError).code).to.equal('forbidden');
      expect(hostile.sightings().length).to.equal(before);
      expect(ranOn('wkr_process')).to.deep.equal([]);
    });
  });
});
