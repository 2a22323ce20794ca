import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CONTROL_PLANE_ROLES,
  ServiceError,
  controlPlaneCerts,
  controlPlaneCrl,
  serialKey,
  type ControlPlaneRole,
  type RevokedCertificate,
} from '../core/index.js';

/** One certificate to issue: `role` or `role:name` (e.g. `worker:worker-2`). */
export interface CertSpec {
  role: ControlPlaneRole;
  name: string;
}

/** Parses `--roles gateway,scheduler,worker:worker-1,worker:worker-2`. */
export function parseCertSpecs(text: string): CertSpec[] {
  const specs = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [role, name = role] = s.split(':', 2) as [string, string?];
      if (!(CONTROL_PLANE_ROLES as readonly string[]).includes(role))
        throw new ServiceError('bad_request', `"${s}": the role must be one of ${CONTROL_PLANE_ROLES.join(', ')}`);
      return { role: role as ControlPlaneRole, name };
    });
  if (specs.length === 0) throw new ServiceError('bad_request', '--roles names no certificate to issue');
  const names = specs.map((s) => s.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new ServiceError('bad_request', `the certificate name "${twice}" is given twice`);
  return specs;
}

export interface IssuedFiles {
  dir: string;
  /** Whether the CA was made now (false: the one in `dir` signed the new certificates). */
  newCa: boolean;
  ca: string;
  /** The revocation list (`crl.pem`), written empty with a new CA (or when missing). */
  crl: string;
  certificates: Array<CertSpec & { cert: string; key: string; serial: string }>;
}

/**
 * `crucible admin certs --out DIR --roles ...`: issues role certificates of the control
 * plane into DIR, with the CA found there (`ca.pem`, `ca-key.pem`) or, the first time, a
 * new one. Writes `<name>.pem` and `<name>-key.pem` per certificate; keys are readable by
 * their owner only (0600). Never overwrites a file: issue a new name, or remove the old files
 * first. A folder without a revocation list gets an empty `crl.pem` (see {@link revokeCertificates}).
 */
export async function issueCertificateFiles(dir: string, specs: CertSpec[], days = 365): Promise<IssuedFiles> {
  const certs = await controlPlaneCerts();
  const out = path.resolve(dir);
  mkdirSync(out, { recursive: true, mode: 0o700 });
  const file = (name: string) => path.join(out, name);
  const taken = specs.flatMap((s) => [`${s.name}.pem`, `${s.name}-key.pem`]).filter((f) => existsSync(file(f)));
  if (taken.length > 0)
    throw new ServiceError(
      'conflict',
      `${taken.map(file).join(', ')} already exist: remove them or choose other names`,
    );
  const [caCert, caKey] = [file('ca.pem'), file('ca-key.pem')];
  if (existsSync(caCert) !== existsSync(caKey))
    throw new ServiceError('conflict', `${out} holds only one of ca.pem and ca-key.pem`);
  const newCa = !existsSync(caCert);
  let ca;
  if (newCa) {
    ca = await certs.createControlPlaneCa();
    const pems = await certs.caPems(ca);
    writeFileSync(caCert, pems.cert, { mode: 0o644 });
    writeFileSync(caKey, pems.key, { mode: 0o600 });
  } else {
    ca = await certs.loadControlPlaneCa(readFileSync(caCert, 'utf8'), readFileSync(caKey, 'utf8'));
  }
  const crl = file(CRL_FILE);
  if (!existsSync(crl))
    writeFileSync(crl, await (await controlPlaneCrl()).issueRevocationList(ca, []), { mode: 0o644 });
  const certificates: IssuedFiles['certificates'] = [];
  for (const spec of specs) {
    const issued = await certs.issueRoleCertificate(ca, spec.role, spec.name, days);
    const entry = {
      ...spec,
      cert: file(`${spec.name}.pem`),
      key: file(`${spec.name}-key.pem`),
      serial: serialKey(new X509Certificate(issued.cert).serialNumber),
    };
    writeFileSync(entry.cert, issued.cert, { mode: 0o644 });
    // `mode` applies to a new file only, and the umask can only narrow it: the key is 0600 or tighter
    writeFileSync(entry.key, issued.key, { mode: 0o600 });
    certificates.push(entry);
  }
  return { dir: out, newCa, ca: caCert, crl, certificates };
}

/** The name of the revocation list in the CA folder. */
export const CRL_FILE = 'crl.pem';

/** What to revoke: serial numbers (hex, as `openssl x509 -serial` prints them) and certificate files. */
export interface RevokeRequest {
  serials: string[];
  certs: string[];
  reason: string;
}

export interface RevokedFiles {
  crl: string;
  /** Serials this run added. */
  added: string[];
  /** Serials that were revoked already (left as they were). */
  already: string[];
  /** The whole list now. */
  revoked: RevokedCertificate[];
}

/** The serial of a certificate file, refused unless the CA of the folder issued it. */
async function serialOfFile(file: string, caPem: string): Promise<string> {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(readFileSync(file));
  } catch (err) {
    throw new ServiceError(
      'bad_request',
      `--cert ${file} is not a readable PEM certificate: ${(err as Error).message}`,
    );
  }
  if (!cert.verify(new X509Certificate(caPem).publicKey))
    throw new ServiceError('bad_request', `--cert ${file} was not issued by this folder's CA`);
  return serialKey(cert.serialNumber);
}

/**
 * `crucible admin certs revoke --out DIR --serial S --cert FILE`: adds certificates to the
 * folder's revocation list (`crl.pem`, a CRL signed by its CA), keeping what it lists
 * already. With nothing to add it writes the list as it stands (an older folder's first
 * `crl.pem`). The file is rewritten in place, not replaced, so a role whose copy is a bind
 * mount of it (compose secrets) sees the change; the roles re-read it within seconds.
 */
export async function revokeCertificates(dir: string, req: RevokeRequest): Promise<RevokedFiles> {
  const crlMod = await controlPlaneCrl();
  if (!(crlMod.REVOCATION_REASONS as readonly string[]).includes(req.reason))
    throw new ServiceError('bad_request', `--reason must be one of ${crlMod.REVOCATION_REASONS.join(', ')}`);
  const out = path.resolve(dir);
  const [caCert, caKey, crl] = ['ca.pem', 'ca-key.pem', CRL_FILE].map((f) => path.join(out, f)) as [
    string,
    string,
    string,
  ];
  if (!existsSync(caCert) || !existsSync(caKey))
    throw new ServiceError(
      'not_found',
      `${out} holds no CA (ca.pem and ca-key.pem): give the folder of \`crucible admin certs --out\``,
    );
  const caPem = readFileSync(caCert, 'utf8');
  const ca = await (await controlPlaneCerts()).loadControlPlaneCa(caPem, readFileSync(caKey, 'utf8'));
  const serials = req.serials.map((s) => {
    const hex = s.trim().replace(/:/g, '');
    if (!/^[0-9a-fA-F]{1,40}$/.test(hex))
      throw new ServiceError('bad_request', `--serial "${s}": a certificate serial number in hex (1 to 40 digits)`);
    return serialKey(hex);
  });
  for (const f of req.certs) serials.push(await serialOfFile(path.resolve(f), caPem));
  const entries = existsSync(crl)
    ? await crlMod.readRevocationList(readFileSync(crl, 'utf8'), caPem).catch((err: Error) => {
        throw new ServiceError(
          'conflict',
          `${crl} is not a revocation list of this CA (${err.message}): move it away first`,
        );
      })
    : new Map<string, RevokedCertificate>();
  const added: string[] = [];
  const already: string[] = [];
  const now = new Date().toISOString();
  for (const serial of new Set(serials)) {
    if (entries.has(serial)) already.push(serial);
    else {
      entries.set(serial, { serial, revokedAt: now, reason: req.reason });
      added.push(serial);
    }
  }
  writeFileSync(crl, await crlMod.issueRevocationList(ca, [...entries.values()]), { mode: 0o644 });
  return { crl, added, already, revoked: [...entries.values()] };
}
