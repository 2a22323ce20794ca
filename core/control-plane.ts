import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PeerCertificate } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import type { Config } from './config.js';
import { ServiceError } from './errors.js';

/** The roles of the control plane; a role certificate names one in its subject's OU. */
export const CONTROL_PLANE_ROLES = ['gateway', 'scheduler', 'worker'] as const;
export type ControlPlaneRole = (typeof CONTROL_PLANE_ROLES)[number];

/** A role's certificate (with the CA that signed the others) in PEM. */
export interface ControlPlanePems {
  ca: string;
  cert: string;
  key: string;
}

/** Who called, as its certificate says. */
export interface ControlPlanePeer {
  role: ControlPlaneRole;
  /** The certificate's CN (e.g. `worker-2`). */
  name: string;
}

/** What a gRPC server call tells of its transport (grpc-js ServerUnaryCall and the like). */
export interface AuthenticatedCall {
  getAuthContext(): { sslPeerCertificate?: PeerCertificate } | null;
}

/** The TLS name every role's certificate carries (SAN), sent as SNI instead of the target's host. */
export const roleServerName = (role: ControlPlaneRole): string => `crucible-${role}`;

function one(value: string | string[] | undefined): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The role and name a certificate subject states; null when it states none or several. */
export function peerOf(
  subject: { OU?: string | string[]; CN?: string | string[] } | undefined,
): ControlPlanePeer | null {
  const role = one(subject?.OU);
  if (!role || !(CONTROL_PLANE_ROLES as readonly string[]).includes(role)) return null;
  return { role: role as ControlPlaneRole, name: one(subject?.CN) ?? role };
}

/**
 * How one role speaks gRPC to the others. With certificates (the only shape for roles in
 * separate processes), every connection is mutual TLS against the installation's CA: a
 * server accepts only clients whose certificate that CA signed, a client accepts only a
 * server whose certificate names the role it meant to reach, and each method answers only
 * the roles allowed to call it ({@link ControlPlane.authorize}). Without (`insecure`),
 * nothing is checked: only for development with every role on loopback.
 */
export class ControlPlane {
  readonly #pems: { ca: Buffer; cert: Buffer; key: Buffer } | null;
  /** The role this process's certificate names; null when insecure. */
  readonly self: ControlPlanePeer | null;

  private constructor(pems: ControlPlanePems | null, self: ControlPlanePeer | null) {
    this.#pems = pems && { ca: Buffer.from(pems.ca), cert: Buffer.from(pems.cert), key: Buffer.from(pems.key) };
    this.self = self;
  }

  /** No TLS, no checks: loopback development only (CONTROL_PLANE_INSECURE). */
  static insecure(): ControlPlane {
    return new ControlPlane(null, null);
  }

  /**
   * Mutual TLS with this role certificate. Checks, before anything listens or dials, that
   * the certificate names a role (`role` when given), that the CA signed it, that it is
   * valid today, and that the key is its key.
   */
  static mutualTls(pems: ControlPlanePems, role?: ControlPlaneRole): ControlPlane {
    let cert: X509Certificate;
    let ca: X509Certificate;
    try {
      cert = new X509Certificate(pems.cert);
      ca = new X509Certificate(pems.ca);
    } catch (err) {
      throw new ServiceError(
        'bad_request',
        `control-plane certificate or CA is not a PEM certificate (${String(err)})`,
      );
    }
    if (!cert.verify(ca.publicKey))
      throw new ServiceError('bad_request', 'the control-plane CA did not sign this certificate');
    const now = Date.now();
    if (Date.parse(cert.validFrom) > now || Date.parse(cert.validTo) < now)
      throw new ServiceError(
        'bad_request',
        `the control-plane certificate is valid only from ${cert.validFrom} to ${cert.validTo}`,
      );
    try {
      if (!cert.checkPrivateKey(createPrivateKey(pems.key))) throw new Error('it belongs to another certificate');
    } catch (err) {
      throw new ServiceError(
        'bad_request',
        `the control-plane key does not fit the certificate: ${(err as Error).message}`,
      );
    }
    const self = peerOf(Object.fromEntries(cert.subject.split('\n').map((l) => l.split('=', 2))) as { OU?: string });
    if (!self)
      throw new ServiceError(
        'bad_request',
        `the control-plane certificate (${cert.subject.replace(/\n/g, ', ')}) names no role in its OU`,
      );
    if (role && self.role !== role)
      throw new ServiceError(
        'bad_request',
        `the control-plane certificate is a ${self.role}'s; this process is a ${role}`,
      );
    return new ControlPlane(pems, self);
  }

  get secure(): boolean {
    return this.#pems !== null;
  }

  /** Server side: require and verify a client certificate signed by the CA. */
  serverCredentials(): grpc.ServerCredentials {
    if (!this.#pems) return grpc.ServerCredentials.createInsecure();
    return grpc.ServerCredentials.createSsl(
      this.#pems.ca,
      [{ cert_chain: this.#pems.cert, private_key: this.#pems.key }],
      true,
    );
  }

  /** Client side: present this role's certificate; accept only a server of `serverRole`. */
  channelCredentials(serverRole: ControlPlaneRole): grpc.ChannelCredentials {
    if (!this.#pems) return grpc.credentials.createInsecure();
    return grpc.credentials.createSsl(this.#pems.ca, this.#pems.key, this.#pems.cert, {
      // the CA is the installation's own: the role in the certificate is the identity, not the host name
      checkServerIdentity: (_host, cert) => {
        const peer = peerOf(cert.subject);
        return peer?.role === serverRole
          ? undefined
          : new Error(
              `the control-plane peer is not a ${serverRole} (its certificate names ${peer?.role ?? 'no role'})`,
            );
      },
    });
  }

  /** Channel options for a client of `serverRole`: TLS names the role, never an IP address. */
  channelOptions(serverRole: ControlPlaneRole, base: grpc.ChannelOptions): grpc.ChannelOptions {
    return this.#pems ? { ...base, 'grpc.ssl_target_name_override': roleServerName(serverRole) } : base;
  }

  /**
   * The caller of a gRPC method, refused unless its certificate names one of `allowed`.
   * The TLS handshake already turned away clients without a certificate of the CA; this
   * decides per method. Insecure: answers null and lets every caller through.
   */
  authorize(call: AuthenticatedCall, allowed: readonly ControlPlaneRole[], method: string): ControlPlanePeer | null {
    if (!this.#pems) return null;
    const cert = call.getAuthContext()?.sslPeerCertificate;
    const peer = cert ? peerOf(cert.subject) : null;
    if (!peer) throw new ServiceError('unauthenticated', `${method} needs a control-plane client certificate`);
    if (!allowed.includes(peer.role))
      throw new ServiceError(
        'forbidden',
        `${method} may be called by ${allowed.join(' or ')}, not by a ${peer.role} (${peer.name})`,
      );
    return peer;
  }
}

const LOOPBACK = /^(127(\.\d{1,3}){3}|localhost|::1|\[::1\])$/i;

/** The host part of `host:port` (`[v6]:port` too), or of a bare host. */
function hostOf(target: string): string {
  const t = target.trim().replace(/^dns:(\/\/\/)?/, '');
  const v6 = /^\[([^\]]+)\]/.exec(t);
  if (v6) return v6[1]!;
  return t.includes(':') && t.indexOf(':') === t.lastIndexOf(':') ? t.slice(0, t.indexOf(':')) : t;
}

export const isLoopback = (hostOrTarget: string): boolean => LOOPBACK.test(hostOf(hostOrTarget));

/**
 * The control plane of a role run as its own process: mutual TLS from CONTROL_PLANE_CA,
 * CONTROL_PLANE_CERT and CONTROL_PLANE_KEY, whose certificate must be this role's. Without
 * them the role refuses to start, unless CONTROL_PLANE_INSECURE is set and every gRPC
 * address it binds, advertises or dials is loopback.
 */
export function roleControlPlane(config: Config, role: ControlPlaneRole): ControlPlane {
  const files = config.controlPlane;
  if (files) {
    const read = (name: string, file: string) => {
      try {
        return readFileSync(file, 'utf8');
      } catch (err) {
        throw new ServiceError('bad_request', `${name} (${file}) cannot be read: ${(err as Error).message}`);
      }
    };
    return ControlPlane.mutualTls(
      {
        ca: read('CONTROL_PLANE_CA', files.ca),
        cert: read('CONTROL_PLANE_CERT', files.cert),
        key: read('CONTROL_PLANE_KEY', files.key),
      },
      role,
    );
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
  return ControlPlane.insecure();
}
