import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
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

/**
 * The environment of one distributed installation on this machine: fresh scheduler and
 * gateway ports, real NATS and Redis, `dataDir` as the shared SQLite folder.
 */
export async function distributedEnv(dataDir: string): Promise<{ env: Record<string, string>; gatewayUrl: string }> {
  const [schedulerPort, gatewayPort] = [await freePort(), await freePort()];
  const env = {
    SERVICE_DATA_DIR: dataDir,
    NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    SCHEDULER_PORT: String(schedulerPort),
    SCHEDULER_ADDR: `127.0.0.1:${schedulerPort}`,
    PORT: String(gatewayPort),
    HOST: '127.0.0.1',
  };
  return { env, gatewayUrl: `http://127.0.0.1:${gatewayPort}` };
}

/** Resolves once the process has exited (at once if it already has). */
export const exited = (c: ChildProcess): Promise<void> =>
  c.exitCode !== null || c.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((r) => c.once('exit', () => r()));

/** Stops role processes: SIGTERM, SIGKILL for any still running after 15 s. */
export async function stopRoles(children: ChildProcess[]): Promise<void> {
  for (const c of children) c.kill('SIGTERM');
  const killer = setTimeout(() => children.forEach((c) => c.kill('SIGKILL')), 15_000);
  await Promise.all(children.map(exited));
  clearTimeout(killer);
}

/**
 * Waits until `count` workers of this test process (ids ending in `-<pid>`) report `up` in
 * the gateway's health; answers that health body.
 */
export async function workersUp(
  gatewayUrl: string,
  count: number,
  timeoutMs = 120_000,
): Promise<{ workers: Array<{ id: string; status: string }> }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await fetch(`${gatewayUrl}/v1/health`)
      .then((r) => r.json() as Promise<{ workers?: Array<{ id: string; status: string }> }>)
      .catch(() => null);
    const mine = (body?.workers ?? []).filter((w) => w.id.endsWith(`-${process.pid}`) && w.status === 'up');
    if (body && mine.length >= count) return { ...body, workers: body.workers ?? [] };
    if (Date.now() > deadline) throw new Error(`${count} workers did not come up`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Pids of the processes (other than this one) whose environment names `dir`: the roles and
 * sandboxes of an installation whose folders live under it.
 */
export function processesUsing(dir: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(dir)) out.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}
