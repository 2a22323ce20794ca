import { createHash } from 'node:crypto';
import type { Config } from '../../core/index.js';
import { ServiceError } from '../../core/index.js';

/** Who wrote an application's code, as far as where it may run is concerned. */
export type SourceTrust = 'operator' | 'tenant';

/** The parts of an application that say where its code came from. */
export interface SourceOrigin {
  source: { kind: string; url?: string };
  catalog?: { name: string } | null;
}

/**
 * Operator code: the packaged catalog, `local_path` folders and `file://` repositories
 * (both only inside SERVICE_SOURCE_ROOTS, which the operator names). Everything else,
 * uploads and remote git repositories, is tenant code.
 */
export function trustOfSource(app: SourceOrigin): SourceTrust {
  if (app.catalog) return 'operator';
  if (app.source.kind === 'local_path') return 'operator';
  if (app.source.kind === 'git' && app.source.url?.startsWith('file://')) return 'operator';
  return 'tenant';
}

/**
 * Refuses to build or run tenant code in child processes (which run as the service's own
 * user, with its files and network) unless the operator declared tenant code trusted.
 *
 * @throws ServiceError('forbidden') saying why and what to set.
 */
export function assertMayRun(config: Pick<Config, 'sandbox' | 'trustTenantCode'>, app: SourceOrigin): void {
  if (config.sandbox === 'container' || config.trustTenantCode || trustOfSource(app) === 'operator') return;
  const what = app.source.kind === 'upload' ? 'uploaded source' : 'a git repository';
  throw new ServiceError(
    'forbidden',
    `this installation runs application code in child processes, which are only for code the operator trusts, ` +
      `and this application's code is ${what}: it would run as the service itself. The operator can run it in ` +
      `container sandboxes (SANDBOX=container with DOCKER_HOST and SANDBOX_RUNTIME_IMAGE, see docs/security.md), ` +
      `or declare every tenant trusted with SANDBOX_TRUST_TENANT_CODE=true`,
    { details: { sandbox: config.sandbox, source_kind: app.source.kind } },
  );
}

/**
 * The owner label of a worker's containers: its WORKER_ID, else a hash of its data folder,
 * so the next start of the same worker finds what a killed one left.
 */
export function sandboxOwner(config: Pick<Config, 'workerId' | 'dataDir'>): string {
  return config.workerId ?? `data-${createHash('sha256').update(config.dataDir).digest('hex').slice(0, 16)}`;
}
