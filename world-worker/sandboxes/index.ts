/** Sandboxes: where an application's services run (child processes or Docker containers). */
import path from 'node:path';
export type { Sandboxes, SandboxHandle, SandboxService, SandboxStartOptions } from './sandboxes.js';
export { fillEnv } from './sandboxes.js';
export { ChildProcessSandboxes, type ChildProcessSandboxesOptions } from './child-process.js';
export { DockerSandboxes, parseDockerHost, type DockerSandboxesOptions } from './docker.js';
export { freePort } from './free-port.js';
export { SandboxPidFiles } from './pid-files.js';

import type { Sandboxes } from './sandboxes.js';
import { ChildProcessSandboxes } from './child-process.js';
import { DockerSandboxes } from './docker.js';
import { SandboxPidFiles } from './pid-files.js';

/** Where a worker records its child-process sandboxes (world-worker/sandboxes/pid-files.ts). */
export const sandboxPidDir = (dataDir: string): string => path.join(dataDir, 'sandboxes', '.pids');

/**
 * Docker when a DOCKER_HOST is configured, child processes otherwise (their process groups
 * recorded under the data folder when one is given, for reaping after a crash).
 */
export function chooseSandboxes(config: { dockerHost: string | null; dataDir?: string }): Sandboxes {
  if (config.dockerHost) return new DockerSandboxes({ dockerHost: config.dockerHost });
  return new ChildProcessSandboxes(
    config.dataDir ? { pidFiles: new SandboxPidFiles(sandboxPidDir(config.dataDir)) } : {},
  );
}
