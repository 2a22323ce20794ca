import type { Config } from '../core/index.js';
import { bindServer, channelOptions, grpc, schedulerProto, unary } from '../core/index.js';
import { newId } from '../core/index.js';
import type { Logger } from '../core/index.js';
import { chooseAdapters } from '../core/index.js';
import type { Adapters } from '../core/index.js';
import type { RegisterWorkerResponse__Output } from '../proto/index.js';
import type { WorkerInfo } from '../proto/index.js';
import { WorldWorkerService } from './service.js';
import { registerBuildWork } from './builds/index.js';
import { EpisodeHost } from './episode-host.js';
import { chooseSandboxes } from './sandboxes/index.js';
import { RoleMetrics, readiness, type Readiness } from '../core/index.js';

export { WorldWorkerService } from './service.js';
export { LocalWorkers } from './local-workers.js';
export { WorldWorkerClients, type HostedEpisode } from './client.js';
export type { WorkAnswer, WorkHandler, WorkKind, WorkKinds, WorkPayload } from './work-kinds.js';
import type { LocalWorkers } from './local-workers.js';
export { EpisodeHost } from './episode-host.js';
export { assertMayRun, trustOfSource, type SourceTrust } from './sandboxes/index.js';
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
 * Starts a world-worker: its gRPC server, then registration with the scheduler and a
 * heartbeat. A failed heartbeat is logged and retried; the scheduler treats a silent worker
 * as lost. Episode actors save to the document store and append to the event log: they use
 * `adapters` when given (the embedded shape shares the scheduler's), else open their own.
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
}): Promise<RunningWorker> {
  opts = { registerAttempts: 60, ...opts };
  const id = opts.config.workerId ?? newId('wkr');
  const logger = opts.logger.child({ component: 'world-worker', worker: id });
  const service = new WorldWorkerService(id, opts.config.workerCapacity);
  const server = new grpc.Server(channelOptions);
  // one driver for builds and episodes; what a killed run of this worker left goes first
  const sandboxes = chooseSandboxes(opts.config);
  const reaped = await sandboxes.reap();
  if (reaped > 0) logger.warn({ reaped }, 'removed sandboxes a previous run of this worker left behind');
  const buildWork = registerBuildWork(service, { config: opts.config, logger, sandboxes });
  const adapters = opts.adapters ?? (await chooseAdapters(opts.config, logger));
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
    adapters,
    logger,
    capacity: opts.config.workerCapacity,
  });
  episodes.register(service);
  service.addToServer(server);
  const port = await bindServer(server, opts.host ?? '127.0.0.1', opts.config.workerPort);
  const address = `${opts.config.workerAdvertiseHost}:${port}`;
  opts.local?.join(address, service);

  const proto = schedulerProto();
  const scheduler = new proto.crucible.v1.Scheduler(
    opts.schedulerAddr,
    grpc.credentials.createInsecure(),
    channelOptions,
  );
  const info = (): WorkerInfo => ({ id, address, capacity: service.capacity, active: service.active });
  // The scheduler may start after its workers (compose, systemd): keep asking until it answers.
  let first: RegisterWorkerResponse__Output | null = null;
  for (let attempt = 1; !first; attempt++) {
    try {
      first = await unary<WorkerInfo, RegisterWorkerResponse__Output>(
        scheduler.RegisterWorker,
        scheduler,
        info(),
        10_000,
      );
    } catch (err) {
      if (attempt >= opts.registerAttempts!) throw err;
      logger.warn({ err, attempt }, 'scheduler not reachable yet; retrying registration');
      await new Promise((r) => setTimeout(r, Math.min(5_000, 200 * attempt)));
    }
  }
  const interval = Number(first.heartbeat_interval_ms) || 2_000;
  const timer = setInterval(() => {
    unary<WorkerInfo, RegisterWorkerResponse__Output>(scheduler.Heartbeat, scheduler, info(), interval).catch(
      (err: unknown) => logger.warn({ err }, 'heartbeat to the scheduler failed'),
    );
  }, interval);
  timer.unref();
  logger.info({ address, scheduler: opts.schedulerAddr }, 'world-worker registered');

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
      clearInterval(timer);
      scheduler.close();
      await episodes.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      await buildWork.close();
      if (!opts.adapters) await adapters.close();
    },
  };
}

export { BUILD_WORK, SourceCache, checkFileUrl, packFolder, resolveLocalPath } from './builds/index.js';
export type { FetchAnswer, FetchPayload, ScenarioVerdict, TrialResult } from './builds/index.js';

export type { AnalyseAnswer, SourceSurvey } from './builds/index.js';

export { extractArchive, inspectArchive } from './builds/index.js';
