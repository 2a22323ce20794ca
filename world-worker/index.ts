import type { Config } from '../core/config.js';
import { bindServer, channelOptions, grpc, schedulerProto, unary } from '../core/grpc.js';
import { newId } from '../core/ids.js';
import type { Logger } from '../core/log.js';
import { chooseAdapters } from '../core/choose-adapters.js';
import type { Adapters } from '../core/ports.js';
import type { RegisterWorkerResponse__Output } from '../proto/generated/crucible/v1/RegisterWorkerResponse.js';
import type { WorkerInfo } from '../proto/generated/crucible/v1/WorkerInfo.js';
import { WorldWorkerService } from './service.js';
import { registerBuildWork } from './builds/index.js';
import { EpisodeHost } from './episode-host.js';
import { RoleMetrics } from '../core/metrics.js';
import { readiness, type Readiness } from '../core/ops-server.js';

export { WorldWorkerService, inProcessWorker, type WorkHandler } from './service.js';
export { EpisodeHost } from './episode-host.js';
export { EPISODE_WORK, type EpisodeOutcome, type EpisodeRunPayload } from './episode-work.js';

export interface RunningWorker {
  id: string;
  address: string;
  service: WorldWorkerService;
  /** `/metrics` figures of this worker (capacity, hosted episodes, sandbox starts, action latency). */
  metrics: RoleMetrics;
  /** `/readyz`: registered with a scheduler, not shutting down, its store answering. */
  ready(): Promise<Readiness>;
  close(): Promise<void>;
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
}): Promise<RunningWorker> {
  opts = { registerAttempts: 60, ...opts };
  const id = opts.config.workerId ?? newId('wkr');
  const logger = opts.logger.child({ component: 'world-worker', worker: id });
  const service = new WorldWorkerService(id, opts.config.workerCapacity);
  const server = new grpc.Server(channelOptions);
  const buildWork = registerBuildWork(service, { config: opts.config, logger });
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
    adapters,
    logger,
    capacity: opts.config.workerCapacity,
  });
  episodes.register(service);
  service.addToServer(server);
  const port = await bindServer(server, opts.host ?? '127.0.0.1', opts.config.workerPort);
  const address = `${opts.config.workerAdvertiseHost}:${port}`;
  service.advertise(address);

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
      service.leave(address);
      clearInterval(timer);
      scheduler.close();
      await episodes.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      await buildWork.close();
      if (!opts.adapters) await adapters.close();
    },
  };
}
