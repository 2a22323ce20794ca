import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A loopback port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts one role of the distributed shape (`crucible scheduler | worker | gateway`) as its
 * own process from the TypeScript sources. Set DEBUG_ROLES=1 to see its log.
 */
export function role(name: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', name], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (d: Buffer) => process.env.DEBUG_ROLES && process.stderr.write(`[${name}] ${d}`));
  return child;
}
