import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import Docker from 'dockerode';
import { ServiceError } from '../../core/index.js';
import { newId } from '../../core/index.js';
import type { ServiceSpec, WorldManifest } from '../../world/index.js';
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
/** Where the source (read-only) and the data dir are mounted. */
const SOURCE_MOUNT = '/app';
const DATA_MOUNT = '/data';
const PINNED = /^[^\s@]+@sha256:[0-9a-f]{64}$/;

export interface DockerSandboxesOptions {
  /** DOCKER_HOST form: `unix:///var/run/docker.sock`, `tcp://host:2375`, `http(s)://host:port`. */
  dockerHost?: string;
  /** A ready client (tests); wins over `dockerHost`. */
  docker?: Docker;
}

/** dockerode options and the host the published ports are reached at, from a DOCKER_HOST value. */
export function parseDockerHost(value: string | undefined): { options: Docker.DockerOptions; publishedHost: string } {
  if (!value || value.startsWith('unix://')) {
    return {
      options: { socketPath: value ? value.slice('unix://'.length) : '/var/run/docker.sock' },
      publishedHost: '127.0.0.1',
    };
  }
  const url = new URL(value.replace(/^tcp:\/\//, 'http://'));
  return {
    options: { host: url.hostname, port: url.port || 2375, protocol: url.protocol === 'https:' ? 'https' : 'http' },
    publishedHost: url.hostname,
  };
}

/**
 * The engine sandbox: one container per service from the application's pinned image
 * (`images[service.image]`, which must be `name@sha256:<digest>` or `name:tag@sha256:...`),
 * the source folder mounted read-only at /app (the working directory), the data dir at
 * /data, `start.command` as the command, the port published on the Docker host's loopback.
 * In env values `{data}` becomes /data and `{port}` the container port (8080).
 */
export class DockerSandboxes implements Sandboxes {
  readonly kind = 'docker' as const;
  readonly #docker: Docker;
  readonly #publishedHost: string;
  readonly #handles = new Set<SandboxHandle>();

  constructor(opts: DockerSandboxesOptions = {}) {
    const parsed = parseDockerHost(opts.dockerHost);
    this.#docker = opts.docker ?? new Docker(parsed.options);
    this.#publishedHost = parsed.publishedHost;
  }

  async start(
    sourceDir: string,
    manifest: WorldManifest,
    dataDir: string,
    options: SandboxStartOptions = {},
  ): Promise<SandboxHandle> {
    const images = options.images ?? {};
    for (const s of manifest.services) {
      const ref = images[s.image];
      if (!ref)
        throw new ServiceError(
          'bad_request',
          `no image pin for service "${s.name}" (images.${s.image}); the Docker sandbox needs one`,
        );
      if (!PINNED.test(ref))
        throw new ServiceError(
          'bad_request',
          `image pin for "${s.name}" must be pinned by digest (name@sha256:<64 hex>), got "${ref}"`,
        );
    }
    const id = newId('sbx');
    const data = path.resolve(dataDir);
    await mkdir(data, { recursive: true });
    const started: Array<{ container: Docker.Container; detail: SandboxService }> = [];
    const removeAll = () => Promise.all(started.map((s) => this.#remove(s.container)));
    try {
      for (const spec of manifest.services) {
        started.push(
          await this.#startService(
            id,
            spec,
            images[spec.image]!,
            path.resolve(sourceDir),
            data,
            options.healthTimeoutMs ?? 60_000,
          ),
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
    };
    this.#handles.add(handle);
    return handle;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.#handles].map((h) => h.stop()));
  }

  async #ensureImage(ref: string): Promise<void> {
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
    sandboxId: string,
    spec: ServiceSpec,
    image: string,
    source: string,
    data: string,
    timeoutMs: number,
  ) {
    await this.#ensureImage(image);
    const env = Object.entries(spec.start.env).map(([k, v]) => `${k}=${fillEnv(v, DATA_MOUNT, CONTAINER_PORT)}`);
    env.push(`${spec.port_env}=${CONTAINER_PORT}`, 'TZ=UTC');
    const container = await this.#docker.createContainer({
      Image: image,
      Cmd: spec.start.command.map((a) => fillEnv(a, DATA_MOUNT, CONTAINER_PORT)),
      WorkingDir: SOURCE_MOUNT,
      Env: env,
      Labels: { 'crucible.sandbox': sandboxId, 'crucible.service': spec.name },
      ExposedPorts: { [`${CONTAINER_PORT}/tcp`]: {} },
      HostConfig: {
        Binds: [`${source}:${SOURCE_MOUNT}:ro`, `${data}:${DATA_MOUNT}`],
        PortBindings: { [`${CONTAINER_PORT}/tcp`]: [{ HostIp: '127.0.0.1', HostPort: '' }] },
        AutoRemove: false,
      },
    });
    try {
      await container.start();
      const info = await container.inspect();
      const hostPort = info.NetworkSettings.Ports[`${CONTAINER_PORT}/tcp`]?.[0]?.HostPort;
      if (!hostPort) throw new ServiceError('unavailable', `sandbox service "${spec.name}": Docker published no port`);
      const baseUrl = `http://${this.#publishedHost}:${hostPort}`;
      let running = true;
      const healthy = await waitHealthy(`${baseUrl}${spec.health}`, Date.now() + timeoutMs, () => running);
      if (!healthy) {
        running = (await container.inspect().catch(() => null))?.State.Running ?? false;
        const logs = await this.#logTail(container);
        throw new ServiceError(
          'unavailable',
          `sandbox service "${spec.name}" ${running ? `did not answer ${spec.health} within ${timeoutMs} ms` : 'exited before becoming healthy'}; log tail: ${logs || '(empty)'}`,
          {
            details: { service: spec.name, stderr: logs },
          },
        );
      }
      return { container, detail: { name: spec.name, baseUrl, containerId: container.id } };
    } catch (err) {
      await this.#remove(container);
      throw err;
    }
  }

  async #logTail(container: Docker.Container): Promise<string> {
    try {
      const buf = (await container.logs({ stdout: true, stderr: true, tail: 40, follow: false })) as unknown as Buffer;
      // multiplexed stream: 8-byte frame headers; strip them for a readable tail
      const out: string[] = [];
      for (let i = 0; i + 8 <= buf.length;) {
        const len = buf.readUInt32BE(i + 4);
        out.push(buf.subarray(i + 8, i + 8 + len).toString());
        i += 8 + len;
      }
      return (out.join('') || buf.toString()).trim().slice(-4000);
    } catch {
      return '';
    }
  }

  async #remove(container: Docker.Container): Promise<void> {
    await container.stop({ t: 2 }).catch(() => undefined);
    await container.remove({ force: true, v: true }).catch(() => undefined);
  }
}
