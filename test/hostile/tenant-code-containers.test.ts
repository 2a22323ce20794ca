import { expect } from 'chai';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Collections } from '../../core/collections.js';
import { ISOLATION_PROMISES } from '../../world-worker/sandboxes/index.js';
import { waitJob } from '../support/builds.js';
import { containerEngine } from '../support/containers.js';
import { evaluate, makeProfile, waitRun } from '../support/runs.js';
import { client, type TestService } from '../support/service.js';
import { uploadSource } from '../support/sources.js';
import { HostileSource, startInstallation, type Installation } from './support.js';

/**
 * The same attack with a real container worker beside a child-process one (podman,
 * scripts/podman-up.sh): the container worker reports from its driver that it keeps every
 * isolation promise, the tenant's build and episodes go to it alone, and the canary never
 * reaches this machine's files (in a container it cannot write them). Fails loudly without
 * an engine unless CRUCIBLE_SKIP_CONTAINERS=1.
 */
(process.env.CRUCIBLE_SKIP_CONTAINERS === '1' ? describe.skip : describe)(
  'hostile tenant: its code goes to the container worker, never to the child-process one',
  function () {
    this.timeout(600_000);
    let inst: Installation;
    let t: TestService;
    let hostile: HostileSource;
    const owner = `wkr-hostile-${process.pid}-${Date.now()}`;

    before(async () => {
      const engine = containerEngine()!;
      hostile = new HostileSource('hostile-containers');
      inst = await startInstallation(
        // the scheduler pins the catalog's services to the runtime image, so containers can run them
        { SANDBOX: 'container', DOCKER_HOST: engine.dockerHost, SANDBOX_RUNTIME_IMAGE: engine.runtimeImage },
        { [owner]: {}, wkr_child: { SANDBOX: 'process' } },
      );
      t = inst.t;
    });
    after(async () => {
      await t?.close();
      hostile?.remove();
    });

    it('each worker reports what its own driver keeps', async () => {
      const byId = Object.fromEntries((await t.svc.scheduler.deps.workers.live()).map((w) => [w.id, w]));
      expect(byId[owner]).to.include({ sandbox: 'docker', runs_tenant_code: true });
      expect(byId[owner]!.isolates).to.deep.equal([...ISOLATION_PROMISES]);
      expect(byId.wkr_child).to.include({ sandbox: 'process', runs_tenant_code: false });
    });

    it('an upload to an imported catalog application builds and runs in containers only', async () => {
      const ws = await t.workspace();
      await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
      const admin = client(t.url, ws.key);
      const imported = await admin.post('/v1/applications/import-catalog');
      const shop = (imported.body.registered as any[]).find((a) => a.name === 'shop-support');
      const up = await uploadSource(t.url, ws.key, shop.id, await hostile.archive());
      expect(up.status, JSON.stringify(up.body)).to.equal(201);
      const r = await admin.post('/v1/world-builds', { application_id: shop.id, scenario_target: 3 });
      expect(r.status, JSON.stringify(r.body)).to.equal(202);
      const job = await waitJob(admin, r.body.job_id);
      expect(job.status, JSON.stringify(job.error)).to.equal('succeeded');
      const profile = await makeProfile(admin, { name: 'reference', model: 'builtin:reference' });
      const started = await evaluate(admin, {
        world_version_id: r.body.world_version_id,
        profile_ids: [profile.id],
        splits: ['train'],
        repeats: 1,
      });
      expect((await waitRun(admin, started.run_id)).status).to.equal('finished');
      const episodes = await t.svc.adapters.store.find<{ _id: string; worker_id: string }>(Collections.runEpisodes, {
        run_id: started.run_id,
      });
      expect([...new Set(episodes.map((e) => e.worker_id))]).to.deep.equal([owner]);
      // the tenant's code ran (the build replayed it) but never where it could write this machine's files
      expect(hostile.sightings()).to.deep.equal([]);
      const digest = (up.body.source_digest as string).slice('sha256:'.length);
      expect(existsSync(path.join(inst.workerDir('wkr_child'), 'sources', digest))).to.equal(false);
    });
  },
);
