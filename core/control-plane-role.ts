import { readFileSync, statSync } from 'node:fs';
import type { Config } from './config.js';
import { ControlPlane, type ControlPlaneRevocations, type ControlPlaneRole } from './control-plane.js';
import { ServiceError } from './errors.js';
import { grpcMessageLimit } from './grpc-limits.js';
import type { Logger } from './log.js';

const LOOPBACK = /^(127(\.\d{1,3}){3}|localhost|::1|\[::1\])$/i;

/** The host part of `host:port` (`[v6]:port` too), or of a bare host. */
function hostOf(target: string): string {
  const t = target.trim().replace(/^dns:(\/\/\/)?/, '');
  const v6 = /^\[([^\]]+)\]/.exec(t);
  if (v6) return v6[1]!;
  return t.includes(':') && t.indexOf(':') === t.lastIndexOf(':') ? t.slice(0, t.indexOf(':')) : t;
}

export const isLoopback = (hostOrTarget: string): boolean => LOOPBACK.test(hostOf(hostOrTarget));

function read(name: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ServiceError('bad_request', `${name} (${file}) cannot be read: ${(err as Error).message}`);
  }
}

/**
 * Refuses a private key file that its group or others may read, write or run (as ssh does):
 * such a key may already be someone else's. The mode of the file a symbolic link names counts.
 */
export function assertPrivateKeyFile(name: string, file: string): void {
  if (process.platform === 'win32') return;
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch (err) {
    throw new ServiceError('bad_request', `${name} (${file}) cannot be read: ${(err as Error).message}`);
  }
  if ((mode & 0o077) !== 0)
    throw new ServiceError(
      'bad_request',
      `${name} (${file}) is open to its group or others (mode ${mode.toString(8).padStart(4, '0')}): a private key ` +
        `must be readable by its owner only; run \`chmod 600 ${file}\``,
    );
}

/** What {@link roleControlPlane} takes besides the configuration. */
export interface RoleControlPlaneOptions {
  /** Notes reloads of the revocation list and refused certificates. */
  logger?: Logger;
  /** How often the revocation list's file is looked at for a change (5 s). */
  crlReloadMs?: number;
}

/**
 * The control plane of a role run as its own process: mutual TLS from CONTROL_PLANE_CA,
 * CONTROL_PLANE_CERT and CONTROL_PLANE_KEY, whose certificate must be this role's and whose
 * key file its owner alone may read; with CONTROL_PLANE_CRL, the CA's revocation list,
 * re-read when the file changes. Without certificates the role refuses to start, unless
 * CONTROL_PLANE_INSECURE is set and every gRPC address it binds, advertises or dials is loopback.
 */
export async function roleControlPlane(
  config: Config,
  role: ControlPlaneRole,
  options: RoleControlPlaneOptions = {},
): Promise<ControlPlane> {
  const files = config.controlPlane;
  const maxMessageBytes = grpcMessageLimit(config);
  if (files) {
    assertPrivateKeyFile('CONTROL_PLANE_KEY', files.key);
    const pems = {
      ca: read('CONTROL_PLANE_CA', files.ca),
      cert: read('CONTROL_PLANE_CERT', files.cert),
      key: read('CONTROL_PLANE_KEY', files.key),
    };
    let revocations: ControlPlaneRevocations | undefined;
    if (files.crl) {
      // @peculiar/x509 is loaded only by the roles that read a revocation list
      const { RevocationListFile } = await import('./control-plane-crl.js');
      revocations = await RevocationListFile.open(files.crl, pems.ca, {
        logger: options.logger,
        intervalMs: options.crlReloadMs,
      });
    }
    try {
      return ControlPlane.mutualTls(pems, role, { revocations, logger: options.logger, maxMessageBytes });
    } catch (err) {
      revocations?.close();
      throw err;
    }
  }
  if (!config.controlPlaneInsecure)
    throw new ServiceError(
      'bad_request',
      `crucible ${role} needs control-plane certificates: set CONTROL_PLANE_CA, CONTROL_PLANE_CERT and CONTROL_PLANE_KEY ` +
        `(issue them with \`crucible admin certs --out DIR\`; see docs/security.md), or CONTROL_PLANE_INSECURE=true ` +
        'for development with every role on loopback',
    );
  const addresses: Array<[string, string]> = [];
  if (role === 'scheduler') addresses.push(['SCHEDULER_HOST', config.schedulerHost]);
  if (role === 'worker')
    addresses.push(['WORKER_HOST', config.workerHost], ['WORKER_ADVERTISE_HOST', config.workerAdvertiseHost]);
  if (role !== 'scheduler')
    for (const t of (config.schedulerAddr ?? '').split(',').filter((s) => s.trim()))
      addresses.push(['SCHEDULER_ADDR', t]);
  const outside = addresses.find(([, a]) => !isLoopback(a));
  if (outside)
    throw new ServiceError(
      'bad_request',
      `CONTROL_PLANE_INSECURE is for loopback only, but ${outside[0]} is ${outside[1]}: issue certificates with \`crucible admin certs\``,
    );
  return ControlPlane.insecure({ maxMessageBytes });
}
