import { ControlPlane, RoleMetrics, chooseAdapters, controlPlaneCerts, createLogger } from '../core/index.js';
import { requireShareableStore } from '../core/index.js';
import { grpcMessageLimit, roleControlPlane, startOpsServer, type OpsEndpoints } from '../core/index.js';
import type { Adapters, Config, ControlPlanePems, ControlPlaneRole, Logger } from '../core/index.js';
import { startGateway, type RunningGateway } from '../gateway/index.js';
import { startScheduler, type RunningScheduler } from '../scheduler/index.js';
import { LocalWorkers, startWorker, type RunningWorker } from '../world-worker/index.js';

/** Everything `crucible start` runs in one process: the embedded shape. */
export interface EmbeddedService {
  adapters: Adapters;
  scheduler: RunningScheduler;
  worker: RunningWorker;
  gateway: RunningGateway;
  logger: Logger;
  close(): Promise<void>;
}

/**
 * Gateway, scheduler and one world-worker in one process. They still talk gRPC over
 * loopback, so this shape runs the same code paths as the distributed one, mutual TLS
 * included: each role gets a certificate of a CA made in memory at start and forgotten at
 * exit, so nothing else on the machine can call the scheduler's or the worker's port.
 */
export async function startEmbedded(
  config: Config,
  logger = createLogger(config.logLevel),
  /** The roles' certificates to use instead (tests that add a worker process of their own). */
  certificates?: Record<ControlPlaneRole, ControlPlanePems>,
): Promise<EmbeddedService> {
  const pems = certificates ?? (await (await controlPlaneCerts()).ephemeralControlPlane());
  const maxMessageBytes = grpcMessageLimit(config);
  const plane = (role: keyof typeof pems) => ControlPlane.mutualTls(pems[role], role, { maxMessageBytes });
  const adapters = await chooseAdapters(config, logger);
  const scheduler = await startScheduler({ config, adapters, logger, controlPlane: plane('scheduler') });
  const local = new LocalWorkers();
  const worker = await startWorker({
    config,
    logger,
    schedulerAddr: scheduler.address,
    adapters,
    local,
    controlPlane: plane('worker'),
  });
  const gateway = await startGateway({
    config,
    adapters,
    logger,
    schedulerAddr: scheduler.address,
    localWorkers: local,
    controlPlane: plane('gateway'),
  }).catch(async (err: unknown) => {
    // a taken port: stop what started, so that the caller (a test, a retry) keeps nothing running
    await worker.close();
    await scheduler.close();
    await adapters.close();
    throw err;
  });
  // one process, one /metrics: the gateway's operator listener (OPS_PORT) serves every role's figures
  gateway.opsRegistries.push(scheduler.metrics.registry, worker.metrics.registry);
  return {
    adapters,
    scheduler,
    worker,
    gateway,
    logger,
    async close() {
      await gateway.close();
      await worker.close();
      await scheduler.close();
      await adapters.close();
    },
  };
}

/**
 * The role's adapters, asked for again (with a growing pause, at most 5 s) while an engine
 * is not reachable yet: under compose or systemd MongoDB, NATS or Redis may start after the
 * role, which then waits for them instead of dying. Gives up after `attempts`.
 */
export async function adaptersWhenReachable(config: Config, logger: Logger, attempts = 120): Promise<Adapters> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await chooseAdapters(config, logger);
    } catch (err) {
      if (attempt >= attempts) throw err;
      logger.warn({ err, attempt }, 'the document store, bus or lease store is not reachable yet; trying again');
      await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * attempt)));
    }
  }
}

/** The operator listener of a scheduler or worker role; none with OPS_PORT=off. */
async function opsListener(
  config: Config,
  logger: Logger,
  ops: OpsEndpoints,
): Promise<{ close(): Promise<void> } | null> {
  return config.opsPort === null
    ? null
    : startOpsServer(ops, config.opsHost, config.opsPort, logger, { fallback: config.opsPortDefaulted });
}

export async function runSchedulerRole(config: Config): Promise<() => Promise<void>> {
  const logger = createLogger(config.logLevel);
  const controlPlane = await roleControlPlane(config, 'scheduler', { logger });
  requireShareableStore(config, 'scheduler');
  const adapters = await adaptersWhenReachable(config, logger);
  const scheduler = await startScheduler({
    config: { ...config, schedulerPort: config.schedulerPort || 7070 },
    adapters,
    logger,
    host: config.schedulerHost,
    controlPlane,
  });
  const processMetrics = new RoleMetrics('scheduler', { processMetrics: true });
  const ops = await opsListener(config, logger, {
    registries: () => [scheduler.metrics.registry, processMetrics.registry],
    ready: () => scheduler.ready(),
  });
  return async () => {
    await ops?.close();
    await scheduler.close();
    await adapters.close();
    controlPlane.close();
  };
}

export async function runWorkerRole(config: Config): Promise<() => Promise<void>> {
  if (!config.schedulerAddr) throw new Error('crucible worker needs SCHEDULER_ADDR (host:port of a scheduler)');
  const logger = createLogger(config.logLevel);
  const controlPlane = await roleControlPlane(config, 'worker', { logger });
  requireShareableStore(config, 'worker');
  const adapters = await adaptersWhenReachable(config, logger);
  const worker = await startWorker({
    config,
    logger,
    schedulerAddr: config.schedulerAddr,
    host: config.workerHost,
    adapters,
    controlPlane,
  });
  const processMetrics = new RoleMetrics('worker', { processMetrics: true });
  const ops = await opsListener(config, logger, {
    registries: () => [worker.metrics.registry, processMetrics.registry],
    ready: () => worker.ready(),
  });
  return async () => {
    await ops?.close();
    await worker.close();
    await adapters.close();
    controlPlane.close();
  };
}

export async function runGatewayRole(config: Config): Promise<() => Promise<void>> {
  if (!config.schedulerAddr) throw new Error('crucible gateway needs SCHEDULER_ADDR (host:port of a scheduler)');
  const logger = createLogger(config.logLevel);
  const controlPlane = await roleControlPlane(config, 'gateway', { logger });
  requireShareableStore(config, 'gateway');
  const adapters = await adaptersWhenReachable(config, logger);
  const gateway = await startGateway({
    config,
    adapters,
    logger,
    schedulerAddr: config.schedulerAddr,
    controlPlane,
  });
  return async () => {
    await gateway.close();
    await adapters.close();
    controlPlane.close();
  };
}
