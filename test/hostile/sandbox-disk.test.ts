import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DockerSandboxes, type SandboxHandle } from '../../world-worker/sandboxes/index.js';
import { FIXTURE_DIR, fixtureManifest } from '../contract/sandboxes.contract.js';
import { containerEngineOrSkip } from '../support/containers.js';

const DATA_MB = 16;

/** One attempt of the hostile fixture's service `service` (test/fixtures/hostile-app/server.mjs). */
const attempt = async (h: SandboxHandle, service: string, what: string, body: unknown = {}) => {
  const res = await fetch(`${h.services[service]}/attempt/${what}`, { method: 'POST', body: JSON.stringify(body) });
  return (await res.json()) as Record<string, any>;
};

describe('hostile tenant: filling the disk from a container sandbox', function () {
  this.timeout(180_000);
  let sandboxes: DockerSandboxes;
  let handle: SandboxHandle;
  let dataDir: string;

  before(async function () {
    const engine = containerEngineOrSkip(this);
    sandboxes = new DockerSandboxes({
      dockerHost: engine.dockerHost,
      relayImage: engine.runtimeImage,
      owner: `hostile-disk-${randomBytes(4).toString('hex')}`,
      limits: { memoryMb: 256, pids: 64, cpus: 1, dataMb: DATA_MB },
    });
    // two services of one application, sharing the sandbox's data folder and its one quota
    const manifest = fixtureManifest();
    manifest.services.push({ ...structuredClone(manifest.services[0]!), name: 'second' });
    dataDir = await mkdtemp(path.join(tmpdir(), 'crucible-hostile-disk-'));
    handle = await sandboxes.start(FIXTURE_DIR, manifest, dataDir, { images: { runtime: engine.runtimeImage } });
  });
  after(async () => {
    await sandboxes?.stopAll();
    await sandboxes?.reap();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('writing past SANDBOX_DATA_MB fails inside the sandbox with ENOSPC, and the worker disk gets none of it', async () => {
    const got = await attempt(handle, 'hostile', 'fill', { mb: DATA_MB * 4, keep: true });
    expect(got, JSON.stringify(got)).to.include({ ok: false, error: 'ENOSPC' });
    expect(got.written_mb).to.be.within(DATA_MB - 2, DATA_MB);
    expect(await readdir(dataDir)).to.deep.equal([]);
  });

  it("the quota is the sandbox's, not each service's: a second service cannot add its own", async () => {
    const got = await attempt(handle, 'second', 'fill', { mb: DATA_MB, name: 'second.bin' });
    expect(got).to.include({ ok: false, error: 'ENOSPC' });
    expect(got.written_mb).to.be.below(2);
    expect((await attempt(handle, 'second', 'data')).files).to.deep.equal(['fill.bin']);
  });

  it("no folder of the worker's disk is mounted writable into the service", async () => {
    for (const d of handle.details) {
      const info = await sandboxes.docker.getContainer(d.containerId!).inspect();
      const writable = info.Mounts.filter((m) => m.Type === 'bind' && m.RW);
      expect(writable, JSON.stringify(info.Mounts)).to.deep.equal([]);
    }
  });

  it("flooding standard output keeps at most about 1 MiB of it on the engine's disk", async () => {
    expect(await attempt(handle, 'hostile', 'shout', { mb: 8 })).to.include({ ok: true });
    const container = sandboxes.docker.getContainer(handle.details[0]!.containerId!);
    const logs = async (tail?: number) =>
      (await container.logs({
        stdout: true,
        stderr: true,
        follow: false,
        ...(tail ? { tail } : {}),
      })) as unknown as Buffer;
    // wait until the engine has stored the end of it, so what it kept is what it will keep
    const deadline = Date.now() + 30_000;
    while (!(await logs(3)).toString().includes('shout done') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect((await logs(3)).toString()).to.contain('shout done');
    expect((await logs()).length).to.be.below(2 * 1024 * 1024);
  });

  it('the sandbox keeps answering once full, and stopping it leaves no container and no data', async () => {
    expect(await attempt(handle, 'hostile', 'data')).to.include({ ok: true });
    await handle.stop();
    expect(await readdir(dataDir)).to.deep.equal([]);
    const left = await sandboxes.docker.listContainers({
      all: true,
      filters: { label: [`crucible.sandbox=${handle.id}`] },
    });
    expect(left.map((c) => c.Names)).to.deep.equal([]);
  });

  it("a dead worker's two-service sandbox is reaped whole by its next start", async function () {
    const engine = containerEngineOrSkip(this);
    const owner = `hostile-disk-reap-${randomBytes(4).toString('hex')}`;
    const make = () =>
      new DockerSandboxes({
        dockerHost: engine.dockerHost,
        relayImage: engine.runtimeImage,
        owner,
        limits: { dataMb: 8 },
      });
    const manifest = fixtureManifest();
    manifest.services.push({ ...structuredClone(manifest.services[0]!), name: 'second' });
    await make().start(FIXTURE_DIR, manifest, dataDir, { images: { runtime: engine.runtimeImage } });
    const owned = () => sandboxes.docker.listContainers({ all: true, filters: { label: [`crucible.owner=${owner}`] } });
    expect((await owned()).length).to.equal(4); // two services, two relays
    expect(await make().reap()).to.equal(4); // what the next start of that worker does
    expect(await owned()).to.deep.equal([]);
  });
});
