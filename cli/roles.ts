import { chooseAdapters } from '../core/index.js';
import type { Config } from '../core/index.js';
import { createLogger, type Logger } from '../core/index.js';
import type { Adapters } from '../core/index.js';
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
 * loopback, so this shape runs the same code paths as the distributed one.
 */
export async function startEmbedded(config: Config, logger = createLogger(config.logLevel)): Promise<EmbeddedService> {
  const adapters = await chooseAdapters(config, logger);
  const local = new LocalWorkers();
  const scheduler = await startScheduler({ config, adapters, logger });
  const worker = await startWorker({ config, logger, schedulerAddr: scheduler.address, adapters, local });
  const gateway = await startGateway({
    config,
    adapters,
    logger,
    schedulerAddr: scheduler.address,
    localWorkers: local,
  });
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

export async function runSchedulerRole(config: Config): Promise<() => Promise<void>> {
  const logger = createLogger(config.logLevel);
  const adapters = await chooseAdapters(config, logger);
  const scheduler = await startScheduler({
    config: { ...config, schedulerPort: config.schedulerPort || 7070 },
    adapters,
    logger,
    host: '0.0.0.0',
  });
  return async () => {
    await scheduler.close();
    await adapters.close();
  };
}

export async function runWorkerRole(config: Config): Promise<() => Promise<void>> {
  if (!config.schedulerAddr) throw new Error('crucible worker needs SCHEDULER_ADDR (host:port of a scheduler)');
  const logger = createLogger(config.logLevel);
  const worker = await startWorker({ config, logger, schedulerAddr: config.schedulerAddr, host: '0.0.0.0' });
  return () => worker.close();
}

export async function runGatewayRole(config: Config): Promise<() => Promise<void>> {
  if (!config.schedulerAddr) throw new Error('crucible gateway needs SCHEDULER_ADDR (host:port of a scheduler)');
  const logger = createLogger(config.logLevel);
  const adapters = await chooseAdapters(config, logger);
  const gateway = await startGateway({ config, adapters, logger, schedulerAddr: config.schedulerAddr });
  return async () => {
    await gateway.close();
    await adapters.close();
  };
}
