import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { ServiceError } from '../../core/index.js';
import { newId } from '../../core/index.js';
import type { ServiceSpec, WorldManifest } from '../../world/index.js';
import { CONTAINER_ISOLATION } from './isolation.js';
import { LoopbackForwarder, RELAY_PROGRAM } from './relay.js';
import { failure, probeContainers } from './docker-inspect.js';
import {
  fillEnv,
  waitHealthy,
  type SandboxHandle,
  type SandboxService,
  type SandboxStartOptions,
  type Sandboxes,
} from './sandboxes.js';

/** Port every service listens on inside its container. */
const CONTAINER_PORT = 8080;
/** Where the source is mounted (read-only). */
const SOURCE_MOUNT = '/app';
/**
 * The sandbox's data folder (`{data}`): the shared-memory tmpfs of the sandbox's IPC
 * namespace, which every service of the sandbox joins, sized by `dataMb`. Nothing of the
 * worker's disk is mounted writable, so a service that writes past the size gets ENOSPC
 * inside its container and the worker's disk never fills.
 */
const DATA_MOUNT = '/dev/shm';
const PINNED = /^[^\s@]+@sha256:[0-9a-f]{64}$/;
/** The unprivileged user every sandbox process runs as (nobody). */
const SANDBOX_USER = 65534;
/** Label naming the worker (or data folder) that owns a container, for reaping. */
export const OWNER_LABEL = 'crucible.owner';
/** Label of a service that joined another's IPC namespace (the sandbox's data tmpfs): that one's id. */
const DATA_OF_LABEL = 'crucible.data-of';

/** Per-service resource limits. */
export interface ContainerLimits {
  /** Memory in MiB, swap included (no swap beyond it). */
  memoryMb: number;
  /** Processes and threads. */
  pids: number;
  /** CPUs (fractions allowed). */
  cpus: number;
  /**
   * Size of the sandbox's data folder in MiB, shared by its services (a tmpfs: what is
   * written there is memory charged to the service that wrote it, so keep it below `memoryMb`).
   */
  dataMb: number;
}

export interface DockerSandboxesOptions {
  /** DOCKER_HOST form: `unix:///run/podman/podman.sock`. The engine must run on this machine. */
  dockerHost?: string;
  /** A ready client (tests); wins over `dockerHost`. */
  docker?: Docker;
  /** Pinned image holding /usr/bin/node, for the relay sidecars (SANDBOX_RUNTIME_IMAGE). */
  relayImage: string;
  /** Value of the owner label on every container; `reap()` removes this owner's leftovers. */
  owner: string;
  limits?: Partial<ContainerLimits>;
}

export const DEFAULT_LIMITS: ContainerLimits = { memoryMb: 512, pids: 256, cpus: 1, dataMb: 128 };

/** dockerode options from a DOCKER_HOST value (unix sockets only: sources are bind-mounted). */
export function parseDockerHost(value: string | undefined): { options: Docker.DockerOptions } {
  if (!value || value.startsWith('unix://'))
    return { options: { socketPath: value ? value.slice('unix://'.length) : '/var/run/docker.sock' } };
  const url = new URL(value.replace(/^tcp:\/\//, 'http://'));
  return {
    options: { host: url.hostname, port: url.port || 2375, protocol: url.protocol === 'https:' ? 'https' : 'http' },
  };
}

interface Started {
  service: Docker.Container;
  relay: Docker.Container | null;
  forwarder: LoopbackForwarder | null;
  socketDir: string;
  detail: SandboxService;
  /** False once the engine reported the service container's exit. */
  running: boolean;
}

/**
 * The container sandbox (Docker or podman's Docker-compatible API). Each service runs in
 * its own container from the application's pinned image (`images[service.image]`,
 * `name[:tag]@sha256:<digest>`), as user nobody with every capability dropped, a
 * read-only root filesystem, the source read-only at /app (the working directory),
 * `start.command` as the command, and memory, process and CPU limits. The data folder
 * (`{data}`) is /dev/shm: a tmpfs of `dataMb` MiB in the IPC namespace of the sandbox's
 * first service, which the others join, so the services share it as they share the data
 * dir of a child-process sandbox. It lives as long as the sandbox: the `dataDir` argument
 * is not mounted (nothing of the worker's disk is writable from inside), and a sandbox
 * started again on the same `dataDir` starts empty.
 *
 * Network: the service container has no network but loopback (`none`), so it reaches
 * nothing: not the host, not other sandboxes, not the internet. A relay sidecar sharing
 * only its network namespace forwards a unix socket (in a folder the service does not
 * see) to the service's port, and the worker publishes that socket on a 127.0.0.1 port.
 * In env values `{data}` becomes /dev/shm and `{port}` the container port (8080).
 */
export class DockerSandboxes implements Sandboxes {
  readonly kind = 'docker' as const;
  readonly isolation = CONTAINER_ISOLATION;
  readonly #docker: Docker;
  readonly #relayImage: string;
  readonly #owner: string;
  readonly #limits: ContainerLimits;
  readonly #handles = new Set<SandboxHandle>();
  readonly #pulled = new Map<string, Promise<void>>();

  constructor(opts: DockerSandboxesOptions) {
    this.#docker = opts.docker ?? new Docker(parseDockerHost(opts.dockerHost).options);
    this.#relayImage = opts.relayImage;
    this.#owner = opts.owner;
    this.#limits = { ...DEFAULT_LIMITS, ...opts.limits };
    if (!PINNED.test(this.#relayImage))
      throw new ServiceError('bad_request', `SANDBOX_RUNTIME_IMAGE must be pinned by digest, got "${opts.relayImage}"`);
  }

  /** The engine client (tests inspect containers through it). */
  get docker(): Docker {
    return this.#docker;
  }

  async start(
    sourceDir: string,
    manifest: WorldManifest,
    _dataDir: string, // not mounted: the data folder is the sandbox's sized tmpfs (DATA_MOUNT)
    options: SandboxStartOptions = {},
  ): Promise<SandboxHandle> {
    const images = options.images ?? {};
    for (const s of manifest.services) {
      const ref = images[s.image];
      if (!ref)
        throw new ServiceError(
          'bad_request',
          `no image pin for service "${s.name}" (images.${s.image}); the container sandbox needs one`,
        );
      if (!PINNED.test(ref))
        throw new ServiceError(
          'bad_request',
          `image pin for "${s.name}" must be pinned by digest (name@sha256:<64 hex>), got "${ref}"`,
        );
    }
    const id = newId('sbx');
    const started: Started[] = [];
    // the services that joined the first one's IPC namespace first: the engine keeps a
    // container that others depend on
    const removeAll = async () => {
      await Promise.all(started.slice(1).map((s) => this.#remove(s)));
      if (started[0]) await this.#remove(started[0]);
    };
    try {
      for (const spec of manifest.services) {
        const labels = { ...options.labels, 'crucible.sandbox': id, 'crucible.service': spec.name };
        const timeoutMs = options.healthTimeoutMs ?? 60_000;
        // the first service owns the sandbox's IPC namespace and so its data tmpfs; the others join it
        const ipc = started[0] ? `container:${started[0].service.id}` : null;
        started.push(
          await this.#startService(spec, images[spec.image]!, path.resolve(sourceDir), ipc, labels, timeoutMs),
        );
      }
    } catch (err) {
      await removeAll();
      throw err;
    }
    let stopped: Promise<void> | null = null;
    const details = started.map((s) => s.detail);
    const handle: SandboxHandle = {
      id,
      services: Object.fromEntries(details.map((d) => [d.name, d.baseUrl])),
      details,
      stop: () => {
        stopped ??= removeAll().then(() => {
          this.#handles.delete(handle);
        });
        return stopped;
      },
      alive: () => stopped === null && started.every((s) => s.running),
      probe: () => probeContainers(started, DATA_MOUNT, `${SANDBOX_USER}:${SANDBOX_USER}`),
    };
    this.#handles.add(handle);
    return handle;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.#handles].map((h) => h.stop()));
  }

  /**
   * Removes every container labelled with this owner that no live handle of this instance
   * holds: what a killed worker left behind. Called once when a worker starts.
   *
   * @returns how many containers were removed.
   */
  async reap(): Promise<number> {
    const mine = new Set([...this.#handles].flatMap((h) => h.details.map((d) => d.containerId)));
    const leftovers = await this.#docker.listContainers({
      all: true,
      filters: { label: [`${OWNER_LABEL}=${this.#owner}`] },
    });
    const gone = leftovers.filter((c) => !mine.has(c.Id) && !mine.has(c.Labels['crucible.relay-for'] ?? ''));
    // relays first (a relay shares its service's network namespace), then the services that
    // joined another's IPC namespace (its data tmpfs), then the rest
    const rank = (c: Docker.ContainerInfo) =>
      'crucible.relay-for' in c.Labels ? 0 : DATA_OF_LABEL in c.Labels ? 1 : 2;
    gone.sort((a, b) => rank(a) - rank(b));
    for (const c of gone)
      await this.#docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined);
    return gone.length;
  }

  #ensureImage(ref: string): Promise<void> {
    let p = this.#pulled.get(ref);
    if (!p) {
      p = this.#pull(ref);
      this.#pulled.set(ref, p);
      p.catch(() => this.#pulled.delete(ref));
    }
    return p;
  }

  async #pull(ref: string): Promise<void> {
    try {
      await this.#docker.getImage(ref).inspect();
      return;
    } catch {
      // not present: pull it
    }
    try {
      const stream = await this.#docker.pull(ref);
      await new Promise<void>((resolve, reject) =>
        this.#docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
      );
    } catch (err) {
      throw new ServiceError('unavailable', `could not pull image ${ref}: ${(err as Error).message}`, { cause: err });
    }
  }

  async #startService(
    spec: ServiceSpec,
    image: string,
    source: string,
    ipc: string | null,
    labels: Record<string, string>,
    timeoutMs: number,
  ): Promise<Started> {
    await Promise.all([this.#ensureImage(image), this.#ensureImage(this.#relayImage)]);
    const env = Object.entries(spec.start.env).map(([k, v]) => `${k}=${fillEnv(v, DATA_MOUNT, CONTAINER_PORT)}`);
    env.push(`${spec.port_env}=${CONTAINER_PORT}`, 'TZ=UTC');
    const { memoryMb, pids, cpus, dataMb } = this.#limits;
    const service = await this.#docker.createContainer({
      Image: image,
      Cmd: spec.start.command.map((a) => fillEnv(a, DATA_MOUNT, CONTAINER_PORT)),
      WorkingDir: SOURCE_MOUNT,
      Env: env,
      User: `${SANDBOX_USER}:${SANDBOX_USER}`,
      Labels: {
        ...labels,
        [OWNER_LABEL]: this.#owner,
        ...(ipc ? { [DATA_OF_LABEL]: ipc.slice('container:'.length) } : {}),
      },
      HostConfig: {
        ...LOCKED_DOWN,
        NetworkMode: 'none',
        Binds: [`${source}:${SOURCE_MOUNT}:ro`],
        ...(ipc ? { IpcMode: ipc } : { IpcMode: 'shareable', ShmSize: dataMb * 1024 * 1024 }),
        Memory: memoryMb * 1024 * 1024,
        MemorySwap: memoryMb * 1024 * 1024,
        PidsLimit: pids,
        NanoCpus: Math.round(cpus * 1e9),
      },
    });
    const socketDir = await relaySocketDir();
    const s: Started = {
      service,
      relay: null,
      forwarder: null,
      socketDir,
      detail: { name: spec.name, baseUrl: '', containerId: service.id },
      running: true,
    };
    try {
      await service.start();
      service.wait().then(
        () => (s.running = false),
        () => (s.running = false),
      );
      try {
        await this.#startRelay(s, service.id, labels);
      } catch (err) {
        // a service that died at once takes its network namespace with it: say so, with its log
        if (!(await service.inspect().catch(() => null))?.State.Running) throw await failure(service, spec, timeoutMs);
        throw new ServiceError(
          'unavailable',
          `sandbox service "${spec.name}": its relay did not start: ${(err as Error).message}`,
        );
      }
      s.forwarder = await LoopbackForwarder.open(path.join(socketDir, 's', 'service.sock'));
      s.detail.baseUrl = `http://127.0.0.1:${s.forwarder.port}`;
      const healthy = await waitHealthy(`${s.detail.baseUrl}${spec.health}`, Date.now() + timeoutMs, () => s.running);
      if (!healthy) throw await failure(service, spec, timeoutMs);
      return s;
    } catch (err) {
      await this.#remove(s);
      throw err;
    }
  }

  /** The relay sidecar in the service's network namespace, serving `<socketDir>/s/service.sock`. */
  async #startRelay(s: Started, serviceId: string, labels: Record<string, string>): Promise<void> {
    s.relay = await this.#docker.createContainer({
      Image: this.#relayImage,
      Cmd: ['/usr/bin/node', '-e', RELAY_PROGRAM, '/relay/service.sock', String(CONTAINER_PORT)],
      User: `${SANDBOX_USER}:${SANDBOX_USER}`,
      Labels: { ...labels, [OWNER_LABEL]: this.#owner, 'crucible.relay-for': serviceId },
      HostConfig: {
        ...LOCKED_DOWN,
        NetworkMode: `container:${serviceId}`,
        Binds: [`${path.join(s.socketDir, 's')}:/relay:rw`],
        Memory: 128 * 1024 * 1024,
        MemorySwap: 128 * 1024 * 1024,
        PidsLimit: 32,
      },
    });
    await s.relay.start();
  }

  async #remove(s: Started): Promise<void> {
    await s.forwarder?.close();
    await s.relay?.remove({ force: true, v: true }).catch(() => undefined);
    await s.service.stop({ t: 2 }).catch(() => undefined);
    await s.service.remove({ force: true, v: true }).catch(() => undefined);
    await rm(s.socketDir, { recursive: true, force: true });
  }
}

/**
 * What every container gets: no capabilities, no privilege gain, nothing writable but /tmp
 * and mounts, and a container log (what it writes to stdout and stderr, kept on the engine's
 * disk) of at most 1 MiB, its oldest part dropped first.
 */
const LOCKED_DOWN = {
  CapDrop: ['ALL'],
  SecurityOpt: ['no-new-privileges'],
  ReadonlyRootfs: true,
  Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=64m' },
  LogConfig: { Type: 'json-file', Config: { 'max-size': '1m', 'max-file': '1' } },
  AutoRemove: false,
};

/**
 * Lets the relay's user (nobody) create its socket in `dir`: owned by it when we are root,
 * else open to every user, as a user that is not root cannot give a folder to another. The
 * folder's parent is private (mkdtemp, 0700), so on the host only this user reaches it.
 */
async function ownForSandbox(dir: string): Promise<void> {
  if (process.getuid?.() === 0) await chown(dir, SANDBOX_USER, SANDBOX_USER);
  else await chmod(dir, 0o777);
}

/** A fresh folder for one relay socket (`<returned>/s`), inside a folder only this process may enter. */
async function relaySocketDir(): Promise<string> {
  const outer = await mkdtemp(path.join(tmpdir(), 'crucible-relay-'));
  const inner = path.join(outer, 's');
  await mkdir(inner);
  await ownForSandbox(inner);
  return outer;
}
