/**
 * What the hostile-tenant suite shares: a tenant's copy of a catalog application carrying
 * the hostile fixture's canary (test/fixtures/hostile-app/canary.mjs), and an installation
 * of one scheduler and gateway with world-workers of different settings, as the distributed
 * shape has them (each worker its own data folder, all sharing the store).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ControlPlane, chooseAdapters, controlPlaneCerts, grpcMessageLimit, loadConfig } from '../../core/index.js';
import { createLogger } from '../../core/log.js';
import { startGateway } from '../../gateway/index.js';
import { startScheduler } from '../../scheduler/index.js';
import { startWorker, type RunningWorker } from '../../world-worker/index.js';
import type { EmbeddedService } from '../../cli/roles.js';
import { serviceOver, type TestService } from '../support/service.js';
import { catalogApp, packDir } from '../support/sources.js';

export const HOSTILE_FIXTURE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'hostile-app',
);

/** A canary's report: one line per start of the tenant's service. */
export interface CanarySighting {
  cwd: string;
  /** The first bytes of crucible.db when the code could read it ("SQLite format 3"). */
  db: string | null;
}

/**
 * The attack of issue 22: the catalog's shop-support with the hostile canary imported first
 * by its service. Everything else is the catalog's, so it builds and runs like the catalog
 * application; only its bytes say it is not.
 */
export class HostileSource {
  readonly dir: string;
  readonly marker: string;

  constructor(name = 'hostile') {
    this.dir = mkdtempSync(path.join(tmpdir(), `crucible-${name}-src-`));
    this.marker = path.join(this.dir, '..', `${path.basename(this.dir)}.sightings`);
    cpSync(catalogApp('shop-support'), this.dir, { recursive: true });
    cpSync(path.join(HOSTILE_FIXTURE, 'canary.mjs'), path.join(this.dir, 'shop', 'canary.mjs'));
    writeFileSync(path.join(this.dir, 'shop', 'canary.json'), JSON.stringify({ marker: this.marker }));
    const server = path.join(this.dir, 'shop', 'server.mjs');
    writeFileSync(server, `import './canary.mjs';\n${readFileSync(server, 'utf8')}`);
  }

  archive(): Promise<Buffer> {
    return packDir(this.dir);
  }

  /** Every time the tenant's service started where it could write to this machine's files. */
  sightings(): CanarySighting[] {
    if (!existsSync(this.marker)) return [];
    return readFileSync(this.marker, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as CanarySighting);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.marker, { force: true });
  }
}

export interface Installation {
  t: TestService;
  workers: Map<string, RunningWorker>;
  /** Each worker's own data folder (its sources and sandboxes). */
  workerDir(id: string): string;
  /** Stops one worker (it deregisters; the scheduler counts it live until its heartbeat lapses). */
  stopWorker(id: string): Promise<void>;
}

/**
 * A scheduler and a gateway with `schedulerEnv`, and one world-worker per entry of `workers`
 * with its own environment and data folder; all share the scheduler's store. Workers are
 * reached over gRPC with mutual TLS, as in the distributed shape.
 */
export async function startInstallation(
  schedulerEnv: Record<string, string>,
  workers: Record<string, Record<string, string>>,
): Promise<Installation> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'crucible-hostile-'));
  const base = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    SERVICE_SIGNUPS_PER_HOUR: '10000',
  };
  const config = loadConfig({ ...base, SERVICE_DATA_DIR: dataDir, ...schedulerEnv });
  const logger = createLogger(config.logLevel);
  const pems = await (await controlPlaneCerts()).ephemeralControlPlane();
  const maxMessageBytes = grpcMessageLimit(config);
  const plane = (role: keyof typeof pems) => ControlPlane.mutualTls(pems[role], role, { maxMessageBytes });
  const adapters = await chooseAdapters(config, logger);
  const scheduler = await startScheduler({ config, adapters, logger, controlPlane: plane('scheduler') });
  const running = new Map<string, RunningWorker>();
  const workerDir = (id: string) => path.join(dataDir, 'workers', id);
  for (const [id, env] of Object.entries(workers)) {
    const workerConfig = loadConfig({
      ...base,
      ...schedulerEnv,
      SERVICE_DATA_DIR: workerDir(id),
      WORKER_ID: id,
      ...env,
    });
    running.set(
      id,
      await startWorker({
        config: workerConfig,
        logger,
        schedulerAddr: scheduler.address,
        adapters,
        controlPlane: plane('worker'),
      }),
    );
  }
  const gateway = await startGateway({
    config,
    adapters,
    logger,
    schedulerAddr: scheduler.address,
    controlPlane: plane('gateway'),
  });
  // starting the gateway may hold the event loop long enough for the workers' heartbeats to lapse
  await until('every worker counts as live', async () => {
    const live = new Set((await scheduler.deps.workers.live()).map((w) => w.id));
    return [...running.keys()].every((id) => live.has(id));
  });
  const close = async () => {
    await gateway.close();
    for (const w of running.values()) await w.close();
    await scheduler.close();
    await adapters.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const svc = { adapters, scheduler, worker: [...running.values()][0]!, gateway, logger, close } as EmbeddedService;
  const t = serviceOver({
    url: gateway.url,
    config,
    svc,
    dataDir,
    restart: () => Promise.reject(new Error('not restartable')),
    close,
  });
  return {
    t,
    workers: running,
    workerDir,
    async stopWorker(id) {
      await running.get(id)?.close();
      running.delete(id);
    },
  };
}

/** Polls every 100 ms until `ok`; throws naming `what` after `ms`. */
export async function until(what: string, ok: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const guard = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > guard) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
