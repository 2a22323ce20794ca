import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { issueCertificateFiles } from '../../cli/admin-certs.js';
import type { ControlPlanePems, ControlPlaneRole } from '../../core/control-plane.js';
import { freePort as jobFreePort, jobScoped } from './job.js';

/** A control-plane CA and one certificate per role, as `crucible admin certs` writes them. */
export interface ControlPlaneFiles {
  dir: string;
  /** CONTROL_PLANE_CA, _CERT and _KEY of the certificate named `name` (a role's by default). */
  env(name: string): Record<string, string>;
  /** The same certificate read back, for roles started in the test process. */
  pems(name: string): ControlPlanePems;
  /** One PEM set per role, as `startEmbedded` takes them. */
  embedded(): Record<ControlPlaneRole, ControlPlanePems>;
}

/** Issues a CA and a gateway, scheduler and worker certificate into `dir` (made if missing). */
export async function controlPlaneFiles(dir: string): Promise<ControlPlaneFiles> {
  await issueCertificateFiles(dir, [
    { role: 'gateway', name: 'gateway' },
    { role: 'scheduler', name: 'scheduler' },
    { role: 'worker', name: 'worker' },
  ]);
  const env = (name: string) => ({
    CONTROL_PLANE_CA: path.join(dir, 'ca.pem'),
    CONTROL_PLANE_CERT: path.join(dir, `${name}.pem`),
    CONTROL_PLANE_KEY: path.join(dir, `${name}-key.pem`),
  });
  const pems = (name: string) => {
    const e = env(name);
    return {
      ca: readFileSync(e.CONTROL_PLANE_CA, 'utf8'),
      cert: readFileSync(e.CONTROL_PLANE_CERT, 'utf8'),
      key: readFileSync(e.CONTROL_PLANE_KEY, 'utf8'),
    };
  };
  return {
    dir,
    env,
    pems,
    embedded: () => ({ gateway: pems('gateway'), scheduler: pems('scheduler'), worker: pems('worker') }),
  };
}

/** A loopback port nothing listens on right now, from the test job's own block (test/support/job.ts). */
export const freePort = (): Promise<number> => jobFreePort('127.0.0.1');

/**
 * Starts one role of the distributed shape (`crucible scheduler | worker | gateway`) as its
 * own process from the TypeScript sources. Set DEBUG_ROLES=1 to see its log. With
 * TEST_CONTROL_PLANE_DIR in `env` (a folder of {@link controlPlaneFiles}), the role gets the
 * CA and the certificate of its kind from there. SERVICE_STORE_SHARED_SQLITE is set (the
 * roles of a test share one SQLite file on this machine) unless `env` says otherwise.
 */
export function role(name: string, env: Record<string, string>): ChildProcess {
  const { TEST_CONTROL_PLANE_DIR: dir, ...rest } = env;
  const certs = dir
    ? {
        CONTROL_PLANE_CA: path.join(dir, 'ca.pem'),
        CONTROL_PLANE_CERT: path.join(dir, `${name}.pem`),
        CONTROL_PLANE_KEY: path.join(dir, `${name}-key.pem`),
      }
    : {};
  const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', name], {
    // roles of a test share one SQLite file (SERVICE_SQLITE_FILE) unless the test gives DATABASE_URL
    env: { ...process.env, LOG_LEVEL: 'warn', SERVICE_STORE_SHARED_SQLITE: '1', ...rest, ...certs },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (d: Buffer) => process.env.DEBUG_ROLES && process.stderr.write(`[${name}] ${d}`));
  return child;
}

/**
 * The environment of one distributed installation on this machine: fresh scheduler and
 * gateway ports, real NATS and Redis, `dataDir` as the shared SQLite folder, and a
 * control-plane CA with a certificate per role in `dataDir/control-plane` ({@link role}
 * gives each role its own; loadConfig ignores TEST_CONTROL_PLANE_DIR).
 */
export async function distributedEnv(dataDir: string): Promise<{ env: Record<string, string>; gatewayUrl: string }> {
  const [schedulerPort, gatewayPort] = [await freePort(), await freePort()];
  const certs = await controlPlaneFiles(path.join(dataDir, 'control-plane'));
  const env = {
    TEST_CONTROL_PLANE_DIR: certs.dir,
    SERVICE_DATA_DIR: dataDir,
    NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    // this installation's own worker registry and leases on the shared Redis
    REDIS_PREFIX: `${jobScoped('crucible-roles')}:`,
    SCHEDULER_PORT: String(schedulerPort),
    SCHEDULER_ADDR: `127.0.0.1:${schedulerPort}`,
    PORT: String(gatewayPort),
    HOST: '127.0.0.1',
    // each role's operator port from the kernel: parallel test files would all ask for the default
    OPS_PORT: '0',
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
 * Waits until `count` workers report `up` in the gateway's health (`workers_up`: anonymous
 * callers see counts, not worker ids); answers that health body. The installation must have
 * a worker registry of its own (a REDIS_PREFIX of its own, as distributedEnv gives it).
 */
export async function workersUp(
  gatewayUrl: string,
  count: number,
  timeoutMs = 120_000,
): Promise<{ workers_up: number; workers_total: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await fetch(`${gatewayUrl}/v1/health`)
      .then((r) => r.json() as Promise<{ workers_up?: number; workers_total?: number }>)
      .catch(() => null);
    if (body && (body.workers_up ?? 0) >= count)
      return { workers_up: body.workers_up!, workers_total: body.workers_total ?? 0 };
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
