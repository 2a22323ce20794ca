import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ServiceError } from '../../core/errors.js';
import { entryDir, readCatalogIndex } from '../../catalog/index.js';
import {
  ApplicationClient,
  loadApplicationSource,
  validateManifest,
  type ApplicationSource,
} from '../../world/index.js';
import { ChildProcessSandboxes, DockerSandboxes, freePort } from '../../world-worker/sandboxes/index.js';
import { containerEngine } from '../support/containers.js';
import { skipBecause } from '../support/skips.js';

/** True while `pid` runs. A zombie (killed, not yet reaped by its new parent) counts as gone. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
};

/** Waits up to 2 s for the kernel to finish delivering SIGKILL to every pid. */
async function goneSoon(pids: number[]): Promise<boolean> {
  for (let i = 0; i < 40 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
  return !pids.some(alive);
}

/** A one-service source whose server is the given script. */
async function scriptSource(script: string): Promise<{ dir: string; manifest: ReturnType<typeof validateManifest> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'crucible-bad-src-'));
  await writeFile(path.join(dir, 'server.mjs'), script);
  const manifest = validateManifest({
    name: 'bad',
    services: [
      {
        name: 'svc',
        start: { command: ['node', 'server.mjs'], env: { WHERE: '{data}/x', SELF: 'port {port}' } },
        port_env: 'PORT',
        openapi: 'o.yaml',
      },
    ],
    roles: [{ name: 'a', instructions: 'x', tools: [], complete: true }],
    customer: { channel: 'chat' },
    scenarios: 's/*.yaml',
  });
  return { dir, manifest };
}

describe('sandboxes: child processes', function () {
  this.timeout(30_000);
  const sandboxes = new ChildProcessSandboxes({ stopGraceMs: 1000 });
  const cleanup: string[] = [];
  let shop: ApplicationSource;
  let clinic: ApplicationSource;

  before(async () => {
    const entries = await readCatalogIndex();
    shop = await loadApplicationSource(entryDir(entries.find((e) => e.name === 'shop-support')!));
    clinic = await loadApplicationSource(entryDir(entries.find((e) => e.name === 'clinic-booking')!));
  });
  after(async () => {
    await sandboxes.stopAll();
    for (const d of cleanup) await rm(d, { recursive: true, force: true });
  });
  const dataDir = async () => {
    const d = await mkdtemp(path.join(tmpdir(), 'crucible-sbx-'));
    cleanup.push(d);
    return d;
  };

  it('starts every service on its own loopback port, healthy, and stops them leaving no process', async () => {
    const handle = await sandboxes.start(clinic.dir, clinic.manifest, await dataDir());
    expect(Object.keys(handle.services)).to.deep.equal(['patients', 'scheduling']);
    const pids = handle.details.map((d) => d.pid!);
    expect(new Set(Object.values(handle.services)).size).to.equal(2);
    for (const [name, url] of Object.entries(handle.services)) {
      expect(url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${url}/health`);
      expect(await res.json()).to.deep.equal({ status: 'ok', service: name });
    }
    expect(pids.every(alive)).to.equal(true);
    await handle.stop();
    expect(pids.some(alive)).to.equal(false);
    await handle.stop(); // idempotent
  });

  it('keeps state across a restart on the same data dir, written atomically', async () => {
    const data = await dataDir();
    const first = await sandboxes.start(shop.dir, shop.manifest, data);
    const client1 = new ApplicationClient({ tools: shop.tools, baseUrls: first.services });
    const created = await client1.call('create_customer', { name: 'Ann Lee', email: 'ann@example.com' });
    expect(created.status).to.equal(201);
    await first.stop();

    expect(await readdir(data)).to.deep.equal(['shop.json']);
    expect(JSON.parse(await readFile(path.join(data, 'shop.json'), 'utf8')).customers).to.have.length(1);

    const second = await sandboxes.start(shop.dir, shop.manifest, data);
    const client2 = new ApplicationClient({ tools: shop.tools, baseUrls: second.services });
    const found = await client2.call('find_customer', { email: 'ann@example.com' });
    expect(found.body).to.deep.equal({ customers: [created.body] });
    await second.stop();
  });

  it('does not share state between data dirs', async () => {
    const [a, b] = await Promise.all([
      sandboxes.start(shop.dir, shop.manifest, await dataDir()),
      sandboxes.start(shop.dir, shop.manifest, await dataDir()),
    ]);
    await new ApplicationClient({ tools: shop.tools, baseUrls: a.services }).call('create_customer', {
      name: 'A',
      email: 'a@example.com',
    });
    const inB = await new ApplicationClient({ tools: shop.tools, baseUrls: b.services }).call('find_customer', {});
    expect(inB.body).to.deep.equal({ customers: [] });
    await Promise.all([a.stop(), b.stop()]);
  });

  it('fills {data} and {port} in the environment', async () => {
    const { dir, manifest } = await scriptSource(
      `import http from 'node:http';
       http.createServer((q, s) => s.end(JSON.stringify({ where: process.env.WHERE, self: process.env.SELF, port: process.env.PORT, path: process.env.PATH ? 'set' : 'unset', secret: process.env.HOME_SECRET ?? null }))).listen(Number(process.env.PORT), '127.0.0.1');`,
    );
    cleanup.push(dir);
    const data = await dataDir();
    const handle = await sandboxes.start(dir, manifest, data);
    const port = new URL(handle.services.svc!).port;
    const env = (await (await fetch(`${handle.services.svc}/health`)).json()) as Record<string, unknown>;
    expect(env).to.deep.equal({ where: `${data}/x`, self: `port ${port}`, port, path: 'set', secret: null });
    await handle.stop();
  });

  it('fails clearly with the stderr tail when a service exits, leaving nothing running', async () => {
    const { dir, manifest } = await scriptSource(
      `console.error('cannot open the database: disk on fire'); process.exit(3);`,
    );
    cleanup.push(dir);
    try {
      await sandboxes.start(dir, manifest, await dataDir(), { healthTimeoutMs: 5000 });
      expect.fail('start should fail');
    } catch (err) {
      expect(err).to.be.instanceOf(ServiceError);
      expect((err as ServiceError).code).to.equal('unavailable');
      expect((err as Error).message).to.match(
        /^sandbox service "svc" exited \(3\) before answering \/health; stderr tail: cannot open the database: disk on fire/,
      );
    }
  });

  it('fails after the health timeout when a service never gets healthy, and kills its whole process group', async () => {
    const { dir, manifest } = await scriptSource(
      `import http from 'node:http';
       import { spawn } from 'node:child_process';
       import { writeFileSync } from 'node:fs';
       const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
       writeFileSync(process.env.WHERE, String(child.pid));
       console.error('warming up forever');
       http.createServer((q, s) => { s.statusCode = 503; s.end('{}'); }).listen(Number(process.env.PORT), '127.0.0.1');`,
    );
    cleanup.push(dir);
    const data = await dataDir();
    await mkdir(data, { recursive: true });
    try {
      await sandboxes.start(dir, manifest, data, { healthTimeoutMs: 800 });
      expect.fail('start should fail');
    } catch (err) {
      expect((err as ServiceError).code).to.equal('unavailable');
      expect((err as Error).message).to.contain(
        'did not answer /health within 800 ms; stderr tail: warming up forever',
      );
    }
    const grandchild = Number(await readFile(path.join(data, 'x'), 'utf8'));
    expect(grandchild).to.be.greaterThan(0);
    expect(await goneSoon([grandchild])).to.equal(true);
  });

  it('never hands out one port twice in a row of starts (the kernel may, once it was freed)', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 300; i++) ports.push(await freePort());
    expect(new Set(ports).size).to.equal(ports.length);
  });

  it('stopAll stops every sandbox it started', async () => {
    const handles = await Promise.all([
      sandboxes.start(shop.dir, shop.manifest, await dataDir()),
      sandboxes.start(shop.dir, shop.manifest, await dataDir()),
    ]);
    const pids = handles.flatMap((h) => h.details.map((d) => d.pid!));
    expect(pids.every(alive)).to.equal(true);
    await sandboxes.stopAll();
    expect(pids.some(alive)).to.equal(false);
  });
});

describe('sandboxes: containers', function () {
  it('refuses an image that is not pinned by digest, before contacting the engine', async () => {
    const entries = await readCatalogIndex();
    const shop = await loadApplicationSource(entryDir(entries[0]!));
    const pin = `127.0.0.1:1/runtime:1@sha256:${'0'.repeat(64)}`;
    const docker = new DockerSandboxes({ dockerHost: 'unix:///nonexistent.sock', relayImage: pin, owner: 'never' });
    for (const images of [{}, { shop: 'node:20-alpine' }] as Array<Record<string, string>>) {
      try {
        await docker.start(shop.dir, shop.manifest, path.join(tmpdir(), 'never-used'), { images });
        expect.fail('start should fail');
      } catch (err) {
        expect((err as ServiceError).code).to.equal('bad_request');
      }
    }
  });

  it('pulls a missing image by its digest from the registry, then runs on it', async function () {
    if (process.env.CRUCIBLE_SKIP_CONTAINERS === '1')
      skipBecause(this, 'CRUCIBLE_SKIP_CONTAINERS=1 asks to skip the container suites', 'podman');
    this.timeout(120_000);
    const engine = containerEngine()!;
    const sandboxes = new DockerSandboxes({
      dockerHost: engine.dockerHost,
      relayImage: engine.runtimeImage,
      owner: `pull-${process.pid}`,
    });
    // gone from the engine's store (unless a container of another run holds it right now)
    await sandboxes.docker
      .getImage(engine.runtimeImage)
      .remove()
      .catch(() => undefined);
    const entries = await readCatalogIndex();
    const shop = await loadApplicationSource(entryDir(entries.find((e) => e.name === 'shop-support')!));
    const data = await mkdtemp(path.join(tmpdir(), 'crucible-pull-'));
    const handle = await sandboxes.start(shop.dir, shop.manifest, data, { images: { shop: engine.runtimeImage } });
    try {
      const info = await sandboxes.docker.getImage(engine.runtimeImage).inspect();
      expect(info.RepoDigests?.some((d) => engine.runtimeImage.endsWith(d.slice(d.indexOf('@'))))).to.equal(true);
      expect((await fetch(`${handle.services.shop}/health`)).status).to.equal(200);
    } finally {
      await handle.stop();
      await rm(data, { recursive: true, force: true });
    }
  });
  // The engine-backed isolation promises are in test/contract/sandboxes-container.test.ts.
});
