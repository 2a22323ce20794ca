/**
 * A distributed installation whose every role runs on a test host of its own (a network
 * namespace of a {@link NetLab}) with a data folder of its own: nothing on disk is shared
 * between roles. The store is a PostgreSQL, the bus a NATS and the leases a Redis, all
 * dedicated to the lab and reached over its network ({@link startLabEngines}). Each role is
 * the CLI's own role command (`crucible scheduler | worker | gateway`) started with
 * `ip netns exec <ns> node …`, so a SIGKILL reaches the role itself.
 */
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createNetLab, netnsUnavailable, type NetHost, type NetLab } from './netns.js';
import { labEnginesUnavailable, startLabEngines, type LabEngines } from './netns-engines.js';
import { controlPlaneFiles } from './roles.js';

export type RoleKind = 'gateway' | 'scheduler' | 'worker';

/** The ports each role listens on inside its own namespace (no other role shares it). */
export const SCHEDULER_PORT = 7070;
export const WORKER_PORT = 7071;
export const GATEWAY_PORT = 8080;

export interface ClusterOptions {
  gateways: number;
  schedulers: number;
  workers: number;
  /**
   * Environment every role gets besides the engines' and its own (WORKER_CAPACITY…); a
   * function is called once the lab is up, to start what the roles need on its network
   * (a loopback model on the bridge address for OPENAI_BASE_URL).
   */
  env?: Record<string, string> | ((lab: NetLab) => Promise<Record<string, string>>);
}

export interface Cluster {
  lab: NetLab;
  engines: LabEngines;
  /** The folder holding every role's folder and the engines' files. */
  root: string;
  /** `gateway-1` … `scheduler-1` … `worker-1` …: the role names, in start order. */
  names: string[];
  /** Role processes by name (the latest one started under that name). */
  children: Map<string, ChildProcess>;
  /** The gateway's URL (`http://<its address>:8080`). */
  gatewayUrl(name: string): string;
  host(name: string): NetHost;
  /** The worker id of a worker role (ends in `-<pid of this test process>`). */
  workerId(name: string): string;
  /** The full environment of a role, as it is started (its own folder as SERVICE_DATA_DIR). */
  envOf(name: string): Record<string, string>;
  /** Starts (or starts again, on its folder) the role `name`; adds its host when new. */
  start(name: string): ChildProcess;
  /** The last of what a role wrote (its log, at `warn` unless DEBUG_ROLES, and any crash), across its restarts. */
  logTail(name: string): string;
  /** SIGKILL, and waits for the exit. */
  kill(name: string): Promise<void>;
  /** A signal (SIGTERM by default), and waits for the exit; answers its exit code. */
  stop(name: string, signal?: NodeJS.Signals): Promise<number | null>;
  /** Stops every role (SIGTERM, SIGKILL after 15 s), the engines, and takes the lab down. */
  close(options?: { keepFiles?: boolean }): Promise<void>;
}

/** Why a cluster cannot be made on this machine, or null. */
export function clusterUnavailable(): string | null {
  return netnsUnavailable() ?? labEnginesUnavailable();
}

/** How much of each role's stderr {@link Cluster.logTail} keeps. */
const TAIL_CHARS = 8_000;

const kindOf = (name: string): RoleKind => name.replace(/-\d+$/, '') as RoleKind;

export const exited = (c: ChildProcess): Promise<void> =>
  c.exitCode !== null || c.signalCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', () => r()));

/**
 * Makes the lab, its engines, a control-plane CA (each role's folder gets a copy of the CA and
 * of its kind's certificate) and starts the roles: schedulers first, then workers, then gateways.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const root = mkdtempSync(path.join(tmpdir(), 'crucible-hosts-'));
  const lab = createNetLab();
  // the engines' files apart from the roles' folders: PostgreSQL's user must walk into its own
  const engineDir = mkdtempSync(path.join(tmpdir(), 'crucible-engines-'));
  let engines: LabEngines | undefined;
  try {
    engines = await startLabEngines(lab, engineDir);
  } catch (err) {
    lab.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(engineDir, { recursive: true, force: true });
    throw err;
  }
  let certs: Awaited<ReturnType<typeof controlPlaneFiles>>;
  let extra: Record<string, string>;
  try {
    certs = await controlPlaneFiles(path.join(root, 'ca'));
    extra = typeof options.env === 'function' ? await options.env(lab) : (options.env ?? {});
  } catch (err) {
    await engines.stop();
    lab.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(engineDir, { recursive: true, force: true });
    throw err;
  }
  const names = [
    ...Array.from({ length: options.schedulers }, (_, i) => `scheduler-${i + 1}`),
    ...Array.from({ length: options.workers }, (_, i) => `worker-${i + 1}`),
    ...Array.from({ length: options.gateways }, (_, i) => `gateway-${i + 1}`),
  ];
  const hostOf = (name: string) => lab.hosts.get(name) ?? lab.host(name);
  // every scheduler's address is known up front: each host's address follows from its order
  for (const name of names) hostOf(name);
  const schedulerAddr = names
    .filter((n) => kindOf(n) === 'scheduler')
    .map((n) => `${hostOf(n).ip}:${SCHEDULER_PORT}`)
    .join(',');
  const children = new Map<string, ChildProcess>();
  const e = engines;
  const envOf = (name: string): Record<string, string> => {
    const kind = kindOf(name);
    const host = hostOf(name);
    const dir = path.join(root, name);
    const own: Record<string, string> =
      kind === 'scheduler'
        ? { SCHEDULER_HOST: host.ip, SCHEDULER_PORT: String(SCHEDULER_PORT) }
        : kind === 'worker'
          ? {
              WORKER_HOST: host.ip,
              WORKER_PORT: String(WORKER_PORT),
              WORKER_ADVERTISE_HOST: host.ip,
              WORKER_ID: `${name}-${process.pid}`,
            }
          : { HOST: host.ip, PORT: String(GATEWAY_PORT) };
    return {
      ...extra,
      DATABASE_URL: e.databaseUrl,
      NATS_URL: e.natsUrl,
      REDIS_URL: e.redisUrl,
      SCHEDULER_ADDR: schedulerAddr,
      SERVICE_DATA_DIR: dir,
      CONTROL_PLANE_CA: path.join(dir, 'tls', 'ca.pem'),
      CONTROL_PLANE_CERT: path.join(dir, 'tls', `${kind}.pem`),
      CONTROL_PLANE_KEY: path.join(dir, 'tls', `${kind}-key.pem`),
      ...own,
    };
  };
  // the role's folder: its own copy of the CA and of its kind's certificate, nothing shared
  const prepare = (name: string) => {
    const kind = kindOf(name);
    const tls = path.join(root, name, 'tls');
    if (existsSync(tls)) return;
    mkdirSync(path.join(root, name), { mode: 0o700 });
    mkdirSync(tls, { mode: 0o700 });
    for (const f of ['ca.pem', `${kind}.pem`, `${kind}-key.pem`])
      copyFileSync(path.join(certs.dir, f), path.join(tls, f));
  };

  const tails = new Map<string, string>();
  const start = (name: string): ChildProcess => {
    const kind = kindOf(name);
    prepare(name);
    const { PATH, HOME, NODE_OPTIONS, NATS_PREFIX } = process.env;
    const child = hostOf(name).spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', kind], {
      env: {
        ...(PATH ? { PATH } : {}),
        ...(HOME ? { HOME } : {}),
        ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}),
        // the test job's own subjects on the shared NATS (test/support/job.ts)
        ...(NATS_PREFIX ? { NATS_PREFIX } : {}),
        OPS_PORT: '0',
        LOG_LEVEL: process.env.DEBUG_ROLES ? 'info' : 'warn',
        ...envOf(name),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // the log (stdout) and anything a crash prints (stderr): echoed with DEBUG_ROLES, the tail always kept
    const take = (d: Buffer) => {
      if (process.env.DEBUG_ROLES) process.stderr.write(`[${name}] ${d}`);
      const kept = (tails.get(name) ?? '') + d.toString('utf8');
      tails.set(name, kept.length > TAIL_CHARS ? kept.slice(-TAIL_CHARS) : kept);
    };
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    children.set(name, child);
    return child;
  };
  const stop = async (name: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    const c = children.get(name);
    if (!c) return null;
    c.kill(signal);
    await exited(c);
    return c.exitCode;
  };
  for (const name of names) start(name);
  return {
    lab,
    engines: e,
    root,
    names,
    children,
    gatewayUrl: (name) => `http://${hostOf(name).ip}:${GATEWAY_PORT}`,
    host: hostOf,
    workerId: (name) => `${name}-${process.pid}`,
    envOf,
    start,
    logTail: (name) => tails.get(name) ?? '',
    kill: async (name) => void (await stop(name, 'SIGKILL')),
    stop,
    async close({ keepFiles = false } = {}) {
      const all = [...children.values()];
      for (const c of all) c.kill('SIGTERM');
      const killer = setTimeout(() => all.forEach((c) => c.kill('SIGKILL')), 15_000);
      await Promise.all(all.map(exited));
      clearTimeout(killer);
      await e.stop();
      lab.close();
      rmSync(engineDir, { recursive: true, force: true });
      if (!keepFiles) rmSync(root, { recursive: true, force: true });
    },
  };
}
