import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { ServiceError } from './errors.js';
import type { Logger } from './log.js';
import { DEFAULT_GRPC_MESSAGE_BYTES, messageLimitOptions } from './grpc-limits.js';

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

/** A certificate the installation revoked, as its revocation list (CONTROL_PLANE_CRL) states. */
export interface RevokedCertificate {
  /** Lower-case hex, without leading zeros ({@link serialKey}). */
  serial: string;
  /** ISO 8601. */
  revokedAt: string;
  /** The CRL reason (`keyCompromise`, `cessationOfOperation` ...); `unspecified` when the list gives none. */
  reason: string;
}

/**
 * The certificates a role refuses (a standard X.509 CRL signed by the installation's CA,
 * core/control-plane-crl.ts). Looked up on every call, so a reloaded list acts at once.
 */
export interface ControlPlaneRevocations {
  /** The entry of the certificate with this serial (hex, any case, colons or not); null when not revoked. */
  revoked(serial: string): RevokedCertificate | null;
  /** Calls `listener` after each change of the list; answers a function that stops it. */
  onChange(listener: () => void): () => void;
  /** Stops watching the list's file. */
  close(): void;
}

/** A serial number as the revocation lookups key it: hex, lower case, no colons, no leading zeros. */
export const serialKey = (hex: string): string =>
  hex
    .replace(/:/g, '')
    .toLowerCase()
    .replace(/^0+(?=.)/, '');

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

/** The id a server must have been issued its certificate for ({@link ControlPlane.channelCredentials}). */
export interface ExpectedPeer {
  /** The id (certificate CN), e.g. the worker id a registration named. */
  name: string;
  /** Told the reason when the server presents another id's certificate. */
  onMismatch?: (reason: string) => void;
}

/** What {@link ControlPlane.mutualTls} takes besides the certificates. */
export interface ControlPlaneOptions {
  /** The revocation list (CONTROL_PLANE_CRL); none: only expiry ends a certificate. */
  revocations?: ControlPlaneRevocations;
  /** Where refusals of revoked certificates are logged. */
  logger?: Logger;
  /**
   * The largest gRPC message this role sends or accepts, on its servers and its channels:
   * `grpcMessageLimit(config)` (core/grpc-limits.ts). Default: the limit of the default configuration.
   */
  maxMessageBytes?: number;
}

/**
 * How one role speaks gRPC to the others. With certificates (the only shape for roles in
 * separate processes), every connection is mutual TLS against the installation's CA: a
 * server accepts only clients whose certificate that CA signed, a client accepts only a
 * server whose certificate names the role it meant to reach, and each method answers only
 * the roles allowed to call it ({@link ControlPlane.authorize}). With a revocation list, a
 * certificate it names is refused on every call as server and at every handshake as client
 * (docs/architecture.md, "Departure: revocation checked per call"). Without (`insecure`),
 * nothing is checked: only for development with every role on loopback.
 */
export class ControlPlane {
  readonly #pems: { ca: Buffer; cert: Buffer; key: Buffer } | null;
  readonly #revocations: ControlPlaneRevocations | null;
  readonly #logger: Logger | null;
  /** Whether the shared-certificate note ({@link channelCredentials}) was logged. */
  #sharedNoted = false;
  /** The largest gRPC message this role sends or accepts. */
  readonly maxMessageBytes: number;
  /** The role this process's certificate names; null when insecure. */
  readonly self: ControlPlanePeer | null;

  private constructor(pems: ControlPlanePems | null, self: ControlPlanePeer | null, options: ControlPlaneOptions = {}) {
    this.#pems = pems && { ca: Buffer.from(pems.ca), cert: Buffer.from(pems.cert), key: Buffer.from(pems.key) };
    this.self = self;
    this.#revocations = options.revocations ?? null;
    this.#logger = options.logger?.child({ component: 'control-plane' }) ?? null;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_GRPC_MESSAGE_BYTES;
  }

  /** No TLS, no checks: loopback development only (CONTROL_PLANE_INSECURE). */
  static insecure(options: Pick<ControlPlaneOptions, 'maxMessageBytes'> = {}): ControlPlane {
    return new ControlPlane(null, null, options);
  }

  /**
   * Mutual TLS with this role certificate. Checks, before anything listens or dials, that
   * the certificate names a role (`role` when given), that the CA signed it, that it is
   * valid today, that the key is its key, and that `options.revocations` does not list it.
   * With revocations, every call's peer certificate is looked up too ({@link authorize},
   * {@link channelCredentials}); `options.logger` notes each refusal.
   */
  static mutualTls(pems: ControlPlanePems, role?: ControlPlaneRole, options: ControlPlaneOptions = {}): ControlPlane {
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
    const revoked = options.revocations?.revoked(cert.serialNumber);
    if (revoked)
      throw new ServiceError(
        'bad_request',
        `this ${self.role}'s control-plane certificate (${self.name}, serial ${revoked.serial}) was revoked on ` +
          `${revoked.revokedAt} (CONTROL_PLANE_CRL): issue it a new one with \`crucible admin certs\``,
      );
    return new ControlPlane(pems, self, options);
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

  /**
   * Client side: present this role's certificate; accept only a server of `serverRole`.
   * With `expect`, also only a server whose certificate was issued for `expect.name` (a
   * worker's id): a certificate of another id is refused (logged, `expect.onMismatch`
   * told). A certificate named just for its role (the shared `worker` one) binds no id and
   * passes; that the binding is then unavailable is logged once.
   */
  channelCredentials(serverRole: ControlPlaneRole, expect?: ExpectedPeer): grpc.ChannelCredentials {
    if (!this.#pems) return grpc.credentials.createInsecure();
    return grpc.credentials.createSsl(this.#pems.ca, this.#pems.key, this.#pems.cert, {
      // the CA is the installation's own: the role in the certificate is the identity, not the host name
      checkServerIdentity: (_host, cert) => {
        const peer = peerOf(cert.subject);
        if (peer?.role !== serverRole)
          return new Error(
            `the control-plane peer is not a ${serverRole} (its certificate names ${peer?.role ?? 'no role'})`,
          );
        if (expect && peer.name === peer.role && !this.#sharedNoted) {
          this.#sharedNoted = true;
          this.#logger?.info(
            { role: serverRole, expected: expect.name },
            `this ${serverRole} presents the shared "${serverRole}" certificate, which names no id: that its address ` +
              'belongs to the id it registered as cannot be checked (issue one certificate per id: docs/security.md)',
          );
        } else if (expect && peer.name !== peer.role && peer.name !== expect.name) {
          const reason =
            `the ${serverRole} at this address presents the certificate of ${peer.name}, not of ${expect.name} ` +
            `(the id it registered as): refused`;
          this.#logger?.warn({ role: serverRole, expected: expect.name, presented: peer.name }, reason);
          expect.onMismatch?.(reason);
          return new Error(reason);
        }
        const revoked = this.#revoked(cert, peer, `connect to a ${serverRole}`);
        return revoked
          ? new Error(
              `the control-plane ${serverRole}'s certificate (${peer.name}, serial ${revoked.serial}) was revoked on ${revoked.revokedAt}`,
            )
          : undefined;
      },
    });
  }

  /**
   * Calls `listener` whenever the revocation list changes (never when there is none):
   * holders of long-lived connections drop them, so the next call meets the handshake's
   * check. Answers a function that stops it.
   */
  onRevocationsChange(listener: () => void): () => void {
    return this.#revocations?.onChange(listener) ?? (() => {});
  }

  /** Stops watching the revocation list's file; calls already checked stay so. */
  close(): void {
    this.#revocations?.close();
  }

  /** The revocation entry of `cert`, logged as a refusal of `what`; null when it is not revoked. */
  #revoked(cert: PeerCertificate, peer: ControlPlanePeer, what: string): RevokedCertificate | null {
    const revoked = this.#revocations?.revoked(cert.serialNumber) ?? null;
    if (revoked)
      this.#logger?.warn(
        { refused: what, peer, serial: revoked.serial, revokedAt: revoked.revokedAt, reason: revoked.reason },
        'control-plane certificate is revoked: refused',
      );
    return revoked;
  }

  /**
   * Channel options for a client of `serverRole`: `base`, messages held to
   * {@link maxMessageBytes}, and TLS that names the role, never an IP address.
   */
  channelOptions(serverRole: ControlPlaneRole, base: grpc.ChannelOptions): grpc.ChannelOptions {
    const options = { ...base, ...messageLimitOptions(this.maxMessageBytes) };
    return this.#pems ? { ...options, 'grpc.ssl_target_name_override': roleServerName(serverRole) } : options;
  }

  /** Options of this role's gRPC servers: messages held to {@link maxMessageBytes}. */
  serverOptions(): grpc.ServerOptions {
    return messageLimitOptions(this.maxMessageBytes);
  }

  /**
   * The caller of a gRPC method, refused unless its certificate names one of `allowed` and
   * is not revoked (UNAUTHENTICATED, logged). The TLS handshake already turned away clients
   * without a certificate of the CA; this decides per call, so a certificate revoked while
   * its connection stays open is refused from its next call on. Insecure: answers null and lets every caller through.
   */
  authorize(call: AuthenticatedCall, allowed: readonly ControlPlaneRole[], method: string): ControlPlanePeer | null {
    if (!this.#pems) return null;
    const cert = call.getAuthContext()?.sslPeerCertificate;
    const peer = cert ? peerOf(cert.subject) : null;
    if (!cert || !peer) throw new ServiceError('unauthenticated', `${method} needs a control-plane client certificate`);
    const revoked = this.#revoked(cert, peer, method);
    if (revoked)
      throw new ServiceError(
        'unauthenticated',
        `${method}: the caller's control-plane certificate (${peer.role} ${peer.name}, serial ${revoked.serial}) ` +
          `was revoked on ${revoked.revokedAt}`,
      );
    if (!allowed.includes(peer.role))
      throw new ServiceError(
        'forbidden',
        `${method} may be called by ${allowed.join(' or ')}, not by a ${peer.role} (${peer.name})`,
      );
    return peer;
  }
}
