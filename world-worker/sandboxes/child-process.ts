import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ServiceError } from '../../core/index.js';
import { PRIVATE_DIR_MODE, newId } from '../../core/index.js';
import type { ServiceSpec, WorldManifest } from '../../world/index.js';
import { freePort } from './free-port.js';
import { listensInGroup } from './listener-owner.js';
import { dataFiles, groupMembers } from './probe.js';
import { CHILD_PROCESS_ISOLATION } from './isolation.js';
import type { SandboxPidFiles } from './pid-files.js';
import {
  Tail,
  fillEnv,
  waitHealthy,
  type SandboxHandle,
  type SandboxService,
  type SandboxStartOptions,
  type Sandboxes,
} from './sandboxes.js';

export interface ChildProcessSandboxesOptions {
  /** Extra environment for every service (the base is PATH and TZ=UTC only: no secrets leak in). */
  env?: Record<string, string>;
  /** Grace period between SIGTERM and SIGKILL on stop; default 2 s. */
  stopGraceMs?: number;
  /** Where each service's process group is recorded, so a worker killed with SIGKILL has them reaped on its restart. */
  pidFiles?: SandboxPidFiles;
  /** Where a service's port comes from; default a port the kernel just freed (free-port.ts). Tests hand out a taken one. */
  pickPort?: () => Promise<number>;
}

interface Running {
  spec: ServiceSpec;
  child: ChildProcess;
  port: number;
  stderr: Tail;
  exited: Promise<void>;
  exitCode: () => number | string | null;
}

/** Process groups still alive anywhere in this process; killed if the process exits. */
const LIVE_GROUPS = new Set<number>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of LIVE_GROUPS) killGroup(pid, 'SIGKILL');
  });
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/**
 * The embedded sandbox: each service is a child process (its own process group) on a
 * free loopback port, started from the source folder as working directory. `node` in a
 * service's command is this process's own Node binary.
 */
export class ChildProcessSandboxes implements Sandboxes {
  readonly kind = 'process' as const;
  readonly isolation = CHILD_PROCESS_ISOLATION;
  readonly #env: Record<string, string>;
  readonly #graceMs: number;
  readonly #handles = new Set<SandboxHandle>();
  readonly #pidFiles: SandboxPidFiles | null;
  readonly #pickPort: () => Promise<number>;

  constructor(opts: ChildProcessSandboxesOptions = {}) {
    this.#pidFiles = opts.pidFiles ?? null;
    this.#pickPort = opts.pickPort ?? (() => freePort());
    this.#env = { PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`, TZ: 'UTC', ...opts.env };
    this.#graceMs = opts.stopGraceMs ?? 2000;
    installExitHook();
  }

  async start(
    sourceDir: string,
    manifest: WorldManifest,
    dataDir: string,
    options: SandboxStartOptions = {},
  ): Promise<SandboxHandle> {
    const cwd = path.resolve(sourceDir);
    const data = path.resolve(dataDir);
    await mkdir(data, { recursive: true, mode: PRIVATE_DIR_MODE });
    const timeoutMs = options.healthTimeoutMs ?? 15_000;
    const running: Running[] = [];
    const stopAll = () => Promise.all(running.map((r) => this.#stopOne(r)));
    try {
      for (const spec of manifest.services) running.push(await this.#startService(spec, cwd, data, timeoutMs));
    } catch (err) {
      await stopAll();
      throw err;
    }
    let stopped: Promise<void> | null = null;
    const details: SandboxService[] = running.map((r) => ({
      name: r.spec.name,
      baseUrl: `http://127.0.0.1:${r.port}`,
      pid: r.child.pid!,
    }));
    const handle: SandboxHandle = {
      id: newId('sbx'),
      services: Object.fromEntries(details.map((d) => [d.name, d.baseUrl])),
      details,
      stop: () => {
        stopped ??= stopAll().then(() => {
          this.#handles.delete(handle);
        });
        return stopped;
      },
      alive: () => stopped === null && running.every((r) => r.exitCode() === null),
      probe: async () => ({
        alive: stopped === null && running.every((r) => r.exitCode() === null),
        data: await dataFiles(data),
        processes: groupMembers(details.map((d) => d.pid!)),
      }),
    };
    this.#handles.add(handle);
    return handle;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.#handles].map((h) => h.stop()));
  }

  /** Kills the process groups a killed predecessor on the same data folder recorded (with `pidFiles`). */
  async reap(): Promise<number> {
    return this.#pidFiles?.reapOrphans() ?? 0;
  }

  async #startService(spec: ServiceSpec, cwd: string, data: string, timeoutMs: number): Promise<Running> {
    // a port can be taken between freePort() and the service's bind: try a few times
    for (let attempt = 1; ; attempt++) {
      const r = await this.#spawn(spec, cwd, data);
      const healthy = await waitHealthy(
        `http://127.0.0.1:${r.port}${spec.health}`,
        Date.now() + timeoutMs,
        () => r.exitCode() === null,
      );
      // an answer from a listener that is not this service's (another process took the port
      // first: listener-owner.ts) is no answer: start again on another port
      const another = healthy && listensInGroup(r.port, r.child.pid!) === false;
      if (healthy && !another) return r;
      const how = another
        ? `found port ${r.port} answered by another process`
        : r.exitCode() === null
          ? `did not answer ${spec.health} within ${timeoutMs} ms`
          : `exited (${r.exitCode()}) before answering ${spec.health}`;
      await this.#stopOne(r);
      const tail = r.stderr.toString();
      if (attempt < 3 && (another || /EADDRINUSE/.test(tail))) continue;
      throw new ServiceError(
        'unavailable',
        `sandbox service "${spec.name}" ${how}; stderr tail: ${tail || '(empty)'}`,
        {
          details: { service: spec.name, stderr: tail },
        },
      );
    }
  }

  async #spawn(spec: ServiceSpec, cwd: string, data: string): Promise<Running> {
    const port = await this.#pickPort();
    const env: Record<string, string> = { ...this.#env };
    for (const [k, v] of Object.entries(spec.start.env)) env[k] = fillEnv(v, data, port);
    env[spec.port_env] = String(port);
    const [cmd, ...args] = spec.start.command;
    const exe = cmd === 'node' ? process.execPath : cmd!;
    const child = spawn(
      exe,
      args.map((a) => fillEnv(a, data, port)),
      { cwd, env, detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const stderr = new Tail();
    child.stderr?.on('data', (c: Buffer) => stderr.push(c));
    let code: number | string | null = null;
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (c, signal) => {
        code = c ?? signal ?? 'unknown';
        if (child.pid) {
          LIVE_GROUPS.delete(child.pid);
          this.#pidFiles?.forget(child.pid);
        }
        resolve();
      });
      child.once('error', (err) => {
        stderr.push(`spawn failed: ${err.message}`);
        code = 'spawn_error';
        resolve();
      });
    });
    if (child.pid) {
      LIVE_GROUPS.add(child.pid);
      this.#pidFiles?.record(child.pid, data);
    }
    return { spec, child, port, stderr, exited, exitCode: () => code };
  }

  async #stopOne(r: Running): Promise<void> {
    const pid = r.child.pid;
    if (pid === undefined) return;
    if (r.exitCode() === null) killGroup(pid, 'SIGTERM');
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), this.#graceMs).unref());
    if ((await Promise.race([r.exited.then(() => 'exited' as const), timer])) === 'timeout') {
      killGroup(pid, 'SIGKILL');
      await r.exited;
    }
    // the leader is gone; make sure nothing it forked outlives it
    killGroup(pid, 'SIGKILL');
    LIVE_GROUPS.delete(pid);
  }
}
