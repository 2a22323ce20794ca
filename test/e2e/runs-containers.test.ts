import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FIXTURE_DIR, fixtureManifest } from '../contract/sandboxes.contract.js';
import { sandboxOwner } from '../../world-worker/sandboxes/index.js';
import { OWNER_LABEL, DockerSandboxes } from '../../world-worker/sandboxes/index.js';
import { containerEngine } from '../support/containers.js';
import { catalogWorkspace, evaluate, makeProfile, runEpisodes, waitRun } from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * A catalog world built and evaluated through the whole service with SANDBOX=container on
 * podman (scripts/podman-up.sh): the catalog is imported with the runtime image pinned for
 * every service, the build's replays and the run's episodes run in containers, and
 * builtin:reference scores as it does in child processes. Fails loudly without an engine
 * unless CRUCIBLE_SKIP_CONTAINERS=1.
 */
(process.env.CRUCIBLE_SKIP_CONTAINERS === '1' ? describe.skip : describe)(
  'runs: a catalog world in container sandboxes',
  function () {
    this.timeout(900_000);
    let t: TestService;
    let docker: DockerSandboxes['docker'];
    let owner: string;
    const seenEpisodeContainers = new Set<string>();

    let leftovers: string[] = [];
    let data: string;

    before(async () => {
      const engine = containerEngine()!;
      // what a killed earlier run of this worker left behind: a sandbox under its owner label
      owner = `wkr-containers-${process.pid}-${Date.now()}`;
      const earlier = new DockerSandboxes({ dockerHost: engine.dockerHost, relayImage: engine.runtimeImage, owner });
      docker = earlier.docker;
      data = mkdtempSync(path.join(tmpdir(), 'crucible-earlier-'));
      const left = await earlier.start(FIXTURE_DIR, fixtureManifest(), data, {
        images: { runtime: engine.runtimeImage },
      });
      leftovers = left.details.map((d) => d.containerId!);
      t = await startTestService({
        SANDBOX: 'container',
        DOCKER_HOST: engine.dockerHost,
        SANDBOX_RUNTIME_IMAGE: engine.runtimeImage,
        WORKER_CAPACITY: '4',
        WORKER_ID: owner,
      });
      expect(sandboxOwner(t.config)).to.equal(owner);
    });

    it("the worker's start removed the containers an earlier run of it left", async () => {
      const all = await docker.listContainers({ all: true, filters: { label: [`${OWNER_LABEL}=${owner}`] } });
      expect(leftovers).to.have.length(1);
      expect(all.map((c) => c.Id)).not.to.include(leftovers[0]);
      expect(all).to.deep.equal([]);
    });
    after(async () => {
      await t?.close();
      if (data) rmSync(data, { recursive: true, force: true });
    });

    it('imports the catalog pinned to the runtime image, builds shop-support, and builtin:reference scores >= 0.95', async () => {
      const cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 4 });
      const apps = (await cw.admin.get('/v1/applications')).body as Array<{ name: string; images: unknown }>;
      const shop = apps.find((a) => a.name === 'shop-support')!;
      expect(shop.images).to.deep.equal({ shop: t.config.sandboxRuntimeImage });

      const reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
      const started = await evaluate(cw.admin, {
        world_version_id: cw.worlds.get('shop-support'),
        profile_ids: [reference.id],
        repeats: 1,
      });
      // the episodes run in containers labelled with their episode
      const watching = setInterval(() => {
        docker
          .listContainers({ filters: { label: [`${OWNER_LABEL}=${owner}`, 'crucible.episode'] } })
          .then((list) => list.forEach((c) => seenEpisodeContainers.add(c.Labels['crucible.episode']!)))
          .catch(() => undefined);
      }, 200);
      const run = await waitRun(cw.admin, started.run_id).finally(() => clearInterval(watching));
      expect(run.status, run.error).to.equal('finished');
      const s = run.summary.profiles['reference@v1'];
      expect(s.mean_reward).to.be.at.least(0.95);
      expect(s).to.include({ false_completion_rate: 0, duplicate_effect_rate: 0, environment_errors: 0 });
      const episodes = await runEpisodes(cw.admin, started.run_id);
      expect(episodes.every((e: { status: string }) => e.status === 'finished')).to.equal(true);
      expect(seenEpisodeContainers.size, 'episodes seen running in containers').to.be.greaterThan(0);
      // every container is gone once the run has ended
      expect(await docker.listContainers({ all: true, filters: { label: [`${OWNER_LABEL}=${owner}`] } })).to.deep.equal(
        [],
      );
    });
  },
);
