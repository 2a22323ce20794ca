import { expect } from 'chai';
import Docker from 'dockerode';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';
import { Collections } from '../../core/collections.js';
import { parseDockerHost } from '../../world-worker/sandboxes/index.js';
import { bundleWith, plainTar, tinyImage } from '../support/bundles.js';
import { containerEngine } from '../support/containers.js';
import { MAX_BUNDLE_UNPACKED_BYTES } from '../../scheduler/applications/bundle-import.js';
import { client, startTestService, type TestService } from '../support/service.js';
import { catalogApp, copyDir, packDir, uploadSource } from '../support/sources.js';

type Client = ReturnType<typeof client>;

/** A workspace on the team plan with one upload application; its key, client and ids. */
async function tenant(t: TestService, name: string) {
  const ws = await t.workspace(name);
  await t.svc.adapters.store.update(Collections.organizations, ws.organizationId, { plan_override: 'team' });
  const api: Client = client(t.url, ws.key);
  const app = await api.post('/v1/applications', { name: `${name}-app`, source: { kind: 'upload' } });
  expect(app.status, JSON.stringify(app.body)).to.equal(201);
  return { ...ws, api, appId: app.body.id as string };
}

/**
 * Hostile tenants and world bundles with images (docs/security.md, "Attacks and the tests
 * that show they fail"): a bundle is a tenant's upload, so what it carries is the tenant's
 * code, and nothing in it may choose an image name in the shared container engine. The
 * images are tiny real docker-archives (test/support/bundles.ts), loaded into podman for real.
 */
(process.env.CRUCIBLE_SKIP_CONTAINERS === '1' ? describe.skip : describe)('hostile: bundles with images', function () {
  this.timeout(300_000);
  let t: TestService;
  let docker: Docker;
  let runtime: string;
  let source: Buffer;
  const run = `${process.pid}-${Date.now()}`;
  const made: string[] = [];

  const idOf = async (ref: string): Promise<string | null> =>
    (
      await docker
        .getImage(ref)
        .inspect()
        .catch(() => null)
    )?.Id ?? null;

  before(async () => {
    const engine = containerEngine()!;
    runtime = engine.runtimeImage;
    docker = new Docker(parseDockerHost(engine.dockerHost).options);
    t = await startTestService({
      SANDBOX: 'container',
      DOCKER_HOST: engine.dockerHost,
      SANDBOX_RUNTIME_IMAGE: engine.runtimeImage,
      WORKER_ID: `wkr-hostile-bundles-${run}`,
    });
    source = await packDir(catalogApp('shop-support'));
  });
  after(async () => {
    for (const id of made)
      await docker
        .getImage(id)
        .remove({ force: true })
        .catch(() => undefined);
    await t?.close();
  });

  it("an image archive naming the operator's runtime image and another project's image loads under the importer's name only", async () => {
    // the operator's image, present in the engine under its tag (a pull by digest names nothing)
    const operatorTag = runtime.split('@')[0]!;
    if (!(await idOf(operatorTag))) {
      const s = await docker.pull(operatorTag);
      await new Promise((res, rej) => docker.modem.followProgress(s, (e: Error | null) => (e ? rej(e) : res(null))));
    }
    const operatorId = await idOf(runtime);
    expect(operatorId, `${runtime} is not in the engine`).to.be.a('string');
    expect(await idOf(operatorTag), `${operatorTag} does not name ${runtime}`).to.equal(operatorId);
    // another project imports an image of its own
    const victim = await tenant(t, 'victim');
    const own = tinyImage(`victim-${run}`);
    made.push(own.imageId);
    const v = await uploadSource(t.url, victim.key, victim.appId, bundleWith(source, { shop: own }));
    expect(v.status, JSON.stringify(v.body)).to.equal(201);
    const victimPin = v.body.images.loaded.shop as string;
    expect(victimPin).to.match(new RegExp(`^localhost/crucible-tenant/${victim.projectId}/${victim.appId}:shop-`));
    // the attacker's archive names both, in every place an engine reads names from
    const attacker = await tenant(t, 'attacker');
    const victimTag = victimPin.split('@')[0]!;
    const names = [operatorTag, victimTag, 'crucible-tenant/x/y:z'];
    const evil = tinyImage(`attacker-${run}`, {
      repoTags: names,
      extra: [
        ['repositories', Buffer.from(JSON.stringify({ [operatorTag.split(':')[0]!]: { latest: 'x' } }))],
        ['oci-layout', Buffer.from('{"imageLayoutVersion":"1.0.0"}')],
        [
          'index.json',
          Buffer.from(
            JSON.stringify({
              schemaVersion: 2,
              manifests: [{ annotations: { 'io.containerd.image.name': operatorTag } }],
            }),
          ),
        ],
      ],
    });
    made.push(evil.imageId);
    const r = await uploadSource(t.url, attacker.key, attacker.appId, bundleWith(source, { shop: evil }));
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    const pin = r.body.images.loaded.shop as string;
    expect(pin).to.match(new RegExp(`^localhost/crucible-tenant/${attacker.projectId}/${attacker.appId}:shop-`));
    // the image is loaded, with only the attacker's own name
    const loaded = await docker.getImage(evil.imageId).inspect();
    expect(loaded.RepoTags).to.deep.equal([pin.split('@')[0]]);
    // and the names it carried still point where they did
    expect(await idOf(runtime)).to.equal(operatorId);
    expect(await idOf(operatorTag)).to.equal(operatorId);
    expect(await idOf(victimPin)).to.equal(own.imageId);
    expect(await idOf(victimTag)).to.equal(own.imageId);
  });

  it('an archive whose config is not the image id images.json declares is refused (422) and nothing is loaded', async () => {
    const attacker = await tenant(t, 'liar-config');
    const lie = tinyImage(`config-lie-${run}`, { lie: 'config' });
    const r = await uploadSource(t.url, attacker.key, attacker.appId, bundleWith(source, { shop: lie }));
    expect(r.status, JSON.stringify(r.body)).to.equal(422);
    expect(JSON.stringify(r.body.detail)).to.match(/config is not/);
    expect(await idOf(lie.imageId)).to.equal(null);
    const app = await attacker.api.get(`/v1/applications/${attacker.appId}`);
    expect(app.body).to.include({ images: null, source_uploaded: false });
  });

  it("a layer that differs from its config's diff_id is refused (422)", async () => {
    const attacker = await tenant(t, 'liar-layer');
    const lie = tinyImage(`layer-lie-${run}`, { lie: 'layer' });
    const r = await uploadSource(t.url, attacker.key, attacker.appId, bundleWith(source, { shop: lie }));
    expect(r.status, JSON.stringify(r.body)).to.equal(422);
    expect(JSON.stringify(r.body.detail)).to.match(/layer 1 .* does not match its config/);
    expect(await idOf(lie.imageId)).to.equal(null);
  });

  it('an archive whose bytes differ from the sha256 images.json gives it is refused (422)', async () => {
    const attacker = await tenant(t, 'liar-sha');
    const image = tinyImage(`sha-lie-${run}`);
    const r = await uploadSource(
      t.url,
      attacker.key,
      attacker.appId,
      bundleWith(source, { shop: { ...image, sha256: 'f'.repeat(64) } }),
    );
    expect(r.status, JSON.stringify(r.body)).to.equal(422);
    expect(JSON.stringify(r.body.detail)).to.match(/does not hash to the sha256/);
    expect(await idOf(image.imageId)).to.equal(null);
  });

  it('images.json pointing an archive outside images/ is refused (422)', async () => {
    const attacker = await tenant(t, 'climber');
    const image = tinyImage(`climb-${run}`);
    const imagesJson = {
      included: true,
      images: {
        shop: { image_id: image.imageId, archive: '../../etc/passwd', sha256: image.sha256, ref: 'x' },
      },
    };
    const r = await uploadSource(
      t.url,
      attacker.key,
      attacker.appId,
      bundleWith(source, { shop: image }, { imagesJson }),
    );
    expect(r.status, JSON.stringify(r.body)).to.equal(422);
    expect(JSON.stringify(r.body.detail)).to.match(/archive must be images\//);
  });

  it('an image key that is not a plain name (a tag or path of its own) is refused (422)', async () => {
    const attacker = await tenant(t, 'key-smuggler');
    const image = tinyImage(`key-${run}`);
    const r = await uploadSource(
      t.url,
      attacker.key,
      attacker.appId,
      bundleWith(source, { '../../operator:latest': image }),
    );
    expect(r.status, JSON.stringify(r.body)).to.equal(422);
    expect(JSON.stringify(r.body.detail)).to.match(/image key/);
    expect(await idOf(image.imageId)).to.equal(null);
  });

  it("pinning another project's imported image on an application is refused (422)", async () => {
    const victim = await tenant(t, 'victim-2');
    const own = tinyImage(`victim2-${run}`);
    made.push(own.imageId);
    const v = await uploadSource(t.url, victim.key, victim.appId, bundleWith(source, { shop: own }));
    expect(v.status, JSON.stringify(v.body)).to.equal(201);
    const victimPin = v.body.images.loaded.shop as string;
    const attacker = await tenant(t, 'borrower');
    for (const pin of [
      victimPin,
      victimPin.replace(/^localhost\//, ''),
      victimPin.toUpperCase().replace(/SHA256:.*/, (d) => d.toLowerCase()),
    ]) {
      const r = await attacker.api.post('/v1/applications', {
        name: `borrow-${pin.length}-${Math.random()}`,
        source: { kind: 'upload' },
        images: { shop: pin },
      });
      expect(r.status, `${pin}: ${JSON.stringify(r.body)}`).to.equal(422);
      expect(JSON.stringify(r.body.detail)).to.match(/another project imported/);
    }
    // its own project may pin it (a second application of the victim)
    const mine = await victim.api.post('/v1/applications', {
      name: 'victim-second',
      source: { kind: 'upload' },
      images: { shop: victimPin },
    });
    expect(mine.status, JSON.stringify(mine.body)).to.equal(201);
  });

  /** A gzipped bundle ending in a header that declares `size` bytes for `name`, with no body behind it. */
  const declaring = (name: string, size: number): Buffer => {
    const big = Buffer.alloc(512);
    new Header({ path: name, type: 'File', mode: 0o644, size, mtime: new Date(0), uid: 0, gid: 0 }).encode(big, 0);
    return gzipSync(
      Buffer.concat([
        plainTar([
          ['manifest.json', Buffer.from('{}')],
          ['source.tar.gz', source],
        ]).subarray(0, -1024),
        big,
        Buffer.alloc(1024),
      ]),
    );
  };

  it('a bundle declaring an image archive past the limit (an archive bomb) is refused (422) before it reaches the disk', async () => {
    const attacker = await tenant(t, 'bomber');
    const bytes = declaring(`images/${'a'.repeat(64)}.tar`, MAX_BUNDLE_UNPACKED_BYTES + 1);
    const r = await uploadSource(t.url, attacker.key, attacker.appId, bytes);
    expect(r.status, JSON.stringify(r.body)).to.equal(422);
    expect(JSON.stringify(r.body.detail)).to.match(/over its limit of 1073741824 bytes/);
  });

  it("a bundle whose source.tar.gz is past an upload's limit is refused (422) before it is read", async () => {
    const attacker = await tenant(t, 'big-source');
    const r = await uploadSource(
      t.url,
      attacker.key,
      attacker.appId,
      declaring('source.tar.gz', t.config.maxUploadBytes + 1),
    );
    expect(r.status, JSON.stringify(r.body)).to.equal(422);
    expect(JSON.stringify(r.body.detail)).to.match(/source.tar.gz.* over its limit/);
    const app = await attacker.api.get(`/v1/applications/${attacker.appId}`);
    expect(app.body.source_uploaded).to.equal(false);
  });
});

/**
 * Without containers: an imported bundle is tenant code whatever its manifest claims, so an
 * installation of child-process sandboxes refuses to build it, and the upload says why its
 * images were not loaded.
 */
describe('hostile: bundles on an installation without containers', function () {
  this.timeout(120_000);
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(async () => {
    await t?.close();
  });

  it('a bundle of an operator (catalog) world with its code changed, uploaded by a tenant, is tenant code whatever its manifest claims: building it is refused (403)', async () => {
    const attacker = await tenant(t, 'catalog-claimer');
    // trust follows the bytes (world-worker/sandboxes/trust.ts): the catalog's exact files are the
    // catalog's code however they arrive, so the attacker changes one file, as a real attack would
    const changed = mkdtempSync(path.join(tmpdir(), 'claimer-'));
    copyDir(catalogApp('shop-support'), changed);
    writeFileSync(path.join(changed, 'attacker.mjs'), 'export const x = 1;\n');
    const bundle = bundleWith(
      await packDir(changed),
      { shop: tinyImage(`claims-${process.pid}`) },
      { manifest: { provenance: { catalog: 'shop-support', trust: 'operator' }, catalog: { name: 'shop-support' } } },
    );
    const r = await uploadSource(t.url, attacker.key, attacker.appId, bundle);
    expect(r.status, JSON.stringify(r.body)).to.equal(201);
    expect(r.body.images.loaded).to.deep.equal({});
    expect(r.body.images.reason).to.match(/child processes/);
    const app = await attacker.api.get(`/v1/applications/${attacker.appId}`);
    expect(app.body).to.include({ catalog: null, images: null });
    expect(app.body.source).to.deep.equal({ kind: 'upload' });
    const build = await attacker.api.post('/v1/world-builds', { application_id: attacker.appId });
    expect(build.status, JSON.stringify(build.body)).to.equal(403);
    expect(JSON.stringify(build.body.detail)).to.match(/tenant code|trust/);
  });
});
