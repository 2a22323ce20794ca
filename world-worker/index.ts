import type { Config, ControlPlane } from '../core/index.js';
import { bindServer, grpc } from '../core/index.js';
import { newId } from '../core/index.js';
import type { Logger } from '../core/index.js';
import { chooseAdapters } from '../core/index.js';
import type { Adapters } from '../core/index.js';
import type { WorkerInfo } from '../proto/index.js';
import { WorldWorkerService } from './service.js';
import { registerBuildWork } from './builds/index.js';
import { EpisodeHost } from './episode-host.js';
import { chooseSandboxes, runPolicy } from './sandboxes/index.js';
import { RoleMetrics, readiness, type Readiness } from '../core/index.js';
import { SchedulerLink } from './scheduler-link.js';

export { WorldWorkerService } from './service.js';
export { LocalWorkers } from './local-workers.js';
export { WorldWorkerClients } from './client.js';
export { MAX_OBSERVE_WAIT_MS } from './episode-host.js';
export type { WorkAnswer, WorkKind, WorkPayload } from './work-kinds.js';
import type { LocalWorkers } from './local-workers.js';
export {
  assertMayRun,
  operatorSources,
  refusalText,
  runPolicy,
  trustOfCode,
  TENANT_CODE_NEEDS,
  type CodeOrigin,
  type CodeRef,
  type SourceTrust,
} from './sandboxes/index.js';
export { EPISODE_WORK, type EpisodeOutcome, type EpisodeRunPayload } from './episode-work.js';

export interface RunningWorker {
  id: string;
  address: string;
  service: WorldWorkerService;
  close(): Promise<void>;
  /** `/metrics` figures of this worker (capacity, hosted episodes, sandbox starts, action latency). */
  metrics: RoleMetrics;
  /** `/readyz`: registered with a scheduler, not shutting down, its store answering. */
  ready(): Promise<Readiness>;
}

/**
 * Starts a world-worker: starts its gRPC server, registers with a scheduler and heartbeats
 * to every scheduler of `schedulerAddr` (SchedulerLink), and only once registered reaps the
 * sandboxes a killed predecessor left behind (work waits for that): a second process
 * started with a WORKER_ID that is live elsewhere is refused registration and so never
 * removes the live one's containers. A refused start retries until its predecessor is
 * declared lost (a crash restart comes back by itself), then throws. A failed heartbeat is
 * logged and retried; the schedulers treat a silent worker as lost. On close the worker
 * deregisters after its sandboxes stopped, so its next process registers at once. Episode
 * actors save to the document store and append to the event log: they use `adapters` when
 * given (the embedded shape shares the scheduler's), else open their own.
 */
export async function startWorker(opts: {
  config: Config;
  logger: Logger;
  schedulerAddr: string;
  host?: string;
  registerAttempts?: number;
  adapters?: Adapters;
  /** The process's registry of in-process workers (embedded shape): this worker joins it. */
  local?: LocalWorkers;
  /** Its gRPC credentials: the server's and those it calls the schedulers with. */
  controlPlane: ControlPlane;
}): Promise<RunningWorker> {
  opts = { registerAttempts: 60, ...opts };
  const id = opts.config.workerId ?? newId('wkr');
  const logger = opts.logger.child({ component: 'world-worker', worker: id });
  // a new value on every start: schedulers drop cached connections to the previous process
  const incarnation = newId('inc');
  const service = new WorldWorkerService(id, opts.config.workerCapacity);
  const server = new grpc.Server(opts.controlPlane.serverOptions());
  // one driver for builds and episodes; what a killed run of this worker left is reaped once registered
  const sandboxes = chooseSandboxes(opts.config);
  // what this worker may run, from its own driver and settings (never the scheduler's): reported
  // when it registers, and checked again by every work kind that starts a sandbox
  const policy = runPolicy(sandboxes, opts.config);
  let reaped!: () => void;
  service.holdWorkUntil(new Promise<void>((r) => (reaped = r)));
  const adapters = opts.adapters ?? (await chooseAdapters(opts.config, logger));
  const buildWork = registerBuildWork(service, {
    config: opts.config,
    logger,
    sandboxes,
    policy,
    workerId: id,
    store: adapters.store,
  });
  const metrics = new RoleMetrics('worker', { processMetrics: !opts.adapters });
  metrics.gauge(
    'crucible_worker_slots',
    'Episodes this worker can host (capacity) and hosts now (active)',
    ['kind'],
    (g) => {
      g.set({ kind: 'capacity' }, service.capacity);
      g.set({ kind: 'active' }, service.active);
    },
  );
  let leaving = false;
  const episodes = new EpisodeHost({
    metrics,
    workerId: id,
    config: opts.config,
    sandboxes,
    policy,
    adapters,
    logger,
    capacity: opts.config.workerCapacity,
  });
  episodes.register(service);
  service.addToServer(server, opts.controlPlane);
  const port = await bindServer(server, opts.host ?? '127.0.0.1', opts.config.workerPort, opts.controlPlane);
  const address = `${opts.config.workerAdvertiseHost}:${port}`;
  opts.local?.join(address, service);

  const info = (): WorkerInfo => ({
    id,
    address,
    capacity: service.capacity,
    active: service.active,
    incarnation,
    sandbox: policy.driver,
    isolates: policy.isolates,
    runs_tenant_code: policy.runsTenantCode,
  });
  const link = new SchedulerLink(opts.schedulerAddr, info, logger, opts.controlPlane);
  try {
    await link.register(opts.registerAttempts!);
  } catch (err) {
    link.close();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    opts.local?.leave(address, service);
    await buildWork.close();
    if (!opts.adapters) await adapters.close();
    throw err;
  }
  logger.info({ address, scheduler: opts.schedulerAddr }, 'world-worker registered');
  // only now is the id this process's: leftovers labelled with it are a dead predecessor's
  try {
    const count = await sandboxes.reap();
    if (count > 0) logger.warn({ reaped: count }, 'removed sandboxes a previous run of this worker left behind');
  } catch (err) {
    logger.error({ err }, 'could not remove the sandboxes a previous run of this worker left behind');
  } finally {
    reaped();
  }

  return {
    id,
    address,
    service,
    metrics,
    ready: () =>
      readiness({
        registered: async () => (leaving ? 'shutting down' : 'ok'),
        store: async () => (await adapters.store.get('jobs', '_readiness'), 'ok'),
      }),
    async close() {
      leaving = true;
      opts.local?.leave(address, service);
      link.stopHeartbeats();
      await episodes.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      await buildWork.close();
      // its sandboxes are stopped: the id is free for the next process
      await link.deregister();
      link.close();
      if (!opts.adapters) await adapters.close();
    },
  };
}

export { BUILD_WORK, SourceCache, checkFileUrl, packFolder, resolveLocalPath } from './builds/index.js';
export type { FetchAnswer, FetchPayload, ScenarioVerdict, TrialResult } from './builds/index.js';
export { calibrationJudgeCost } from './builds/index.js';

export type { AnalyseAnswer, SourceSurvey } from './builds/index.js';

export { extractArchive, inspectArchive } from './builds/index.js';

export {
  engineOf,
  isOtherTenantsImage,
  loadImage,
  saveImage,
  tenantImageRepo,
  unpackFiles,
  type SavedImage,
} from './sandboxes/index.js';
