import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadApplicationSource, type ApplicationSource, type WorldManifest } from '../../world/index.js';
import { ChildProcessSandboxes, SandboxPool, type PoolKey } from '../../world-worker/sandboxes/index.js';
import { CATALOG_APPS } from '../support/episode-harness.js';

/** True while `pid` runs. */
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Warm sandboxes (world-worker/sandboxes/pool.ts): lent again only to the same tenant and
 * world version, retired after N episodes, on a failure, on a dead process and on a
 * leftover file, and never pooled for a world whose services cannot reset.
 */
describe('sandbox pool', function () {
  this.timeout(60_000);
  const sandboxes = new ChildProcessSandboxes({ stopGraceMs: 1000 });
  let shop: ApplicationSource;
  let root: string;
  let pool: SandboxPool;
  const a: PoolKey = { tenant: 'prj_a', sourceDigest: 'sha256:one' };

  before(async () => {
    shop = await loadApplicationSource(path.join(CATALOG_APPS, 'shop-support'));
  });
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'crucible-pool-'));
    pool = new SandboxPool(sandboxes, { maxEpisodes: 3, maxIdle: 4, idleMs: 60_000, dataRoot: root });
  });
  afterEach(async () => {
    await pool.stopAll();
    await rm(root, { recursive: true, force: true });
  });
  after(() => sandboxes.stopAll());

  /** Acquires, runs one write through the shop, releases and waits for the restore. */
  async function episode(key: PoolKey, manifest: WorldManifest = shop.manifest, failed = false) {
    const s = await pool.acquire(key, shop.dir, manifest);
    const res = await fetch(`${s.handle.services.shop}/customers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'A', email: 'a@example.org', address: { street: 's', city: 'c', zip: 'z' } }),
    });
    expect(res.status).to.equal(201);
    await s.release(failed);
    await pool.settled();
    return s;
  }

  it('lends a restored sandbox to the next episode of the same tenant and world version, as it started', async () => {
    const first = await episode(a);
    expect(first.warm).to.equal(false);
    expect(pool.idle).to.equal(1);
    const second = await pool.acquire(a, shop.dir, shop.manifest);
    expect(second.warm).to.equal(true);
    expect(second.handle.id).to.equal(first.handle.id);
    expect((await second.handle.probe()).data).to.deep.equal({});
    // the customer of the first episode is gone: the same id is handed out again
    const list = await fetch(`${second.handle.services.shop}/customers?email=a@example.org`);
    expect(((await list.json()) as { customers?: unknown[] }).customers ?? []).to.deep.equal([]);
    await second.release();
  });

  it('never lends a pooled sandbox to another tenant or another world version', async () => {
    const first = await episode(a);
    const others: Array<[PoolKey, WorldManifest]> = [
      [{ tenant: 'prj_b', sourceDigest: a.sourceDigest }, shop.manifest],
      [{ tenant: a.tenant, sourceDigest: 'sha256:two' }, shop.manifest],
      [a, { ...shop.manifest, services: shop.manifest.services.map((s) => ({ ...s, health: '/health?v=2' })) }],
    ];
    for (const [key, manifest] of others) {
      const s = await pool.acquire(key, shop.dir, manifest);
      expect(s.warm, JSON.stringify(key)).to.equal(false);
      expect(s.handle.id).to.not.equal(first.handle.id);
      await s.release(true);
    }
    await pool.settled();
    const again = await pool.acquire(a, shop.dir, shop.manifest);
    expect(again.handle.id).to.equal(first.handle.id);
    await again.release();
  });

  it('hands a sandbox whose restore is under way to the next episode of its key instead of starting another', async () => {
    const first = await pool.acquire(a, shop.dir, shop.manifest);
    await first.release(); // its restore starts now; the next acquire comes before it ends
    expect(pool.idle).to.equal(0);
    const second = await pool.acquire(a, shop.dir, shop.manifest);
    expect(second.warm).to.equal(true);
    expect(second.handle.id).to.equal(first.handle.id);
    // another tenant never waits for it: it gets a sandbox of its own at once
    await second.release();
    const other = await pool.acquire({ tenant: 'prj_b', sourceDigest: a.sourceDigest }, shop.dir, shop.manifest);
    expect(other.warm).to.equal(false);
    expect(other.handle.id).to.not.equal(first.handle.id);
    await other.release();
  });

  it('starts a sandbox of its own when the restore it waited for fails', async () => {
    const first = await pool.acquire(a, shop.dir, shop.manifest);
    // a file the reset does not know: the restore under way finds the sandbox changed and retires it
    await writeFile(path.join(pool.dataDirOf(first.handle)!, 'stray.txt'), 'left behind');
    await first.release();
    const second = await pool.acquire(a, shop.dir, shop.manifest);
    expect(second.warm).to.equal(false);
    expect(second.handle.id).to.not.equal(first.handle.id);
    await pool.settled();
    expect(alive(first.handle.details[0]!.pid!)).to.equal(false);
    await second.release();
  });

  it('retires a sandbox after N episodes and after a failed one, leaving no process', async () => {
    const one = await episode(a);
    await episode(a);
    const third = await episode(a); // the third of maxEpisodes 3: retired
    expect(third.handle.id).to.equal(one.handle.id);
    expect(pool.idle).to.equal(0);
    expect(third.handle.details.map((d) => alive(d.pid!))).to.deep.equal([false]);
    const failed = await episode(a, shop.manifest, true);
    expect(failed.warm).to.equal(false);
    expect(pool.idle).to.equal(0);
    expect(alive(failed.handle.details[0]!.pid!)).to.equal(false);
  });

  it('retires a sandbox whose process died or whose data folder kept a stray file', async () => {
    const first = await episode(a);
    process.kill(-first.handle.details[0]!.pid!, 'SIGKILL');
    while (first.handle.alive()) await new Promise((r) => setTimeout(r, 10)); // the driver saw the exit
    const next = await pool.acquire(a, shop.dir, shop.manifest);
    expect(next.warm).to.equal(false);
    // a file the reset does not know: the restored sandbox is not as it started
    const dataDir = (await pool.dataDirOf(next.handle))!;
    await writeFile(path.join(dataDir, 'stray.txt'), 'left behind');
    await next.release();
    await pool.settled();
    expect(pool.idle).to.equal(0);
    expect(alive(next.handle.details[0]!.pid!)).to.equal(false);
  });

  it('never pools a world whose services declare no reset', async () => {
    const manifest = { ...shop.manifest, services: shop.manifest.services.map(({ reset: _r, ...s }) => s) };
    const first = await episode(a, manifest);
    expect(pool.idle).to.equal(0);
    expect(alive(first.handle.details[0]!.pid!)).to.equal(false);
    expect((await episode(a, manifest)).warm).to.equal(false);
  });
});
