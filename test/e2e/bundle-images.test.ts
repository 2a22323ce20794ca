import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { extract } from 'tar';
import { Collections } from '../../core/collections.js';
import { OWNER_LABEL, parseDockerHost } from '../../world-worker/sandboxes/index.js';
import { buildAndWait, waitJob } from '../support/builds.js';
import { containerEngine } from '../support/containers.js';
import { evaluate, makeProfile, runEpisodes, waitRun } from '../support/runs.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { catalogApp, packDir, uploadSource } from '../support/sources.js';

/**
 * Issue 23, bundles with images, end to end on podman: a world built on an image of its own
 * is bundled with `include_images=true`; the image is then removed from the engine, so the
 * import's load is real; the bundle, uploaded as another project's application source,
 * loads the image under that project's name, and a world built from it runs an episode in
 * containers of the loaded image.
 */
(process.env.CRUCIBLE_SKIP_CONTAINERS === '1' ? describe.skip : describe)(
  'bundles with images: export, import into a clean engine, run an episode',
  function () {
    this.timeout(900_000);
    let t: TestService;
    let docker: Docker;
    let imageId: string;
    let pin: string;
    let owner: string;
    let dir: string;
    const cleanup: string[] = [];

    /** A workspace on the team plan with an upload application pinned to `images`. */
    async function uploadApp(name: string, images?: Record<string, string>) {
      const ws = await t.workspace(name);
      await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
      const api = client(t.url, ws.key);
      const app = await api.post('/v1/applications', {
        name,
        source: { kind: 'upload' },
        ...(images ? { images } : {}),
      });
      expect(app.status, JSON.stringify(app.body)).to.equal(201);
      return { ...ws, api, appId: app.body.id as string };
    }

    before(async () => {
      const engine = containerEngine()!;
      docker = new Docker(parseDockerHost(engine.dockerHost).options);
      owner = `wkr-bundle-images-${process.pid}-${Date.now()}`;
      dir = await mkdtemp(path.join(tmpdir(), 'bundle-images-'));
      // an image of this test's own: the runtime image with a label, so its id is new
      if (
        !(await docker
          .getImage(engine.runtimeImage)
          .inspect()
          .catch(() => null))
      ) {
        const s = await docker.pull(engine.runtimeImage);
        await new Promise((res, rej) => docker.modem.followProgress(s, (e: Error | null) => (e ? rej(e) : res(null))));
      }
      const base = await docker.createContainer({ Image: engine.runtimeImage, Cmd: ['/usr/bin/node', '-v'] });
      const repo = `localhost/crucible-e2e-bundle-${process.pid}-${Date.now()}`;
      const committed = (await base.commit({ repo, tag: 'v1', changes: `LABEL crucible.test=${repo}` })) as {
        Id?: string;
        id?: string;
      };
      await base.remove({ force: true });
      const info = await docker.getImage(`${repo}:v1`).inspect();
      imageId = info.Id;
      cleanup.push(imageId);
      expect(committed.Id ?? committed.id ?? '').to.include(imageId.replace(/^sha256:/, '').slice(0, 12));
      const digest = info.RepoDigests.find((d) => d.startsWith(`${repo}@`))!.split('@')[1]!;
      pin = `${repo}:v1@${digest}`;
      t = await startTestService({
        SANDBOX: 'container',
        DOCKER_HOST: engine.dockerHost,
        SANDBOX_RUNTIME_IMAGE: engine.runtimeImage,
        WORKER_CAPACITY: '2',
        WORKER_ID: owner,
      });
    });
    after(async () => {
      await t?.close();
      for (const id of cleanup)
        await docker
          .getImage(id)
          .remove({ force: true })
          .catch(() => undefined);
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('exports the image, imports it into an engine without it under the importing project, and runs an episode from it', async () => {
      // the exporting project builds shop-support on the test's image
      const a = await uploadApp('exporter', { shop: pin });
      expect((await uploadSource(t.url, a.key, a.appId, await packDir(catalogApp('shop-support')))).status).to.equal(
        201,
      );
      const built = await buildAndWait(a.api, { application_id: a.appId, scenario_target: 2 });
      expect(built.job.status, JSON.stringify(built.job)).to.equal('succeeded');
      const wv = built.build.world_version_id as string;

      const r = await a.api.post(`/v1/world-versions/${wv}/bundle?include_images=true`);
      expect(r.status, JSON.stringify(r.body)).to.equal(202);
      const job = await waitJob(a.api, r.body.job_id);
      expect(job.status, JSON.stringify(job)).to.equal('succeeded');
      const art = (await a.api.get(`/v1/artifacts/${r.body.artifact_id}`)).body;
      expect(art.contents).to.include({ images: 1, images_reason: null });
      const res = await fetch(`${t.url}/v1/artifacts/${art.id}/download`, {
        headers: { authorization: `Bearer ${a.key}` },
      });
      expect(res.status).to.equal(200);
      const bundle = Buffer.from(await res.arrayBuffer());
      expect(createHash('sha256').update(bundle).digest('hex')).to.equal(art.sha256);

      // what the bundle says: the image is in it, pinned by its id and its archive's sha256
      await writeFile(path.join(dir, 'b.tar.gz'), bundle);
      await extract({ file: path.join(dir, 'b.tar.gz'), cwd: dir });
      const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8'));
      expect(manifest.images).to.deep.equal({ included: true, reason: null, file: 'images.json' });
      const images = JSON.parse(await readFile(path.join(dir, 'images.json'), 'utf8'));
      expect(images).to.include({ included: true, format: 'docker-archive' });
      const shop = images.images.shop;
      expect(shop).to.include({ ref: pin, image_id: imageId, archive: `images/${imageId.slice(7)}.tar` });
      const archive = await readFile(path.join(dir, shop.archive));
      expect(archive.length).to.equal(shop.size_bytes);
      expect(createHash('sha256').update(archive).digest('hex')).to.equal(shop.sha256);

      // a clean engine: the image is gone, under every name
      await docker.getImage(imageId).remove({ force: true });
      expect(
        await docker
          .getImage(imageId)
          .inspect()
          .catch(() => null),
      ).to.equal(null);
      expect(
        await docker
          .getImage(pin)
          .inspect()
          .catch(() => null),
      ).to.equal(null);

      // another project imports the bundle as its application's source
      const b = await uploadApp('importer');
      const up = await uploadSource(t.url, b.key, b.appId, bundle, 'world.tar.gz');
      expect(up.status, JSON.stringify(up.body)).to.equal(201);
      expect(up.body.bundle).to.deep.equal({ world_version_id: wv, world_content_hash: manifest.world_content_hash });
      const imported = up.body.images.loaded.shop as string;
      expect(up.body.images.reason).to.equal(null);
      expect(imported).to.match(
        new RegExp(`^localhost/crucible-tenant/${b.projectId}/${b.appId}:shop-[0-9a-f]{12}@sha256:[0-9a-f]{64}$`),
      );
      const loaded = await docker.getImage(imported).inspect();
      expect(loaded.Id).to.equal(imageId);
      expect(loaded.RepoTags).to.deep.equal([imported.split('@')[0]]);
      expect(
        await docker
          .getImage(pin)
          .inspect()
          .catch(() => null),
        'the exporter’s name is not restored',
      ).to.equal(null);
      const app = (await b.api.get(`/v1/applications/${b.appId}`)).body;
      expect(app).to.include({ source_uploaded: true, catalog: null });
      expect(app.images).to.deep.equal({ shop: imported });

      // built from the imported source and images, one episode runs in containers of the loaded image
      const rebuilt = await buildAndWait(b.api, { application_id: b.appId, scenario_target: 2 });
      expect(rebuilt.job.status, JSON.stringify(rebuilt.job)).to.equal('succeeded');
      const wv2 = rebuilt.build.world_version_id as string;
      const version = (await b.api.get(`/v1/world-versions/${wv2}`)).body;
      expect(version.manifest).to.deep.equal(manifest.manifest);
      const scenario = ((await b.api.get(`/v1/world-versions/${wv2}/scenarios`)).body as any[]).find(
        (s) => s.status === 'approved' && s.split !== 'holdout',
      );
      const reference = await makeProfile(b.api, { name: 'reference', model: 'builtin:reference' });
      const seen = new Set<string>();
      const watching = setInterval(() => {
        docker
          .listContainers({ filters: { label: [`${OWNER_LABEL}=${owner}`, 'crucible.episode'] } })
          .then((list) => list.forEach((c) => seen.add(c.Image)))
          .catch(() => undefined);
      }, 100);
      const started = await evaluate(b.api, {
        world_version_id: wv2,
        profile_ids: [reference.id],
        scenario_ids: [scenario.id],
        repeats: 1,
      });
      const run = await waitRun(b.api, started.run_id).finally(() => clearInterval(watching));
      expect(run.status, JSON.stringify(run)).to.equal('finished');
      const episodes = await runEpisodes(b.api, started.run_id);
      expect(episodes).to.have.length(1);
      expect(episodes[0].status).to.equal('finished');
      expect(episodes[0].reward).to.be.at.least(0.95);
      expect(
        [...seen].some((image) => image === imported || image.startsWith(imported.split('@')[0]!)),
        [...seen].join(', '),
      ).to.equal(true);
    });
  },
);
