#!/usr/bin/env node
import { Command } from 'commander';
import { lazyCommand, registerClientCommands } from './commands/index.js';

// Server code is loaded only by the commands that run it, so client commands (and the MCP
// server) start in a fraction of the time.
const roles = () => import('./roles.js');
/** The server's configuration from the environment; core is loaded only by the commands that read it. */
const loadConfig = async () => (await import('../core/index.js')).loadConfig();

/** Stops cleanly on Ctrl-C / SIGTERM. */
function onSignal(stop: () => Promise<void>): void {
  let stopping = false;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      if (stopping) process.exit(1);
      stopping = true;
      // A shutdown that hangs (a peer that never answers) must not keep the process alive.
      setTimeout(() => process.exit(1), 10_000).unref();
      stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

function fail(err: unknown): never {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

const program = new Command('crucible')
  .description('Crucible: test software agents against simulated worlds')
  .version('0.1.2');

program
  .command('start')
  .description('run the whole service in one process (gateway, scheduler, one world-worker)')
  .action(async () => {
    const config = await loadConfig();
    const svc = await (await roles()).startEmbedded(config);
    const { startBanner } = await import('./banner.js');
    const { writeServerMarker } = await import('./server-marker.js');
    const base = config.publicUrl ?? `http://localhost:${svc.gateway.port}`;
    const removeMarker = writeServerMarker(config.dataDir, base);
    onSignal(async () => {
      removeMarker();
      await svc.close();
    });
    process.stdout.write(
      startBanner(config, { port: svc.gateway.port, opsUrl: svc.gateway.opsUrl, engines: svc.adapters.engines }),
    );
  });

program
  .command('gateway')
  .description('run a gateway (needs SCHEDULER_ADDR and CONTROL_PLANE_CA/CERT/KEY; PORT for HTTP)')
  .action(async () => onSignal(await (await roles()).runGatewayRole(await loadConfig())));

program
  .command('scheduler')
  .description(
    'run a scheduler (gRPC with mutual TLS on SCHEDULER_HOST:SCHEDULER_PORT, default 127.0.0.1:7070; needs CONTROL_PLANE_CA/CERT/KEY)',
  )
  .action(async () => onSignal(await (await roles()).runSchedulerRole(await loadConfig())));

program
  .command('worker')
  .description(
    'run a world-worker (needs SCHEDULER_ADDR and CONTROL_PLANE_CA/CERT/KEY; gRPC on WORKER_HOST:WORKER_PORT)',
  )
  .action(async () => onSignal(await (await roles()).runWorkerRole(await loadConfig())));

lazyCommand(program, {
  usage: 'admin',
  description: 'operator commands, run on the server with its environment',
  fill: async () => (await import('./admin-commands.js')).registerAdminCommands,
});

registerClientCommands(program);
// after every command is made, so none inherits it: only `admin certs revoke` needs it (see there)
program.enablePositionalOptions();

program.parseAsync(process.argv).catch(fail);
