import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chooseAdapters } from '../../core/choose-adapters.js';
import { loadConfig, type Config } from '../../core/config.js';
import { ControlPlane } from '../../core/control-plane.js';
import { schedulerProto, unary } from '../../core/grpc.js';
import { createLogger } from '../../core/log.js';
import type { Adapters } from '../../core/ports.js';
import { startScheduler, type RunningScheduler } from '../../scheduler/index.js';
import { WORKER_LOST_AFTER_MS, type WorkerRecord } from '../../scheduler/workers.js';
import { startWorker, type RunningWorker } from '../../world-worker/index.js';
import { issueCertificateFiles } from '../../cli/admin-certs.js';
import { DockerSandboxes, OWNER_LABEL } from '../../world-worker/sandboxes/index.js';
import { containerEngine } from '../support/containers.js';
import { controlPlaneFiles, exited, type ControlPlaneFiles } from '../support/roles.js';
import { skipBecause } from '../support/skips.js';

/** The message a promise was rejected with; fails the test when it was not. */
async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return { code: (err as { code?: string }).code ?? '', message: (err as Error).message };
  }
  throw new Error('expected a refusal, but it succeeded');
}

/** Pulls `ref` into the engine unless it is there. */
async function pulled(docker: DockerSandboxes['docker'], ref: string): Promise<void> {
  if (
    await docker
      .getImage(ref)
      .inspect()
      .then(
        () => true,
        () => false,
      )
  )
    return;
  const stream = await docker.pull(ref);
  await new Promise<void>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One worker id is one live process (docs/security.md, "Worker identity"): a second
 * process registering an id live under another incarnation is refused with the live one's
 * address and last heartbeat, takes over only once the first deregisters or is declared
 * lost, and a worker may not advertise an address whose server holds another id's
 * certificate. Real mutual TLS on loopback, with certificates issued per worker id.
 */
describe('control plane: one live process per worker id, and a worker bound to its address', function () {
  this.timeout(120_000);
  const logger = createLogger('silent');
  const pid = process.pid;
  const A = `worker-a-${pid}`;
  const B = `worker-b-${pid}`;
  let dir: string;
  let certs: ControlPlaneFiles;
  let adapters: Adapters;
  let scheduler: RunningScheduler;
  const running: RunningWorker[] = [];
  const children: ChildProcess[] = [];

  const configOf = (id: string, env: Record<string, string> = {}): Config =>
    loadConfig({ SERVICE_DATA_DIR: path.join(dir, id), LOG_LEVEL: 'silent', WORKER_ID: id, ...env });
  const start = async (id: string, opts: { attempts?: number; env?: Record<string, string> } = {}) => {
    const w = await startWorker({
      config: configOf(id, opts.env),
      logger,
      adapters,
      schedulerAddr: scheduler.address,
      registerAttempts: opts.attempts,
      controlPlane: ControlPlane.mutualTls(certs.pems(id), 'worker'),
    });
    running.push(w);
    return w;
  };
  const record = async (id: string): Promise<WorkerRecord | undefined> =>
    (await scheduler.deps.workers.list()).find((w) => w.id === id);
  /** A RegisterWorker call made with the certificate named `cert`. */
  const register = (cert: string, info: object) => {
    const plane = ControlPlane.mutualTls(certs.pems(cert), 'worker');
    const c = new (schedulerProto().crucible.v1.Scheduler)(
      scheduler.address,
      plane.channelCredentials('scheduler'),
      plane.channelOptions('scheduler', {}),
    );
    return unary<object, unknown>(c.RegisterWorker, c, info, 10_000).finally(() => c.close());
  };

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'crucible-worker-ids-'));
    certs = await controlPlaneFiles(path.join(dir, 'certs'));
    await issueCertificateFiles(certs.dir, [
      { role: 'worker', name: A },
      { role: 'worker', name: B },
    ]);
    const config = loadConfig({ SERVICE_DATA_DIR: dir, LOG_LEVEL: 'silent' });
    adapters = await chooseAdapters(config, logger);
    scheduler = await startScheduler({
      config,
      adapters,
      logger,
      controlPlane: ControlPlane.mutualTls(certs.pems('scheduler'), 'scheduler'),
    });
  });

  afterEach(async () => {
    for (const c of children.splice(0)) {
      c.kill('SIGKILL');
      await exited(c);
    }
    await Promise.all(running.splice(0).map((w) => w.close()));
  });

  after(async () => {
    await scheduler?.close();
    await adapters?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a second process with a live id is refused with the live one’s address and last heartbeat; the first keeps the id', async () => {
    const first = await start(A);
    const before = (await record(A))!;
    const t0 = Date.now();
    const refused = await refusal(start(A, { attempts: 2 }));
    expect(refused.code).to.equal('conflict');
    expect(refused.message).to.include(`world-worker ${A} is already live at ${first.address}`);
    expect(refused.message).to.match(/last seen \d{4}-\d\d-\d\dT/);
    // the registry never flipped to the refused process, and the first one still heartbeats
    await sleep(2_500);
    const after = (await record(A))!;
    expect(after.address).to.equal(first.address);
    expect(after.incarnation).to.equal(before.incarnation);
    expect(after.last_seen_ms).to.be.above(t0);
    expect((await scheduler.deps.workers.probe()).find((w) => w.id === A)?.status).to.equal('up');
  });

  it('a refused process removes none of the live worker’s containers; the next accepted start reaps them', async function () {
    const engine = containerEngine();
    if (!engine) skipBecause(this, 'CRUCIBLE_SKIP_CONTAINERS=1 asks to skip the container suites', 'podman');
    const env = { SANDBOX: 'container', DOCKER_HOST: engine!.dockerHost, SANDBOX_RUNTIME_IMAGE: engine!.runtimeImage };
    const docker = new DockerSandboxes({ dockerHost: engine!.dockerHost, relayImage: engine!.runtimeImage, owner: A })
      .docker;
    const labelled = async () =>
      (await docker.listContainers({ all: true, filters: { label: [`${OWNER_LABEL}=${A}`] } })).map((c) => c.Id);
    const first = await start(A, { env });
    // what the live worker runs: a container labelled with its id (created, not started: reaping lists all)
    await pulled(docker, engine!.runtimeImage);
    const sandbox = await docker.createContainer({
      Image: engine!.runtimeImage,
      Cmd: ['node', '-e', '0'],
      Labels: { [OWNER_LABEL]: A },
    });
    try {
      expect((await refusal(start(A, { attempts: 2, env }))).code).to.equal('conflict');
      expect(await labelled()).to.include(sandbox.id);
      await first.close();
      running.splice(running.indexOf(first), 1);
      await start(A, { env }); // the id is free: this start owns the leftovers and reaps them
      expect(await labelled()).to.not.include(sandbox.id);
    } finally {
      await sandbox.remove({ force: true }).catch(() => undefined);
    }
  });

  it('a worker restarted after a crash registers by itself once its predecessor is declared lost', async () => {
    const env = {
      ...process.env,
      LOG_LEVEL: 'warn',
      SERVICE_DATA_DIR: path.join(dir, 'crashed'),
      SERVICE_STORE_SHARED_SQLITE: '1',
      WORKER_ID: A,
      SCHEDULER_ADDR: scheduler.address,
      ...certs.env(A),
    };
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', 'worker'], {
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children.push(child);
    const earlier = (await record(A))?.incarnation;
    let crashed: WorkerRecord | undefined;
    for (const deadline = Date.now() + 60_000; !crashed; await sleep(100)) {
      crashed = await record(A);
      if (crashed?.incarnation === earlier) crashed = undefined;
      if (Date.now() > deadline) throw new Error('the worker process did not register');
    }
    child.kill('SIGKILL');
    await exited(child);
    const lastSeen = (await record(A))!.last_seen_ms;
    const restarted = await start(A);
    const registeredAt = Date.now();
    const now = (await record(A))!;
    expect(now.incarnation).to.not.equal(crashed.incarnation);
    expect(now.address).to.equal(restarted.address);
    // refused while the killed one still counted as live, then accepted without help
    // (coming back by itself is the test's own success; its timeout bounds how long)
    expect(registeredAt).to.be.at.least(lastSeen + WORKER_LOST_AFTER_MS - 200);
  });

  it('a graceful restart is not delayed: the closing worker gives its id up', async () => {
    const old = await start(A);
    await old.close();
    running.splice(running.indexOf(old), 1);
    // one registration attempt and no retry: the id was free the moment the old worker closed
    const next = await start(A, { attempts: 1 });
    expect((await record(A))!.address).to.equal(next.address);
  });

  it('a worker advertising another worker’s address is refused; a record pointing elsewhere is marked down', async () => {
    const b = await start(B);
    const info = { id: A, address: b.address, capacity: 4, active: 0, incarnation: 'inc_impostor' };
    const refused = await refusal(register(A, info));
    expect(refused.code).to.equal('forbidden');
    expect(refused.message).to.include(`may not register address ${b.address}`);
    expect(refused.message).to.include(`certificate of ${B}, not of ${A}`);
    // the shared certificate may claim any id, but not the address of a worker with its own
    const shared = await refusal(register('worker', { ...info, id: `shared-${pid}` }));
    expect(shared.message).to.include(`certificate of ${B}, not of shared-${pid}`);
    expect((await record(A))?.address).to.not.equal(b.address);
    // an address that changed hands after registering: calls check the certificate too
    await scheduler.deps.workers.upsert(info);
    const health = await scheduler.deps.workers.probe();
    expect(health.find((w) => w.id === A)?.status).to.equal('unreachable');
    expect(health.find((w) => w.id === B)?.status).to.equal('up');
    await scheduler.deps.workers.remove(A);
  });

  it('CONTROL_PLANE_WORKER_IDS=per-certificate refuses the shared worker certificate', async () => {
    const strict = await startScheduler({
      config: loadConfig({ SERVICE_DATA_DIR: dir, LOG_LEVEL: 'silent', CONTROL_PLANE_WORKER_IDS: 'per-certificate' }),
      adapters,
      logger,
      controlPlane: ControlPlane.mutualTls(certs.pems('scheduler'), 'scheduler'),
    });
    try {
      const plane = ControlPlane.mutualTls(certs.pems('worker'), 'worker');
      const c = new (schedulerProto().crucible.v1.Scheduler)(
        strict.address,
        plane.channelCredentials('scheduler'),
        plane.channelOptions('scheduler', {}),
      );
      const info = { id: `any-${pid}`, address: '127.0.0.1:9', capacity: 1, active: 0, incarnation: 'x' };
      const refused = await refusal(unary(c.RegisterWorker, c, info, 10_000).finally(() => c.close()));
      expect(refused.code).to.equal('forbidden');
      expect(refused.message).to.include('CONTROL_PLANE_WORKER_IDS=per-certificate');
      expect(await record(`any-${pid}`)).to.equal(undefined);
    } finally {
      await strict.close();
    }
    expect(() => loadConfig({ CONTROL_PLANE_WORKER_IDS: 'some' })).to.throw(/shared or per-certificate/);
  });
});
