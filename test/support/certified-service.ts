/**
 * An embedded service whose roles hold control-plane certificates issued into a folder of
 * the test's own, so the test can also call a role directly as another role would (a
 * gateway's Dispatch to the scheduler, a scheduler's work request to a world-worker).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DispatchRequest } from '../../proto/index.js';
import { controlPlaneFiles, type ControlPlaneFiles } from './roles.js';
import { startTestService, type TestService } from './service.js';

export interface CertifiedService {
  svc: TestService;
  /** The roles' certificates: `certs.pems('gateway')` to call the scheduler as the gateway does. */
  certs: ControlPlaneFiles;
  /** Stops the service and removes its certificates. */
  close(): Promise<void>;
}

/** Issues certificates into a new folder named after `name` and starts a service over them. */
export async function startCertifiedService(name: string): Promise<CertifiedService> {
  const certDir = mkdtempSync(path.join(tmpdir(), `crucible-${name}-certs-`));
  try {
    const certs = await controlPlaneFiles(certDir);
    const svc = await startTestService({}, certs.embedded());
    return {
      svc,
      certs,
      async close() {
        await svc.close();
        rmSync(certDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(certDir, { recursive: true, force: true });
    throw err;
  }
}

/** The principal a gateway sends along with a Dispatch for an admin API key of `projectId`. */
export function adminKeyPrincipal(projectId: string): NonNullable<DispatchRequest['principal']> {
  return {
    project_id: projectId,
    organization_id: '',
    key_id: 'key_test',
    scopes: ['admin'],
    user_id: '',
    is_operator: false,
    session_id: '',
  };
}
