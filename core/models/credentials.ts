import { Collections } from '../collections.js';
import { readEnvVar } from '../config.js';
import { assertCredentialVar } from '../credential-vars.js';
import { ServiceError } from '../errors.js';
import type { Doc, DocumentStore } from '../ports.js';

interface CredentialDoc extends Doc {
  project_id: string;
  name: string;
  kind: string;
  env_var: string;
  created_at?: string;
}

/**
 * The model provider key of a project: the newest credential reference of kind
 * `model_provider` names an environment variable, and the runner reads that variable
 * (keys never enter the store). `env` is for tests; the default is the process
 * environment, read through `readEnvVar`.
 *
 * @throws ServiceError('bad_request') when the project has no such credential reference, the
 *   variable it names is not one SERVICE_CREDENTIAL_VARS allows (or is the service's own), or
 *   it is not set on this runner.
 */
export async function resolveModelApiKey(
  store: DocumentStore,
  projectId: string,
  config: { readonly credentialVars: readonly string[] },
  env?: Record<string, string | undefined>,
): Promise<{ apiKey: string; credential: string }> {
  const docs = await store.find<CredentialDoc>(
    Collections.credentials,
    { project_id: projectId, kind: 'model_provider' },
    { sort: { field: 'created_at', direction: 'desc' }, limit: 1 },
  );
  const cred = docs[0];
  if (!cred) {
    throw new ServiceError(
      'bad_request',
      'the project has no credential reference of kind model_provider; add one with POST /v1/credentials naming the environment variable that holds the key',
    );
  }
  // checked when read too: a reference stored before the operator narrowed the list, or naming a service variable
  try {
    assertCredentialVar(cred.env_var, config.credentialVars);
  } catch (err) {
    throw new ServiceError(
      'bad_request',
      `credential reference "${cred.name}": ${(err as ServiceError).message}; replace it with POST /v1/credentials`,
    );
  }
  const value = readEnvVar(cred.env_var, env);
  if (!value) {
    throw new ServiceError(
      'bad_request',
      `credential reference "${cred.name}" names the environment variable ${cred.env_var}, which is not set on this runner`,
    );
  }
  return { apiKey: value, credential: cred.name };
}
