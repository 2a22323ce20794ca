import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adaptersWhenReachable } from '../../cli/roles.js';
import { nextPageOf } from '../../cli/api-client.js';
import { MemoryLeases } from '../../core/adapters/memory-leases.js';
import { RedisLeases } from '../../core/adapters/redis-leases.js';
import { loadConfig } from '../../core/config.js';
import { createLogger } from '../../core/log.js';
import { startOpsServer } from '../../core/ops-server.js';
import { startScheduler } from '../../scheduler/index.js';
import { Placement } from '../../scheduler/runs/shards/placement.js';
import { WorkerRegistry } from '../../scheduler/workers.js';
import { cli } from '../support/cli-process.js';
import { controlPlaneFiles, freePort } from '../support/roles.js';
import { ControlPlane } from '../../core/control-plane.js';
import { catalogWorkspace, evaluate, makeProfile, waitRun } from '../support/runs.js';
import { startTestService, type TestService } from '../support/service.js';
import { chooseAdapters } from '../../core/choose-adapters.js';
import { adminWorkers } from '../../cli/admin-workers.js';

async function expectError(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  try {
    await p;
  } catch (err) {
    expect(String((err as Error).message)).to.match(pattern);
    return;
  }
  throw new Error(`expected a refusal matching ${pattern}`);
}

const logger = createLogger('silent');

/** The value of one sample of a Prometheus text answer (labels as written), or null. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-z_]+)(\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[4]);
  }
  return null;
}

/**
 * Operators in control (issue 14, item 7): /healthz, /readyz and /metrics on every role,
 * worker drain and undrain, and roles that wait for engines that start late.
 */
describe('operations: health, readiness, metrics, drain', function () {
  this.timeout(600_000);

  describe('the embedded service', () => {
    let t: TestService;
    let ops: string;
    before(async () => {
      t = await startTestService({ OPS_PORT: '0' });
      ops = t.svc.gateway.opsUrl!;
    });
    after(async () => t?.close());

    it('answers /healthz on both ports, /readyz (store, leases and scheduler checked) on the operator port only', async () => {
      expect(new URL(ops).hostname).to.equal('127.0.0.1');
      expect(new URL(ops).port).not.to.equal(new URL(t.url).port);
      for (const base of [t.url, ops]) {
        const live = await fetch(`${base}/healthz`);
        expect(live.status).to.equal(200);
        expect(await live.json()).to.deep.equal({ status: 'ok' });
      }
      for (const p of ['/readyz', '/metrics']) expect((await fetch(`${t.url}${p}`)).status, p).to.equal(404);
      const ready = await fetch(`${ops}/readyz`);
      expect(ready.status).to.equal(200);
      expect(await ready.json()).to.deep.equal({
        status: 'ready',
        checks: { store: 'ok', leases: 'ok', scheduler: 'ok' },
      });
    });

    it('a run shows in the metrics of every role; its episodes page with Link', async () => {
      const cw = await catalogWorkspace(t, { apps: ['shop-support'], scenarioTarget: 3 });
      const reference = await makeProfile(cw.admin, { name: 'reference', model: 'builtin:reference' });
      const started = await evaluate(cw.admin, {
        world_version_id: cw.worlds.get('shop-support')!,
        profile_ids: [reference.id],
        repeats: 2,
      });
      const run = await waitRun(cw.admin, started.run_id);
      expect(run.status).to.equal('finished');
      expect(run.summary.episodes).to.include({ planned: started.episodes, queued: 0, running: 0 });

      // the run's episodes, two per page, every attempt once
      const seen: string[] = [];
      let url: string | null = `/v1/runs/${started.run_id}/episodes?limit=2`;
      while (url) {
        const r = await cw.admin.get(url);
        expect(r.status).to.equal(200);
        seen.push(...r.body.map((e: any) => e.id));
        url = nextPageOf(r.headers.get('link'));
      }
      expect(seen.length).to.equal(run.summary.episodes.attempts);
      expect(new Set(seen).size).to.equal(seen.length);

      const res = await fetch(`${ops}/metrics`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      const text = await res.text();
      const worker = t.svc.worker.id;
      expect(
        sample(text, 'crucible_http_request_duration_seconds_count', { operation: 'create_evaluation', status: '202' }),
      ).to.equal(1);
      expect(
        sample(text, 'crucible_http_request_duration_seconds_count', { operation: 'get_run', role: 'gateway' }),
      ).to.be.greaterThan(0);
      expect(sample(text, 'crucible_sse_clients', { role: 'gateway' })).to.equal(0);
      expect(sample(text, 'crucible_episodes', { state: 'queued', role: 'scheduler' })).to.equal(0);
      expect(sample(text, 'crucible_episodes', { state: 'running', role: 'scheduler' })).to.equal(0);
      // the worker autoscaling signal (deploy/kubernetes): nothing queued once the run ended
      expect(sample(text, 'crucible_episodes_queued_per_free_place', { role: 'scheduler' })).to.equal(0);
      expect(sample(text, 'crucible_placement_wait_seconds_count')).to.be.at.least(started.episodes);
      expect(sample(text, 'crucible_episodes_ended_total', { status: 'finished' })).to.be.at.least(started.episodes);
      expect(sample(text, 'crucible_workers', { state: 'live' })).to.equal(1);
      expect(sample(text, 'crucible_workers', { state: 'draining' })).to.equal(0);
      expect(sample(text, 'crucible_worker_capacity', { worker })).to.equal(t.config.workerCapacity);
      expect(sample(text, 'crucible_worker_active', { worker })).to.be.a('number');
      expect(sample(text, 'crucible_worker_slots', { kind: 'capacity', role: 'worker' })).to.equal(
        t.config.workerCapacity,
      );
      expect(sample(text, 'crucible_sandbox_starts_total', { result: 'started' })).to.be.at.least(started.episodes);
      expect(text).to.include('crucible_worker_action_duration_seconds');
      expect(text).to.include('crucible_jobs');
      expect(sample(text, 'crucible_process_resident_memory_bytes')).to.be.greaterThan(0);
    });
  });

  it('a scheduler role serves /metrics, /healthz and /readyz on its own listener; /readyz says 503 when its store fails', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'crucible-ops-'));
    const config = loadConfig({ SERVICE_DATA_DIR: dir, LOG_LEVEL: 'silent', PORT: '0' });
    const adapters = await chooseAdapters(config, logger);
    const scheduler = await startScheduler({
      config,
      adapters,
      logger,
      controlPlane: ControlPlane.mutualTls((await controlPlaneFiles(path.join(dir, 'certs'))).pems('scheduler')),
    });
    const ops = await startOpsServer(
      { registries: () => [scheduler.metrics.registry], ready: () => scheduler.ready() },
      '127.0.0.1',
      0,
      logger,
    );
    try {
      const base = `http://127.0.0.1:${ops.port}`;
      expect((await fetch(`${base}/healthz`)).status).to.equal(200);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).to.equal(200);
      expect(((await ready.json()) as any).checks).to.deep.equal({ jobs: 'ok', store: 'ok', leases: 'ok' });
      const text = await (await fetch(`${base}/metrics`)).text();
      expect(text).to.include('crucible_placement_wait_seconds');
      expect(sample(text, 'crucible_workers', { state: 'live', role: 'scheduler' })).to.equal(0);
      expect((await fetch(`${base}/elsewhere`)).status).to.equal(404);

      await scheduler.close();
      await adapters.store.close();
      const down = await fetch(`${base}/readyz`);
      expect(down.status).to.equal(503);
      const body = (await down.json()) as any;
      expect(body.status).to.equal('not_ready');
      expect(body.checks.jobs).to.equal('shutting down');
      expect(body.checks.store).to.not.equal('ok');
    } finally {
      await ops.close();
      await adapters.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('placement passes a draining worker over, on every scheduler, until it is undrained', async () => {
    const leases = new MemoryLeases();
    const registry = new WorkerRegistry(leases, logger);
    for (const id of ['wkr_a', 'wkr_b'])
      await registry.upsert({ id, address: `127.0.0.1:${id === 'wkr_a' ? 1 : 2}`, capacity: 4, active: 0 });
    // two schedulers: their own placement state, one registry
    const placement = () => new Placement(new WorkerRegistry(leases, logger));
    const [one, two] = [placement(), placement()];
    await registry.setDraining('wkr_a', true);
    await new Promise((r) => setTimeout(r, 300)); // the live cache of a placement lasts 250 ms
    const chosen: string[] = [];
    for (let i = 0; i < 4; i++)
      for (const p of [one, two]) {
        const w = await p.reserve('operator');
        chosen.push(typeof w === 'string' ? w : w.id);
      }
    expect(chosen).to.deep.equal(Array(8).fill('wkr_b'));
    // wkr_b is full for each scheduler now; the draining one still takes nothing
    expect(await one.reserve('operator')).to.equal('full');
    expect((await registry.list()).map((w) => [w.id, w.draining])).to.deep.equal([
      ['wkr_a', true],
      ['wkr_b', false],
    ]);
    await registry.setDraining('wkr_a', false);
    await new Promise((r) => setTimeout(r, 300));
    const back = await one.reserve('operator');
    expect(typeof back === 'string' ? back : back.id).to.equal('wkr_a');
  });

  it('crucible admin workers lists, drains and undrains through the shared registry (Redis)', async () => {
    const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    const leases = await RedisLeases.connect(redisUrl);
    const registry = new WorkerRegistry(leases, logger);
    const id = `wkr_ops_${process.pid}_${Date.now()}`;
    // registered long ago (lost), so no scheduler sharing this Redis places anything on it
    await registry.upsert({ id, address: '127.0.0.1:9', capacity: 2, active: 0 });
    await leases.hset(
      'crucible:workers',
      id,
      JSON.stringify({ id, address: '127.0.0.1:9', capacity: 2, active: 0, last_seen_ms: 1 }),
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'crucible-ops-cli-'));
    const env = { REDIS_URL: redisUrl, SERVICE_DATA_DIR: dir };
    try {
      const listed = await cli(['admin', 'workers', '--json'], env);
      expect(listed.code, listed.stderr).to.equal(0);
      expect(JSON.parse(listed.stdout).find((w: any) => w.id === id)).to.include({ status: 'lost', draining: false });
      const drained = await cli(['admin', 'workers', 'drain', id, '--json'], env);
      expect(drained.code, drained.stderr).to.equal(0);
      expect(JSON.parse(drained.stdout)).to.include({ id, draining: true });
      expect((await registry.list()).find((w) => w.id === id)!.draining).to.equal(true);
      expect((await adminWorkers(loadConfig(env), { kind: 'list' })).find((w) => w.id === id)).to.include({
        status: 'lost',
        draining: true,
      });
      const undrained = await cli(['admin', 'workers', 'undrain', id, '--json'], env);
      expect(JSON.parse(undrained.stdout)).to.include({ draining: false });
      // refusals, in this process: an unknown worker, and the embedded lease store
      const config = loadConfig(env);
      await expectError(adminWorkers(config, { kind: 'drain', id: 'wkr_nobody' }), /wkr_nobody not found/);
      await expectError(adminWorkers(loadConfig({ SERVICE_DATA_DIR: dir }), { kind: 'list' }), /\/v1\/admin\/workers/);
    } finally {
      await registry.remove(id);
      await registry.setDraining(id, false);
      registry.close();
      await leases.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a role waits for an engine that starts late instead of dying', async () => {
    const port = await freePort();
    const dir = mkdtempSync(path.join(tmpdir(), 'crucible-ops-late-'));
    const config = loadConfig({
      SERVICE_DATA_DIR: dir,
      LOG_LEVEL: 'silent',
      NATS_URL: `nats://127.0.0.1:${port}`,
    });
    // NATS "starts" 1.5 s later: a forwarder to the real server opens on the port
    let proxy: net.Server | null = null;
    const late = setTimeout(() => {
      proxy = net.createServer((socket) => {
        const upstream = net.connect(4222, '127.0.0.1');
        socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
      });
      proxy.listen(port, '127.0.0.1');
    }, 1_500);
    try {
      const adapters = await adaptersWhenReachable(config, logger, 40);
      expect(adapters.engines.bus).to.equal('nats');
      expect(proxy).to.not.equal(null);
      await adapters.close();
    } finally {
      clearTimeout(late);
      (proxy as net.Server | null)?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
