/** Sandboxes: where an application's services run (child processes or Docker containers). */
export type { Sandboxes, SandboxHandle, SandboxService, SandboxStartOptions } from './sandboxes.js';
export { fillEnv } from './sandboxes.js';
export { ChildProcessSandboxes, type ChildProcessSandboxesOptions } from './child-process.js';
export {
  DEFAULT_LIMITS,
  DockerSandboxes,
  OWNER_LABEL,
  parseDockerHost,
  type ContainerLimits,
  type DockerSandboxesOptions,
} from './docker.js';
export { assertMayRun, sandboxOwner, trustOfSource, type SourceOrigin, type SourceTrust } from './trust.js';
export { freePort } from './free-port.js';

import type { Config } from '../../core/index.js';
import type { Sandboxes } from './sandboxes.js';
import { ChildProcessSandboxes } from './child-process.js';
import { DockerSandboxes } from './docker.js';
import { sandboxOwner } from './trust.js';

/** The configured driver (SANDBOX): containers on DOCKER_HOST, or child processes. */
export function chooseSandboxes(
  config: Pick<Config, 'sandbox' | 'dockerHost' | 'sandboxRuntimeImage' | 'sandboxLimits' | 'workerId' | 'dataDir'>,
): Sandboxes {
  if (config.sandbox !== 'container') return new ChildProcessSandboxes();
  return new DockerSandboxes({
    dockerHost: config.dockerHost ?? undefined,
    relayImage: config.sandboxRuntimeImage!,
    owner: sandboxOwner(config),
    limits: config.sandboxLimits,
  });
}
