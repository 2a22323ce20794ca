import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CONTROL_PLANE_ROLES, ServiceError, controlPlaneCerts, type ControlPlaneRole } from '../core/index.js';

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
  certificates: Array<CertSpec & { cert: string; key: string }>;
}

/**
 * `crucible admin certs --out DIR --roles ...`: issues role certificates of the control
 * plane into DIR, with the CA found there (`ca.pem`, `ca-key.pem`) or, the first time, a
 * new one. Writes `<name>.pem` and `<name>-key.pem` per certificate; keys are readable by
 * their owner only. Never overwrites a file: issue a new name, or remove the old files first.
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
  const certificates: IssuedFiles['certificates'] = [];
  for (const spec of specs) {
    const issued = await certs.issueRoleCertificate(ca, spec.role, spec.name, days);
    const entry = { ...spec, cert: file(`${spec.name}.pem`), key: file(`${spec.name}-key.pem`) };
    writeFileSync(entry.cert, issued.cert, { mode: 0o644 });
    writeFileSync(entry.key, issued.key, { mode: 0o600 });
    certificates.push(entry);
  }
  return { dir: out, newCa, ca: caCert, certificates };
}
