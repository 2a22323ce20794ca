// @peculiar/x509 resolves its parts with tsyringe, which needs the Reflect metadata API first
import 'reflect-metadata';
import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { CONTROL_PLANE_ROLES, roleServerName, type ControlPlanePems, type ControlPlaneRole } from './control-plane.js';
import { ServiceError } from './errors.js';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;

/** ECDSA P-256 keys, SHA-256 signatures: small, fast to make, accepted by every TLS stack. */
export const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 3600_000;

/** A certificate authority of the control plane: its certificate and signing key. */
export interface ControlPlaneCa {
  cert: x509.X509Certificate;
  privateKey: CryptoKey;
}

/** One issued certificate in PEM: the certificate and its PKCS#8 key. */
export interface IssuedCertificate {
  role: ControlPlaneRole;
  name: string;
  cert: string;
  key: string;
}

const serial = () =>
  randomBytes(16)
    .toString('hex')
    .replace(/^[89a-f]/, '1');
const keyPem = async (key: CryptoKey) =>
  x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');

const newKeys = () => webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;

/** A new self-signed CA that may sign role certificates only (path length 0). */
export async function createControlPlaneCa(days = 3650): Promise<ControlPlaneCa> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=Crucible control plane CA, O=crucible',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + days * DAY_MS),
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, privateKey: keys.privateKey };
}

/** The CA in PEM (certificate, PKCS#8 key), to keep on the operator's machine. */
export async function caPems(ca: ControlPlaneCa): Promise<{ cert: string; key: string }> {
  return { cert: ca.cert.toString('pem'), key: await keyPem(ca.privateKey) };
}

/** Reads back a CA written by {@link caPems}. */
export async function loadControlPlaneCa(certPem: string, keyPem: string): Promise<ControlPlaneCa> {
  try {
    const cert = new x509.X509Certificate(certPem);
    const der = x509.PemConverter.decodeFirst(keyPem);
    const privateKey = await webcrypto.subtle.importKey('pkcs8', der, ALG, true, ['sign']);
    return { cert, privateKey };
  } catch (err) {
    throw new ServiceError('bad_request', `the CA certificate or key cannot be read: ${(err as Error).message}`);
  }
}

/**
 * A role certificate signed by `ca`: subject `CN=<name>, OU=<role>, O=crucible`, usable as
 * TLS server and client, with the role's TLS name (`crucible-<role>`) as its SAN.
 */
export async function issueRoleCertificate(
  ca: ControlPlaneCa,
  role: ControlPlaneRole,
  name: string = role,
  days = 365,
): Promise<IssuedCertificate> {
  if (!(CONTROL_PLANE_ROLES as readonly string[]).includes(role))
    throw new ServiceError('bad_request', `unknown control-plane role "${role}" (${CONTROL_PLANE_ROLES.join(', ')})`);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(name))
    throw new ServiceError('bad_request', `certificate name "${name}": letters, digits, '.', '_' and '-' only`);
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${name}, OU=${role}, O=crucible`,
    issuer: ca.cert.subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Math.min(Date.now() + days * DAY_MS, ca.cert.notAfter.getTime())),
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: ca.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: roleServerName(role) }]),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { role, name, cert: cert.toString('pem'), key: await keyPem(keys.privateKey) };
}

/**
 * A throwaway CA and one certificate per role, in memory only: the single `crucible start`
 * process speaks mutual TLS on loopback between its own roles, with nothing to configure.
 */
export async function ephemeralControlPlane(): Promise<Record<ControlPlaneRole, ControlPlanePems>> {
  const ca = await createControlPlaneCa(30);
  const caPem = ca.cert.toString('pem');
  const out = {} as Record<ControlPlaneRole, ControlPlanePems>;
  for (const role of CONTROL_PLANE_ROLES) {
    const issued = await issueRoleCertificate(ca, role, role, 30);
    out[role] = { ca: caPem, cert: issued.cert, key: issued.key };
  }
  return out;
}
