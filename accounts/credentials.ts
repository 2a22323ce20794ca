import { Collections } from '../core/index.js';
import { ServiceError, assertCredentialVar, notFound, readEnvVar } from '../core/index.js';
import { newId, nowIso } from '../core/index.js';
import type { Doc, DocumentStore } from '../core/index.js';
import { created, ok, type HandlerTable } from '../core/index.js';
import { body, param, requirePrincipal } from '../core/index.js';
import { okPage, pageOf, pageRequest } from '../core/index.js';

export const CREDENTIAL_KINDS = ['model_provider', 'application', 'training'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/**
 * A credential reference: the name of an environment variable that the runner reads on
 * the server (`resolveModelApiKey` below). It never holds a secret value; the request
 * schema refuses any field beyond name, kind and env_var. Only variables the operator allows
 * (SERVICE_CREDENTIAL_VARS) may be named, never the service's own (core/credential-vars.ts).
 */
export interface CredentialDoc extends Doc {
  project_id: string;
  name: string;
  kind: CredentialKind;
  env_var: string;
  created_by: string | null;
  created_at: string;
}

export async function ensureCredentialIndexes(store: DocumentStore): Promise<void> {
  await store.ensureIndexes(Collections.credentials, [{ fields: ['project_id', 'name'], unique: true }]);
}

function credentialView(c: CredentialDoc): Record<string, unknown> {
  return { id: c._id, name: c.name, kind: c.kind, env_var: c.env_var, created_at: c.created_at };
}

/** The project's credential reference with this name, for components that need one; null when absent. */
function findCredential(store: DocumentStore, projectId: string, name: string): Promise<CredentialDoc | null> {
  return store.findOne<CredentialDoc>(Collections.credentials, { project_id: projectId, name });
}

export const credentialHandlers: HandlerTable = {
  async list_credentials(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const page = await pageOf<CredentialDoc>(
      adapters.store,
      Collections.credentials,
      { project_id: p.projectId },
      [{ field: 'name', direction: 'asc' }],
      pageRequest(ctx.query),
    );
    return okPage(page.items.map(credentialView), page.next);
  },

  /** Adds a reference; a variable the operator does not allow answers 422, a name already used in the project 409. */
  async create_credential(ctx, { adapters, config }) {
    const p = requirePrincipal(ctx);
    const b = body<{ name: string; kind: CredentialKind; env_var: string }>(ctx);
    assertCredentialVar(b.env_var, config.credentialVars);
    try {
      const doc = await adapters.store.insert<CredentialDoc>(Collections.credentials, {
        _id: newId('cred'),
        project_id: p.projectId,
        name: b.name,
        kind: b.kind,
        env_var: b.env_var,
        created_by: p.userId ?? p.keyId,
        created_at: nowIso(),
      });
      return created(credentialView(doc));
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'conflict')
        throw new ServiceError('conflict', `a credential reference named "${b.name}" already exists in this project`);
      throw err;
    }
  },

  async delete_credential(ctx, { adapters }) {
    const p = requirePrincipal(ctx);
    const id = param(ctx, 'cred_id');
    const doc = await adapters.store.get<CredentialDoc>(Collections.credentials, id);
    if (!doc || doc.project_id !== p.projectId) throw notFound(`credential reference ${id}`);
    await adapters.store.delete(Collections.credentials, id);
    return ok({ id, deleted: true });
  },
};

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
