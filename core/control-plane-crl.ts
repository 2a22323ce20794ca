// @peculiar/x509 resolves its parts with tsyringe, which needs the Reflect metadata API first
import 'reflect-metadata';
import { readFileSync, statSync } from 'node:fs';
import * as x509 from '@peculiar/x509';
// sets @peculiar/x509's crypto provider
import { ALG, type ControlPlaneCa } from './control-plane-certs.js';
import { serialKey, type ControlPlaneRevocations, type RevokedCertificate } from './control-plane.js';
import { ServiceError } from './errors.js';
import type { Logger } from './log.js';

/** The revocation reasons `crucible admin certs revoke --reason` offers (RFC 5280 CRLReason names). */
export const REVOCATION_REASONS = [
  'unspecified',
  'keyCompromise',
  'affiliationChanged',
  'superseded',
  'cessationOfOperation',
] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/** A serial as a DER INTEGER's hex: whole bytes, and a leading zero byte when the first bit is set (positive). */
const derHex = (serial: string) => {
  const key = serialKey(serial);
  const even = key.length % 2 === 0 ? key : `0${key}`;
  return /^[89a-f]/.test(even) ? `00${even}` : even;
};

/**
 * A revocation list of the control plane: a standard X.509 v2 CRL signed by `ca`, listing
 * `entries` (sorted by serial, so the same list is the same file). Its nextUpdate is the
 * CA's expiry: the roles read a list as in force until a newer one replaces it.
 */
export async function issueRevocationList(ca: ControlPlaneCa, entries: RevokedCertificate[]): Promise<string> {
  const crl = await x509.X509CrlGenerator.create({
    issuer: ca.cert.subject,
    thisUpdate: new Date(),
    nextUpdate: ca.cert.notAfter,
    signingAlgorithm: ALG,
    signingKey: ca.privateKey,
    entries: [...entries]
      .sort((a, b) => a.serial.localeCompare(b.serial))
      .map((e) => ({
        serialNumber: derHex(e.serial),
        revocationDate: new Date(e.revokedAt),
        reason: x509.X509CrlReason[e.reason as RevocationReason] ?? x509.X509CrlReason.unspecified,
      })),
  });
  // RFC 7468's label, the one OpenSSL and Node's TLS read (the library writes "CRL")
  return `${x509.PemConverter.encode(crl.rawData, 'X509 CRL')}\n`;
}

/**
 * The entries of a revocation list, keyed by {@link serialKey}, once the list is shown to
 * be a CRL the control-plane CA (`caPem`) issued and signed. Anything else is refused.
 */
export async function readRevocationList(pem: string, caPem: string): Promise<Map<string, RevokedCertificate>> {
  let crl: x509.X509Crl;
  try {
    const block = /-----BEGIN (?:X509 )?CRL-----[^-]+-----END (?:X509 )?CRL-----/.exec(pem);
    if (!block) throw new Error('no "BEGIN X509 CRL" block');
    crl = new x509.X509Crl(x509.PemConverter.decodeFirst(block[0]));
  } catch (err) {
    throw new ServiceError('bad_request', `not a PEM revocation list (X.509 CRL): ${(err as Error).message}`);
  }
  const ca = new x509.X509Certificate(caPem);
  if (crl.issuer !== ca.subject)
    throw new ServiceError(
      'bad_request',
      `the revocation list is issued by "${crl.issuer}", not by the control-plane CA ("${ca.subject}")`,
    );
  let signed = false;
  try {
    signed = await crl.verify({ publicKey: ca.publicKey });
  } catch {
    // an unreadable signature is as good as a wrong one
  }
  if (!signed) throw new ServiceError('bad_request', 'the control-plane CA did not sign this revocation list');
  const entries = new Map<string, RevokedCertificate>();
  for (const e of crl.entries) {
    const serial = serialKey(e.serialNumber);
    const reason = e.reason === undefined ? 'unspecified' : (x509.X509CrlReason[e.reason] ?? 'unspecified');
    entries.set(serial, { serial, revokedAt: e.revocationDate.toISOString(), reason });
  }
  return entries;
}

/** What identifies one version of a file: a rewrite in place or a replacement changes it. */
function versionOf(file: string): string {
  const s = statSync(file);
  return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
}

/**
 * CONTROL_PLANE_CRL as a role holds it: read (and checked) at start, then looked at every
 * `intervalMs` and read again when the file changed. A changed file that cannot be read or
 * is not a list of this CA (half written, replaced by mistake) is logged and the previous
 * list stays in force, so a bad copy never un-revokes a certificate.
 */
export class RevocationListFile implements ControlPlaneRevocations {
  readonly #file: string;
  readonly #caPem: string;
  readonly #logger: Logger | null;
  readonly #listeners = new Set<() => void>();
  #entries: Map<string, RevokedCertificate>;
  #version: string;
  #timer: NodeJS.Timeout | null = null;
  #checking = false;

  private constructor(
    file: string,
    caPem: string,
    entries: Map<string, RevokedCertificate>,
    version: string,
    logger?: Logger,
  ) {
    this.#file = file;
    this.#caPem = caPem;
    this.#entries = entries;
    this.#version = version;
    this.#logger = logger?.child({ component: 'control-plane-crl' }) ?? null;
  }

  /** Reads `file` (refused with CONTROL_PLANE_CRL's name when unreadable or not the CA's) and watches it. */
  static async open(
    file: string,
    caPem: string,
    options: { logger?: Logger; intervalMs?: number } = {},
  ): Promise<RevocationListFile> {
    let version: string;
    let entries: Map<string, RevokedCertificate>;
    try {
      version = versionOf(file);
      entries = await readRevocationList(readFileSync(file, 'utf8'), caPem);
    } catch (err) {
      throw new ServiceError('bad_request', `CONTROL_PLANE_CRL (${file}) cannot be used: ${(err as Error).message}`);
    }
    const list = new RevocationListFile(file, caPem, entries, version, options.logger);
    list.#timer = setInterval(() => void list.check(), options.intervalMs ?? 5_000);
    list.#timer.unref();
    list.#logger?.info({ file, revoked: entries.size }, 'control-plane revocation list read');
    return list;
  }

  revoked(serial: string): RevokedCertificate | null {
    return this.#entries.get(serialKey(serial)) ?? null;
  }

  /** The serials the list holds now. */
  get size(): number {
    return this.#entries.size;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads the file again if it changed since the last look; answers whether the list changed. */
  async check(): Promise<boolean> {
    if (this.#checking) return false;
    this.#checking = true;
    try {
      let version: string;
      try {
        version = versionOf(this.#file);
      } catch (err) {
        if (this.#version !== 'missing')
          this.#logger?.error(
            { file: this.#file, err },
            'control-plane revocation list is gone; keeping the last one read',
          );
        this.#version = 'missing';
        return false;
      }
      if (version === this.#version) return false;
      this.#version = version;
      let entries: Map<string, RevokedCertificate>;
      try {
        entries = await readRevocationList(readFileSync(this.#file, 'utf8'), this.#caPem);
      } catch (err) {
        // a half-written file is read again once the writer's last change moves its version
        this.#logger?.error(
          { file: this.#file, err: (err as Error).message },
          'control-plane revocation list cannot be read again; keeping the last one read',
        );
        return false;
      }
      const added = [...entries.keys()].filter((s) => !this.#entries.has(s));
      const removed = [...this.#entries.keys()].filter((s) => !entries.has(s));
      this.#entries = entries;
      this.#logger?.info(
        { file: this.#file, revoked: entries.size, added, removed },
        'control-plane revocation list read again',
      );
      if (added.length === 0 && removed.length === 0) return false;
      for (const l of this.#listeners) l();
      return true;
    } finally {
      this.#checking = false;
    }
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#listeners.clear();
  }
}
