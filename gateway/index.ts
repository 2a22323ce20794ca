import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startOpsServer } from '../core/index.js';
import type { Config, ControlPlane, OpsServer } from '../core/index.js';
import type { Logger } from '../core/index.js';
import type { Adapters } from '../core/index.js';
import { createGatewayApp, type GatewayParts } from './app.js';
import { SchedulerClient } from './scheduler-client.js';
import { answerClientErrors } from './client-errors.js';
import type { LocalWorkers } from '../world-worker/index.js';

export type { LocalHandler } from './pipeline.js';

export interface RunningGateway extends GatewayParts {
  server: http.Server;
  port: number;
  url: string;
  /** The operator listener (`/metrics`, `/healthz`, `/readyz`); null with OPS_PORT=off. */
  opsUrl: string | null;
  close(): Promise<void>;
}

export async function startGateway(opts: {
  config: Config;
  adapters: Adapters;
  logger: Logger;
  schedulerAddr: string;
  host?: string;
  port?: number;
  /** World-workers of this process (embedded shape), reached without gRPC by the external-agent path. */
  localWorkers?: LocalWorkers;
  /** Its gRPC credentials, for the schedulers and (external-agent path) the workers. */
  controlPlane: ControlPlane;
}): Promise<RunningGateway> {
  const logger = opts.logger.child({ component: 'gateway' });
  const scheduler = new SchedulerClient(opts.schedulerAddr, opts.controlPlane);
  const parts = await createGatewayApp({
    config: opts.config,
    adapters: opts.adapters,
    logger,
    scheduler,
    localWorkers: opts.localWorkers,
    controlPlane: opts.controlPlane,
  });
  const server = http.createServer(parts.app);
  answerClientErrors(server);
  // SSE streams stay open for as long as a run; idle keep-alive sockets close as usual.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  const host = opts.host ?? opts.config.host;
  const wanted = opts.port ?? opts.config.port;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(wanted, host, () => resolve());
  }).catch((err: unknown) => {
    scheduler.close();
    parts.close();
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    throw new Error(
      `the API port ${host}:${wanted} (PORT) is in use by another process (another Crucible on this machine?); stop it, or give this one another PORT and its own SERVICE_DATA_DIR`,
      { cause: err },
    );
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${port}`;
  logger.info({ url }, 'gateway listening');
  let opsServer: OpsServer | null = null;
  try {
    opsServer =
      opts.config.opsPort === null
        ? null
        : await startOpsServer(parts.ops, opts.config.opsHost, opts.config.opsPort, logger, {
            fallback: opts.config.opsPortDefaulted,
          });
  } catch (err) {
    server.closeAllConnections();
    server.close();
    scheduler.close();
    parts.close();
    throw err;
  }
  const opsHost = ['0.0.0.0', '::'].includes(opts.config.opsHost) ? '127.0.0.1' : opts.config.opsHost;
  return {
    ...parts,
    server,
    port,
    url,
    opsUrl: opsServer ? `http://${opsHost.includes(':') ? `[${opsHost}]` : opsHost}:${opsServer.port}` : null,
    async close() {
      await opsServer?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      scheduler.close();
      parts.close();
    },
  };
}
