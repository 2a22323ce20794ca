import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { entryDir, readCatalogIndex } from '../../catalog/index.js';
import { ApplicationClient, loadApplicationSource, validateManifest } from '../../world/index.js';
import type { ServiceError } from '../../core/index.js';
import type { IsolationPromise, IsolationTable, SandboxHandle, Sandboxes } from '../../world-worker/sandboxes/index.js';

/** The limits a harness gives its driver (where the driver has limits). */
export const CONTRACT_LIMITS = { memoryMb: 384, pids: 48, cpus: 0.5, dataMb: 24 };

/** The isolation promises, each tried by the hostile fixture (test/fixtures/hostile-app): the drivers' own terms. */
/** What a driver's runner hands the contract. */
export interface SandboxesHarness {
  sandboxes: Sandboxes;
  /** `images` pins for the fixture's and the catalog's services (image key -> pin). */
  images: Record<string, string>;
  /**
   * Whether a sandbox's data outlives its `stop()` in `dataDir` (child processes), or lives
   * only as long as the sandbox (containers: a sized tmpfs, `dataDir` is not mounted).
   */
  dataOutlivesStop: boolean;
  /** Whether anything of this stopped sandbox still runs (processes, containers). */
  leftovers(handle: SandboxHandle, dataDir: string): Promise<string[]>;
  /**
   * Runs a worker in another process that starts the hostile sandbox (which starts a
   * detached process), kills that worker with SIGKILL, starts a fresh driver as the next
   * run of that worker would (reap), and returns what still runs.
   */
  killWorkerThenRestart(fixtureDir: string): Promise<{ before: string[]; after: string[] }>;
  /** Everything of this driver that runs now (containers of its owner; child processes: empty). */
  running(): Promise<string[]>;
  cleanup(): Promise<void>;
}

export const FIXTURE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'hostile-app');
export const fixtureManifest = () =>
  validateManifest(parseYaml(readFileSync(path.join(FIXTURE_DIR, 'world.yaml'), 'utf8')));

const SECRET = `sk-live-crucible-contract-${process.pid}`;
const attempt = async (h: SandboxHandle, what: string, body: unknown = {}) => {
  try {
    const res = await fetch(`${h.services.hostile}/attempt/${what}`, { method: 'POST', body: JSON.stringify(body) });
    return (await res.json()) as Record<string, unknown> & { ok: boolean };
  } catch (err) {
    return { ok: false, died: String(err) };
  }
};
const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve, reject) => {
    import('node:net').then(({ connect }) => {
      const s = connect({ host, port, timeout: 1500 });
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false)).once('timeout', () => (s.destroy(), resolve(false)));
    }, reject);
  });

/**
 * The promises of `Sandboxes` (world-worker/sandboxes/sandboxes.ts) against one driver.
 * `isolation` is the driver's own table (world-worker/sandboxes/isolation.ts), which the
 * suite checks the driver carries: each promise it keeps is tried; each it does not keep
 * is skipped with the table's reason, and for the cheap ones (data, environment, network,
 * source) the suite shows the breach happens, so the fixture is known to detect it.
 */
export function sandboxesContract(
  name: string,
  makeHarness: () => Promise<SandboxesHarness>,
  isolation: IsolationTable,
): void {
  const skips: Partial<Record<IsolationPromise, string>> = Object.fromEntries(
    Object.entries(isolation).filter(([, kept]) => kept !== true),
  );
  describe(`Sandboxes contract: ${name}`, function () {
    this.timeout(180_000);
    let h: SandboxesHarness;
    let hostile: SandboxHandle;
    let hostileData: string;
    const temp: string[] = [];
    const tempDir = async (what: string) => {
      const d = await mkdtemp(path.join(tmpdir(), `crucible-contract-${what}-`));
      temp.push(d);
      return d;
    };
    const manifest = fixtureManifest();

    before(async function () {
      process.env.CRUCIBLE_CONTRACT_SECRET = SECRET; // the worker's own environment
      h = await makeHarness();
      hostileData = await tempDir('data');
      hostile = await h.sandboxes.start(FIXTURE_DIR, manifest, hostileData, { images: h.images });
    });
    after(async function () {
      delete process.env.CRUCIBLE_CONTRACT_SECRET;
      await h?.sandboxes.stopAll();
      await h?.cleanup();
      for (const d of temp) await rm(d, { recursive: true, force: true });
    });

    /** `it` for a kept promise; for a skipped one, the skip (named) and maybe the breach shown. */
    const promise = (
      p: IsolationPromise,
      title: string,
      keep: () => Promise<unknown>,
      breach?: () => Promise<unknown>,
    ) => {
      const why = skips[p];
      if (!why) return it(`${p}: ${title}`, keep);
      it.skip(`${p}: ${title} (not promised: ${why})`, keep);
      if (breach) it(`${p}: not promised, and the fixture shows it (${why})`, breach);
    };

    it('carries the isolation table it is tried against (what workers report to the scheduler)', () => {
      expect(h.sandboxes.isolation).to.deep.equal(isolation);
    });

    it('starts a catalog application healthy, answers calls, and stops leaving nothing running', async () => {
      const entries = await readCatalogIndex();
      const shop = await loadApplicationSource(entryDir(entries.find((e) => e.name === 'shop-support')!));
      const data = await tempDir('shop');
      const handle = await h.sandboxes.start(shop.dir, shop.manifest, data, { images: h.images });
      expect(handle.services.shop).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(((await (await fetch(`${handle.services.shop}/health`)).json()) as { status: string }).status).to.equal(
        'ok',
      );
      const client = new ApplicationClient({ tools: shop.tools, baseUrls: handle.services });
      const created = await client.call('create_customer', { name: 'Ann Lee', email: 'ann@example.com' });
      expect(created.status).to.equal(201);
      await handle.stop();
      expect(await h.leftovers(handle, data)).to.deep.equal([]);
      await handle.stop(); // idempotent
      // state lives in the data dir (the next sandbox on it sees the customer), or in the sandbox (it does not)
      const again = await h.sandboxes.start(shop.dir, shop.manifest, data, { images: h.images });
      const found = await new ApplicationClient({ tools: shop.tools, baseUrls: again.services }).call('find_customer', {
        email: 'ann@example.com',
      });
      expect(found.body).to.deep.equal({ customers: h.dataOutlivesStop ? [created.body] : [] });
      await again.stop();
    });

    it('gives the services of one sandbox one data folder, and sandboxes on other data dirs none of it', async () => {
      const two = structuredClone(manifest);
      two.services.push({ ...structuredClone(two.services[0]!), name: 'second' });
      const sharedDir = await tempDir('shared');
      const handle = await h.sandboxes.start(FIXTURE_DIR, two, sharedDir, { images: h.images });
      const other = await h.sandboxes.start(FIXTURE_DIR, manifest, await tempDir('unshared'), { images: h.images });
      try {
        expect(await attempt(handle, 'fill', { mb: 1, name: 'shared.bin', keep: true })).to.include({ ok: true });
        const second = { ...handle, services: { hostile: handle.services.second! } };
        expect((await attempt(second, 'data')).files).to.deep.equal(['shared.bin']);
        expect((await attempt(other, 'data')).files).not.to.include('shared.bin');
      } finally {
        await handle.stop();
        await other.stop();
      }
      expect(await h.leftovers(handle, sharedDir)).to.deep.equal([]);
    });

    it('fails with the log tail when a service exits before it is healthy, leaving nothing running', async () => {
      const broken = structuredClone(manifest);
      broken.services[0]!.start.command = ['node', '-e', "console.error('disk on fire'); process.exit(3)"];
      const before = await h.running();
      try {
        await h.sandboxes.start(FIXTURE_DIR, broken, await tempDir('broken'), {
          images: h.images,
          healthTimeoutMs: 20_000,
        });
        expect.fail('start should fail');
      } catch (err) {
        expect((err as ServiceError).code).to.equal('unavailable');
        expect((err as Error).message).to.match(/^sandbox service "hostile" exited \(3\) before answering \/health/);
        expect((err as Error).message).to.contain('disk on fire');
      }
      expect(await h.running()).to.deep.equal(before);
    });

    const secrets = async () => {
      const serviceData = await tempDir('service-data');
      await writeFile(path.join(serviceData, 'crucible.sqlite'), 'SECRET-DATABASE');
      const other = await tempDir('other-tenant');
      await writeFile(path.join(other, 'shop.json'), 'SECRET-OTHER-TENANT');
      return [path.join(serviceData, 'crucible.sqlite'), path.join(other, 'shop.json'), serviceData];
    };
    promise(
      'data',
      "reads neither the service's data folder nor another tenant's data",
      async () => {
        for (const file of await secrets())
          expect(await attempt(hostile, 'read', { path: file })).to.include({ ok: false });
      },
      async () =>
        expect((await attempt(hostile, 'read', { path: (await secrets())[0] })).content).to.equal('SECRET-DATABASE'),
    );

    /**
     * Variables of the worker's environment the service can see: the secret set while the
     * worker runs, and those the worker was started with (what /proc/<pid>/environ shows).
     */
    const leakedEnv = async () => {
      const text = JSON.stringify(await attempt(hostile, 'env'));
      const started = readFileSync('/proc/self/environ', 'utf8')
        .split('\0')
        .map((kv) => kv.split(/=(.*)/s).slice(0, 2) as [string, string])
        .filter(([k, v]) => v && v.length >= 6 && !['PATH', 'TZ', 'TERM', 'HOME', 'HOSTNAME', 'PWD'].includes(k));
      const leaks = started.filter(
        ([k, v]) =>
          text.includes(JSON.stringify(`${k}=${v}`).slice(1, -1)) ||
          text.includes(`${JSON.stringify(k)}:${JSON.stringify(v)}`),
      );
      return [...(text.includes(SECRET) ? ['CRUCIBLE_CONTRACT_SECRET'] : []), ...leaks.map(([k]) => k)];
    };
    promise(
      'environment',
      "sees none of the worker's environment",
      async () => expect(await leakedEnv()).to.deep.equal([]),
      async () => expect(await leakedEnv()).not.to.deep.equal([]),
    );

    /** host:port pairs the control plane and stores answer on, as seen from the worker. */
    let controlPlane: Server;
    let targets: Array<[string, number]>;
    const networkTargets = async () => {
      if (targets) return targets;
      controlPlane = createServer((s) => s.destroy());
      await new Promise<void>((r) => controlPlane.listen(0, '0.0.0.0', r)); // like gateway, scheduler, worker
      const cpPort = (controlPlane.address() as { port: number }).port;
      const other = await h.sandboxes.start(FIXTURE_DIR, manifest, await tempDir('other'), { images: h.images });
      const otherPort = Number(new URL(other.services.hostile!).port);
      const hosts = [
        '127.0.0.1',
        ...Object.values(networkInterfaces())
          .flat()
          .filter((a) => a && a.family === 'IPv4' && !a.internal)
          .map((a) => a!.address),
      ];
      const all: Array<[string, number]> = [];
      for (const host of hosts) for (const port of [6379, 4222, cpPort, otherPort]) all.push([host, port]);
      // keep what answers the worker itself (Redis and NATS may listen on loopback only), so a
      // refusal below is the sandbox's doing; the loopback ones must be among them
      targets = [];
      for (const [host, port] of all) if (await reachable(host, port)) targets.push([host, port]);
      for (const port of [6379, 4222, cpPort, otherPort])
        expect(targets, `127.0.0.1:${port} answers the worker`).to.deep.include(['127.0.0.1', port]);
      targets.push(['127.0.0.1', 27017]); // MongoDB, when it runs here
      return targets;
    };
    after(() => controlPlane?.close());
    promise(
      'network',
      'connects to none of Redis, NATS, MongoDB, the control plane ports or another sandbox',
      async () => {
        for (const [host, port] of await networkTargets())
          expect(await attempt(hostile, 'connect', { host, port }), `${host}:${port}`).to.include({ ok: false });
      },
      async () => expect(await attempt(hostile, 'connect', { host: '127.0.0.1', port: 6379 })).to.include({ ok: true }),
    );

    promise(
      'source',
      'cannot write its own source',
      async () => {
        const before = await readFile(path.join(FIXTURE_DIR, 'server.mjs'), 'utf8');
        expect(await attempt(hostile, 'write_source')).to.include({ ok: false });
        expect(await readFile(path.join(FIXTURE_DIR, 'server.mjs'), 'utf8')).to.equal(before);
        expect(existsSync(path.join(FIXTURE_DIR, 'pwned.txt'))).to.equal(false);
      },
      // the breach is not shown: it would change the fixture in the working tree
    );

    promise('cpu', `cannot use more than ${CONTRACT_LIMITS.cpus} CPU`, async () => {
      const got = await attempt(hostile, 'cpu', { threads: 2, ms: 1500 });
      // two busy threads use up to 2 CPUs unlimited; a generous margin over the limit keeps this steady
      expect(got.ratio, JSON.stringify(got)).to.be.below(CONTRACT_LIMITS.cpus * 1.5);
    });

    promise(
      'disk',
      `cannot write more than ${CONTRACT_LIMITS.dataMb} MiB to its data folder, and none of it reaches the worker's disk`,
      async () => {
        const got = await attempt(hostile, 'fill', { mb: CONTRACT_LIMITS.dataMb + 16 });
        expect(got.ok, JSON.stringify(got)).to.equal(false);
        expect(got.error).to.equal('ENOSPC');
        expect(got.written_mb).to.be.at.most(CONTRACT_LIMITS.dataMb);
        expect(await readdir(hostileData)).to.deep.equal([]);
      },
      async () =>
        expect(await attempt(hostile, 'fill', { mb: CONTRACT_LIMITS.dataMb + 16 })).to.include({
          ok: true,
          written_mb: CONTRACT_LIMITS.dataMb + 16,
        }),
    );

    promise('processes', `cannot run more than ${CONTRACT_LIMITS.pids} processes and threads`, async () => {
      const got = await attempt(hostile, 'tasks', { count: CONTRACT_LIMITS.pids + 10 });
      expect(got.ok, JSON.stringify(got)).to.equal(false);
      expect(got.started).to.be.below(CONTRACT_LIMITS.pids);
    });

    promise('detached', 'leaves nothing running after stop, not even a process it detached', async () => {
      const data = await tempDir('detach');
      const handle = await h.sandboxes.start(FIXTURE_DIR, manifest, data, { images: h.images });
      expect(await attempt(handle, 'detach')).to.include({ ok: true });
      await handle.stop();
      expect(await h.leftovers(handle, data)).to.deep.equal([]);
    });

    promise('worker-killed', 'leaves nothing running once a killed worker starts again', async () => {
      const { before, after } = await h.killWorkerThenRestart(FIXTURE_DIR);
      expect(before, 'the killed worker left its sandbox running').not.to.deep.equal([]);
      expect(after).to.deep.equal([]);
    });

    // last: it may kill the hostile service
    promise('memory', `cannot hold more than ${CONTRACT_LIMITS.memoryMb} MiB`, async () => {
      const got = await attempt(hostile, 'memory', { mb: CONTRACT_LIMITS.memoryMb + 128 });
      expect(got.ok, JSON.stringify(got).slice(0, 300)).to.equal(false);
    });

    it('stopAll stops every sandbox it started', async () => {
      const data = await tempDir('all');
      const handle = await h.sandboxes.start(FIXTURE_DIR, manifest, data, { images: h.images });
      await mkdir(data, { recursive: true });
      await h.sandboxes.stopAll();
      expect(await h.leftovers(handle, data)).to.deep.equal([]);
      expect(await h.leftovers(hostile, hostileData)).to.deep.equal([]);
    });
  });
}
