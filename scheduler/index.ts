import type { Config, ControlPlane } from '../core/index.js';
import { bindServer, grpc } from '../core/index.js';
import type { Logger } from '../core/index.js';
import type { Adapters } from '../core/index.js';
import { accountHandlers, ensureAccountIndexes } from '../accounts/index.js';
import { apiKeyHandlers, ensureApiKeyIndexes } from '../accounts/index.js';
import { applicationHandlers, ensureApplicationIndexes } from './applications/index.js';
import { billingHandlers } from '../billing/index.js';
import { dashboardHandlers } from './dashboard.js';
import type { HandlerTable, SchedulerDeps } from './context.js';
import { schedulerDeps } from './deps.js';
import { healthHandlers } from './health.js';
import { jobHandlers, startJobEngine } from './jobs/index.js';
import { episodeHandlers } from './episodes/index.js';
import { ensureExportIndexes, exportHandlers, exportJobKinds } from './exports/index.js';
import { improvementHandlers, improvementJobKinds } from './improvements/index.js';
import { ensureProfileIndexes, profileHandlers } from './profiles/index.js';
import { ensureRunIndexes, runHandlers, runJobKinds } from './runs/index.js';
import { SchedulerService } from './service.js';
import { trainingHandlers } from './training.js';
import { WorkerRegistry } from './workers.js';
import { ensureWorldIndexes, worldHandlers, worldJobKinds } from './worlds/index.js';
import { ensureWorkspaceIndexes } from '../accounts/index.js';
import { workerAdminHandlers } from './workers-admin.js';
import { mergeHandlerTables, readiness, type Readiness, type RoleMetrics } from '../core/index.js';

export type { HandlerTable, SchedulerDeps } from './context.js';
export type { RunEpisodeDoc } from './runs/types.js';
export { setWorkerDraining, workerView } from './workers-admin.js';
export { HEARTBEAT_INTERVAL_MS, WorkerRegistry } from './workers.js';
export { createApiKey } from '../accounts/index.js';
export { createWorkspace } from '../accounts/index.js';

/** Every operation the scheduler answers, by operationId of gateway/openapi.yaml. */
export function allHandlers(): HandlerTable {
  return mergeHandlerTables<SchedulerDeps>(
    healthHandlers,
    apiKeyHandlers,
    accountHandlers,
    trainingHandlers,
    applicationHandlers,
    jobHandlers,
    profileHandlers,
    worldHandlers,
    runHandlers,
    episodeHandlers,
    exportHandlers,
    improvementHandlers,
    billingHandlers,
    dashboardHandlers,
    workerAdminHandlers,
  );
}

export interface RunningScheduler {
  /** host:port of the gRPC server. */
  address: string;
  deps: SchedulerDeps;
  /** `/metrics` figures of this scheduler (docs/operations.md). */
  metrics: RoleMetrics;
  /** `/readyz`: its store and lease store answer and its job engine runs. */
  ready(): Promise<Readiness>;
  close(): Promise<void>;
}

export async function startScheduler(opts: {
  config: Config;
  adapters: Adapters;
  logger: Logger;
  host?: string;
  /** Its gRPC credentials: the server's and those it calls workers with. */
  controlPlane: ControlPlane;
}): Promise<RunningScheduler> {
  const logger = opts.logger.child({ component: 'scheduler' });
  const workers = new WorkerRegistry(opts.adapters.leases, logger, opts.controlPlane);
  const deps = schedulerDeps({ config: opts.config, adapters: opts.adapters, logger, workers });
  await ensureWorkspaceIndexes(opts.adapters.store);
  await ensureApiKeyIndexes(opts.adapters.store);
  await ensureAccountIndexes(opts.adapters.store);
  await ensureApplicationIndexes(opts.adapters.store);
  await ensureWorldIndexes(opts.adapters.store);
  await ensureProfileIndexes(opts.adapters.store);
  await ensureRunIndexes(opts.adapters.store);
  await ensureExportIndexes(opts.adapters.store);
  const server = new grpc.Server(opts.controlPlane.serverOptions());
  new SchedulerService(deps, allHandlers()).addToServer(server, opts.controlPlane);
  const host = opts.host ?? '127.0.0.1';
  const port = await bindServer(server, host, opts.config.schedulerPort, opts.controlPlane);
  const address = `${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  logger.info({ address, mtls: opts.controlPlane.secure }, 'scheduler listening');
  const jobs = await startJobEngine(deps, [
    ...worldJobKinds,
    ...runJobKinds,
    ...exportJobKinds,
    ...improvementJobKinds,
  ]);
  let closing = false;
  return {
    address,
    deps,
    metrics: deps.metrics.metrics,
    ready: () =>
      readiness({
        jobs: async () => (closing ? 'shutting down' : 'ok'),
        store: async () => (await opts.adapters.store.get('jobs', '_readiness'), 'ok'),
        leases: async () => (await opts.adapters.leases.get('crucible:readiness'), 'ok'),
      }),
    async close() {
      closing = true;
      await jobs.close();
      workers.close();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    },
  };
}
