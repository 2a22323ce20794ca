/** Sandboxes: where an application's services run (child processes or Docker containers). */
export type { Sandboxes, SandboxHandle, SandboxService, SandboxStartOptions } from './sandboxes.js';
export { fillEnv } from './sandboxes.js';
export { ChildProcessSandboxes, type ChildProcessSandboxesOptions } from './child-process.js';
export { DockerSandboxes, parseDockerHost, type DockerSandboxesOptions } from './docker.js';
export { freePort } from './free-port.js';

import type { Sandboxes } from './sandboxes.js';
import { ChildProcessSandboxes } from './child-process.js';
import { DockerSandboxes } from './docker.js';

/** Docker when a DOCKER_HOST is configured, child processes otherwise. */
export function chooseSandboxes(config: { dockerHost: string | null }): Sandboxes {
  return config.dockerHost ? new DockerSandboxes({ dockerHost: config.dockerHost }) : new ChildProcessSandboxes();
}
