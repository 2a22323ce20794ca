/** Sandboxes: where an application's services run (child processes or Docker containers). */
import path from 'node:path';
export type { Sandboxes, SandboxHandle, SandboxProbe, SandboxService } from './sandboxes.js';
export { SandboxPool, type PoolKey, type PooledSandbox } from './pool.js';
export { ChildProcessSandboxes } from './child-process.js';
export { DockerSandboxes, OWNER_LABEL, parseDockerHost } from './docker.js';
export {
  assertMayRun,
  operatorSources,
  refusalText,
  runPolicy,
  sandboxOwner,
  trustOfCode,
  type CodeOrigin,
  type CodeRef,
  type RunPolicy,
  type SourceTrust,
} from './trust.js';
export {
  CHILD_PROCESS_ISOLATION,
  CONTAINER_ISOLATION,
  ISOLATION_PROMISES,
  TENANT_CODE_NEEDS,
  type IsolationPromise,
  type IsolationTable,
} from './isolation.js';
export { freePort } from './free-port.js';
import type { Config } from '../../core/index.js';
import type { Sandboxes } from './sandboxes.js';
import { ChildProcessSandboxes } from './child-process.js';
import { DockerSandboxes } from './docker.js';
import { sandboxOwner } from './trust.js';
import { SandboxPidFiles } from './pid-files.js';

/** Where a worker records its child-process sandboxes (world-worker/sandboxes/pid-files.ts). */
export const sandboxPidDir = (dataDir: string): string => path.join(dataDir, 'sandboxes', '.pids');

/**
 * The configured driver (SANDBOX): containers on DOCKER_HOST, or child processes (their
 * process groups recorded under the data folder, for reaping after a crash).
 */
export function chooseSandboxes(
  config: Pick<Config, 'sandbox' | 'dockerHost' | 'sandboxRuntimeImage' | 'sandboxLimits' | 'workerId' | 'dataDir'>,
): Sandboxes {
  if (config.sandbox !== 'container')
    return new ChildProcessSandboxes(
      config.dataDir ? { pidFiles: new SandboxPidFiles(sandboxPidDir(config.dataDir)) } : {},
    );
  return new DockerSandboxes({
    dockerHost: config.dockerHost ?? undefined,
    relayImage: config.sandboxRuntimeImage!,
    owner: sandboxOwner(config),
    limits: config.sandboxLimits,
  });
}
export {
  engineOf,
  isOtherTenantsImage,
  loadImage,
  saveImage,
  tenantImageRepo,
  unpackFiles,
  type SavedImage,
} from './images.js';
